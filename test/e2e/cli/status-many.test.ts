import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyDemo, tempDir } from '../../helpers/workspace.js';
import { CLI } from '../../helpers/tmux.js';

// docs/many.md through the built binary: `status --json DIR1 DIR2` is an array (one dir: the
// document as before), the overview printed once when stdout is not a terminal, and a bad
// --workspaces line named by its number.

const cr = (args: string[], env: Record<string, string> = {}) => spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, CHECKROOM_SOCKET: 'off', ...env } });

describe('checkroom status --json DIR1 DIR2', () => {
  it('an array, one document per workspace, each the single-dir document', () => {
    const [a, b] = [copyDemo(), copyDemo()];
    const one = cr(['status', '--json', a]);
    expect(one.status).toBe(0);
    const single = JSON.parse(one.stdout) as { workspace: string; counts: unknown };
    expect(Array.isArray(single)).toBe(false);
    const many = cr(['status', '--json', a, b]);
    expect(many.status).toBe(0);
    const docs = JSON.parse(many.stdout) as { workspace: string; counts: unknown; name: string }[];
    expect(docs.map((d) => d.workspace)).toEqual([a, b]);
    expect(docs[0]!.counts).toEqual(single.counts);
    const pretty = cr(['status', '--json=pretty', a, b]);
    expect((JSON.parse(pretty.stdout) as unknown[]).length).toBe(2);
  });

  it('a directory that is not a workspace: an error in its place, the others kept, exit 1', () => {
    const a = copyDemo();
    const missing = join(tempDir(), 'nope');
    const r = cr(['status', '--json', missing, a]);
    expect(r.status).toBe(1);
    const docs = JSON.parse(r.stdout) as { workspace: string; error?: string; counts?: unknown }[];
    expect(docs[0]).toEqual({ version: 1, workspace: missing, error: expect.stringMatching(/no such directory/) });
    expect(docs[1]!.counts).toBeDefined();
  });
});

describe('checkroom DIR1 DIR2 without a terminal', () => {
  it('prints the overview once, most urgent first, a broken workspace as an error', () => {
    const a = copyDemo();
    const missing = join(tempDir(), 'nope');
    const r = cr([a, missing], { COLUMNS: '100' });
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('checkroom overview · 2 workspaces on 1 host · 1 needs you · 1 failing');
    expect(lines[2]).toMatch(/^NEEDS YOU .* local +P3 B1 +29\/100/);
    expect(lines[4]).toMatch(/^FAILING .* local +error: /);
    expect(lines[5]).toMatch(/nope: no such directory/);
  });

  it('--json on the overview points to status --json, exit 2', () => {
    const r = cr(['--json', copyDemo(), copyDemo()]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('`checkroom status --json DIR1 DIR2` prints every workspace');
  });

  it('--workspaces FILE: a bad line is refused with its number, exit 2', () => {
    const d = tempDir();
    writeFileSync(join(d, 'ws.txt'), `# books\n${copyDemo()}\nssh://-oProxyCommand=touch%20/tmp/x/dir\n`);
    const r = cr(['--workspaces', join(d, 'ws.txt')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/ws\.txt:3: .*not a host name/);
  });
});
