import { defineConfig } from 'vitest/config';
import { SYSTEM_TESTS } from './test/projects.js';

// Two projects (issue 19 item 4): `unit` (no processes, no tmux: the inner loop, `npm run
// test:unit`) and `system` (the rest). Which file is which lives in test/projects.ts.
const TESTS = ['test/**/*.test.{ts,tsx}'];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e tests share tmux and real processes; keep files in parallel but bounded for 2 cores
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: TESTS, exclude: [...SYSTEM_TESTS] } },
      { extends: true, test: { name: 'system', include: [...SYSTEM_TESTS] } },
    ],
  },
});
