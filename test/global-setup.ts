import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every temp directory a test run makes (workspaces, journals, fake agents' output) goes
// under one directory of its own, removed when the run ends, pass or fail: thousands of
// test runs must not pile up workspaces in /tmp. Readable by all, so the tests that run a
// command as `nobody` can reach their workspace.

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'checkroom-test-'));
  chmodSync(dir, 0o755);
  process.env.TMPDIR = dir;
  // Piped output follows COLUMNS (src/app/paint.ts): tests see the same widths wherever they run.
  delete process.env.COLUMNS;
  return () => rmSync(dir, { recursive: true, force: true });
}
