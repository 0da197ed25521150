import { describe, expect, it } from 'vitest';
import { statusManyCommand } from '../../src/cli/commands/status-many.js';
import { overviewSettings } from '../../src/many/read-status.js';

// docs/many.md: the array `status --json DIR1 DIR2` writes around the single documents, and
// the overview's settings from the environment.

describe('statusManyCommand', () => {
  it('one document after the other in an array; a failing one is an error object in its place, exit 1', async () => {
    let text = '';
    const code = await statusManyCommand(['/a', '/b\u001b[2J', '/c'], { write: (s) => (text += s) }, async (dir) => {
      if (dir !== '/a' && dir !== '/c') throw new Error(`${dir}: no such directory`);
      text += JSON.stringify({ workspace: dir }) + '\n';
    });
    expect(code).toBe(1);
    const docs = JSON.parse(text) as { workspace: string; error?: string }[];
    expect(docs.map((d) => d.workspace)).toEqual(['/a', '/b\u001b[2J', '/c']);
    expect(docs[1]!.error).toBe('/b\u001b[2J: no such directory');
    // The escape reaches stdout as JSON's \u001b, never raw.
    expect(text).not.toContain('\u001b');
  });

  it('all well: exit 0', async () => {
    let text = '';
    expect(await statusManyCommand(['/a', '/b'], { write: (s) => (text += s) }, async (d) => void (text += `{"w":"${d}"}`))).toBe(0);
    expect(JSON.parse(text)).toEqual([{ w: '/a' }, { w: '/b' }]);
  });
});

describe('overviewSettings', () => {
  it('defaults: checkroom on the remote, remote every 5 s, local every 10 s and 2 s apart at least', () => {
    const s = overviewSettings({}, '/bin/cr.js');
    expect(s.read).toMatchObject({ bin: '/bin/cr.js', ssh: { remote: [], config: null } });
    expect(s.poll).toEqual({ localMs: 10_000, remoteMs: 5000, gapMs: 2000 });
  });

  it('the remote checkroom as words, an ssh_config, a shorter interval; a nonsense interval is ignored', () => {
    const s = overviewSettings({ CHECKROOM_REMOTE_CHECKROOM: ' env  PATH=/n/bin /cr.js ', CHECKROOM_SSH_CONFIG: '/k/cfg', CHECKROOM_OVERVIEW_POLL_MS: '1000' }, 'b');
    expect(s.read.ssh).toMatchObject({ remote: ['env', 'PATH=/n/bin', '/cr.js'], config: '/k/cfg' });
    expect(s.poll).toEqual({ localMs: 2000, remoteMs: 1000, gapMs: 1000 });
    expect(overviewSettings({ CHECKROOM_OVERVIEW_POLL_MS: 'soon' }, 'b').poll.remoteMs).toBe(5000);
    expect(overviewSettings({ CHECKROOM_OVERVIEW_POLL_MS: '5' }, 'b').poll.remoteMs).toBe(5000);
  });
});
