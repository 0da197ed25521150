import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every temp directory a test run makes (workspaces, journals, fake agents' output) goes
// under one directory of its own, removed when the run ends, pass or fail: thousands of
// test runs must not pile up workspaces in /tmp. Readable by all, so the tests that run a
// command as `nobody` can reach their workspace.

// One directory per run, not per project: vitest runs this once for each project (unit,
// system), and the second run nested its directory in the first's, which pushed a socket's
// path past the 107 bytes a unix socket may have (ENOENT on its chmod: the kernel had bound a
// cut path). The first call makes it; the others reuse it and leave its removal to the first.
const OWNER = 'CHECKROOM_TEST_TMPDIR';

export default function setup(): () => void {
  const made = process.env[OWNER];
  if (made && process.env.TMPDIR === made) return () => {};
  const dir = mkdtempSync(join(tmpdir(), 'checkroom-test-'));
  process.env[OWNER] = dir;
  chmodSync(dir, 0o755);
  process.env.TMPDIR = dir;
  // Piped output follows COLUMNS (src/text/paint.ts): tests see the same widths wherever they run.
  delete process.env.COLUMNS;
  return () => rmSync(dir, { recursive: true, force: true });
}
