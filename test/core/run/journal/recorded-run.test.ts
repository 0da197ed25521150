import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { leaderOf, tagOf, tokenOf } from '../../../../src/run/journal/recorded-run.js';
import { procStartTime } from '../../../../src/run/process/proc.js';
import { tempDir } from '../../../helpers/workspace.js';

// Issue 16 item 4: how a restart finds a recorded run's processes. The group is used only
// while provably the run's; the token always; a malformed journal token is never matched.

const run = { pid: 4242, procStart: 100, logPath: '/nonexistent/run.log' };

describe('recorded runs (restart after kill -9)', () => {
  it('uses the group only when the leader is ours or gone, the token always', () => {
    expect(tagOf(run, 'ours', 't.1')).toEqual({ pgid: 4242, procStart: 100, token: 't.1', pipes: [] });
    expect(tagOf(run, 'gone', 't.1')?.pgid).toBe(4242);
    expect(tagOf(run, 'foreign', 't.1')).toEqual({ pgid: null, procStart: 100, token: 't.1', pipes: [] });
    expect(tagOf(run, 'unproven', 't.1')?.pgid).toBeNull();
    // Nothing provable: no tag, nothing is signalled.
    expect(tagOf(run, 'foreign', null)).toBeNull();
    expect(tagOf({ ...run, pid: null }, 'gone', null)).toBeNull();
  });

  it('takes a well-formed journal token, else the log header; never an empty or odd one', () => {
    const dir = tempDir('checkroom-recorded-');
    const log = join(dir, 'run.log');
    writeFileSync(log, '[checkroom] start 2026-01-01T00:00:00.000Z run=r pid=1 procStart=1 token=r.abc123 cwd="/" argv=["sh"]\n');
    expect(tokenOf({ ...run, token: 'r.fromjournal', logPath: log })).toBe('r.fromjournal');
    for (const bad of ['', 'a=b', 'x\0y', 'with space', 42, null]) expect(tokenOf({ ...run, token: bad, logPath: log })).toBe('r.abc123');
    expect(tokenOf({ ...run, token: '' })).toBeNull();
  });

  it('tells the recorded leader by pid and start time', async () => {
    const c = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((r) => c.once('spawn', r));
      const start = procStartTime(c.pid!)!;
      expect(leaderOf(c.pid!, start)).toBe('ours');
      expect(leaderOf(c.pid!, start - 1)).toBe('foreign');
      expect(leaderOf(c.pid!, null)).toBe('unproven');
      expect(leaderOf(null, start)).toBe('gone');
    } finally {
      c.kill('SIGKILL');
    }
    await new Promise((r) => c.once('exit', r));
    expect(leaderOf(c.pid!, procStartTime(c.pid!) ?? 1)).toBe('gone');
  });
});
