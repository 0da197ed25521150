import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, tempDir } from '../helpers/workspace.js';
import { EVIL, evilWorkspace, RAW } from './evil-workspace.js';

// Issue 8 item 9, escape injection: workspace text and agent output carrying terminal
// controls (CSI, OSC title and clipboard, CR overwrites, backspace, bell, C1 CSI, bidi
// overrides) through file names, file contents, the journal and agent output, into every
// CLI path. Nothing raw may come out, on stdout or stderr, in text or --json.

const CLI = join(REPO, 'dist/src/cli.js');
const cli = (args: string[]) => {
  const r = spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '200' }, input: '' });
  return { code: r.status, all: `${r.stdout}${r.stderr}`, out: r.stdout };
};

const clean = (what: string, r: { code: number | null; all: string }) => {
  const m = RAW.exec(r.all);
  expect(m ? `${what}: raw U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${m.index}: ${JSON.stringify(r.all.slice(Math.max(0, m.index - 40), m.index + 10))}` : `${what}: clean`).toBe(`${what}: clean`);
};

describe('torture: escape injection through every CLI path', () => {
  it('status, plan, partials, checkpoint, resume, recover, backups, run: text and --json', { timeout: 240_000 }, () => {
    const { root, unit } = evilWorkspace();
    const runs: [string, string[]][] = [
      ['status', ['status', root]],
      ['status --json', ['status', root, '--json']],
      ['ui (not a terminal)', [root]],
      ['plan', ['plan', root]],
      ['plan --json', ['plan', root, '--json']],
      ['partials', ['partials', root]],
      ['partials --json', ['partials', root, '--json']],
      ['checkpoint', ['checkpoint', root]],
      ['resume', ['resume', root]],
      ['recover --dry-run', ['recover', root, '--dry-run']],
      ['recover --dry-run --json', ['recover', root, '--dry-run', '--json']],
      ['backups', ['backups', root, `research/${unit}-research.md`]],
      ['backups --json', ['backups', root, `research/${unit}-research.md`, '--json']],
      ['run', ['run', root, unit, 'research', '--yes', '--force']],
      ['backups --restore', ['backups', root, `research/${unit}-research.md`, '--restore', `${unit}-research.md.bak.20261128-140300`]],
      ['checkpoint --write', ['checkpoint', root, '--write']],
      ['resume --write', ['resume', root, '--write']],
      ['recover', ['recover', root]],
      ['bad usage', ['status', root, `--${EVIL}`]],
      ['unknown unit', ['run', root, `ch9${EVIL}`, 'research']],
      ['unknown step', ['run', root, 'ch01', `x${EVIL}`]],
      ['no workspace', ['status', join(root, EVIL)]],
    ];
    for (const [what, args] of runs) {
      const r = cli(args);
      expect(r.code === 0 || r.code === 1 || r.code === 2, `${what} exited ${r.code}: ${r.all.slice(0, 300)}`).toBe(true);
      clean(what, r);
    }
    // The runs above really went through the dangerous paths: the agent ran and the restore worked.
    expect(readdirSync(join(root, 'research')).filter((n) => n.startsWith(`${unit}-research.md.bak.`)).length).toBeGreaterThanOrEqual(2);
  });

  it('a bad config quoting control characters is escaped on stderr', () => {
    const root = tempDir();
    writeFileSync(join(root, 'checkroom.yaml'), `steps:\n  - id: ${JSON.stringify(`d${EVIL}`)}\n    dependson: [x]\n`);
    const r = cli(['status', root]);
    expect(r.code).toBe(2);
    clean('config error', r);
  });
});
