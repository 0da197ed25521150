import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { copyDemo, REPO } from '../helpers/workspace.js';
import { HOUR, MIN, recordedPast, writeJournal } from '../helpers/history-journal.js';

// `checkroom history` and `checkroom digest` through the built binary, on a copy of the demo
// with a recorded past (docs/history.md).

const BIN = join(REPO, 'dist/bundle/checkroom.js');
const run = (args: string[]) => spawnSync('node', [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', TZ: 'UTC' }, input: '' });

function recorded(): string {
  const root = copyDemo();
  writeJournal(root, recordedPast(Date.now()));
  return root;
}

describe('checkroom history', () => {
  it('lists runs with class, duration and cost, escalations, decisions and sessions', () => {
    const root = recorded();
    const r = run(['history', root]);
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.find((l) => l.includes('ch01/draft') && l.includes('#2'))).toMatch(/run\s+#2 writer SUCCESS 8 m 00 s \$1\.50 1\.5k tok waited 2 m 00 s$/);
    expect(r.stdout).toContain('escalated as PERMISSION: PERMISSION: the key was refused');
    expect(r.stdout).toContain('operator: reset the cell');
    expect(r.stdout).toContain('session ended (pid 11, quit)');
    expect(r.stdout).toContain('11 of 11 rows');
  });

  it('--since and --cell narrow it; --json is versioned and carries each run', () => {
    const root = recorded();
    const since = run(['history', root, '--since', '1h']);
    expect(since.stdout).toContain('1 of 11 rows');
    const j = run(['history', root, '--cell', 'ch01/draft', '--json']);
    expect(j.status).toBe(0);
    const doc = JSON.parse(j.stdout) as {
      version: number;
      cell: string;
      rows: { kind: string; run: { attempt: number; durationMs: number; class: string; costUsd: number | null; waitMs: number | null; logPath: string } }[];
    };
    expect(doc.version).toBe(1);
    expect(doc.cell).toBe('ch01/draft');
    expect(doc.rows.map((r) => [r.run.attempt, r.run.class, r.run.durationMs, r.run.costUsd, r.run.waitMs])).toEqual([
      [1, 'UNKNOWN', 9 * MIN, null, null],
      [2, 'SUCCESS', 8 * MIN, 1.5, 2 * MIN],
    ]);
    expect(doc.rows[1].run.logPath).toBe('.checkroom/runs/ch01-draft-2.log');
  });

  it('a moment it cannot read is a usage error that says what to give', () => {
    const r = run(['history', recorded(), '--since', 'yesterday']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('give a duration back (2h, 30m, 1h30m), a time of day (14:05)');
  });

  it('escapes what the journal holds: a control character in a reason never reaches the terminal raw', () => {
    const root = copyDemo();
    writeJournal(root, [{ type: 'escalate', at: Date.now() - HOUR, unit: 'ch01', step: 'draft', class: 'PERMISSION', reason: 'bad \u001b]0;pwned\u0007 key' }]);
    const r = run(['history', root]);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('bad');
    const j = run(['history', root, '--json']);
    expect(j.stdout).not.toContain('\u001b');
    expect(JSON.parse(j.stdout).rows[0].text).toContain('\u001b]0;pwned');
  });
});

describe('checkroom digest', () => {
  it('since the last session ended: what ran, what was done and spent, what needs you first', () => {
    const r = run(['digest', recorded()]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^since the last session ended \(.*\): 1 launch, 1 done, 0 failed, 0 escalated, \$0\.75 spent$/);
    expect(lines[1]).toBe('  done: ch02/research');
    expect(lines.at(-1)).toMatch(/^ {2}needs you first: /);
  });

  it('--since 3h --json counts the whole recorded past', () => {
    const r = run(['digest', recorded(), '--since', '3h', '--json']);
    const d = JSON.parse(r.stdout) as { launches: number; done: string[]; failed: unknown[]; escalated: { key: string }[]; spentUsd: number };
    expect([d.launches, d.done.length, d.failed.length, d.escalated.map((e) => e.key), d.spentUsd]).toEqual([5, 3, 2, ['ch02/research'], 2.5]);
  });
});
