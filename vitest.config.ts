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
      // Threads and one module graph per worker: half the CPU of a fork per file (measured
      // 72 s against 153 s of CPU for the 105 files). Safe only because unit tests start no
      // process and change no global a later file reads; a file that does is system. Four
      // workers on two cores: much of a component test is waiting for Ink's next frame.
      { extends: true, test: { name: 'unit', include: TESTS, exclude: [...SYSTEM_TESTS], pool: 'threads', isolate: false, maxWorkers: 4, sequence: { groupOrder: 0 } } },
      // After the unit files, never beside them: the system tests (tmux, Slurm, real agents) keep
      // the two workers they had, not two more threads of Ink frames competing for the cores.
      { extends: true, test: { name: 'system', include: [...SYSTEM_TESTS], sequence: { groupOrder: 1 } } },
    ],
  },
});
