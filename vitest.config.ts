import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e tests share tmux and real processes; keep files in parallel but bounded for 2 cores
    maxWorkers: 2,
  },
});
