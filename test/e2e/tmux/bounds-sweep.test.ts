import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sweepTempFiles } from '../../../src/fs/sweep-temp.js';
import { REPO, PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { hasTmux, TmuxSession } from '../../helpers/tmux.js';

// Issue 8 item 7: temp files of interrupted atomic writes are swept at start — only
// checkroom's own name pattern, only when the writer is gone or the file is older than any
// write takes — and the operator is told what was swept.

const CLI = join(REPO, 'dist/src/cli.js');
const cli = (args: string[]) => spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, input: '' });

/** The pid of a process that has exited (its number is free; reuse within a test is not a concern). */
const deadPid = (): number => {
  const r = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
};

describe('temp-file sweep', () => {
  it("removes only checkroom's own temp files whose writer is gone or that are stale; says why", async () => {
    const root = tempDir();
    mkdirSync(join(root, 'drafts'));
    const dead = deadPid();
    const sleeper = spawn('sleep', ['30']);
    try {
      const live = sleeper.pid!;
      const files = {
        dead: `drafts/.ch01-draft.md.${dead}.0a1b2c3d.tmp`,
        liveYoung: `drafts/.ch02-draft.md.${live}.0a1b2c3d.tmp`,
        liveOld: `drafts/.ch03-draft.md.${live}.deadbeef.tmp`,
        notOurs1: 'drafts/.ch04-draft.md.tmp',
        notOurs2: `drafts/ch05-draft.md.${dead}.0a1b2c3d.tmp`,
        notOurs3: `drafts/.ch06-draft.md.${dead}.XYZ12345.tmp`,
      };
      for (const f of Object.values(files)) writeFileSync(join(root, f), 'partial');
      // An hour before the file system's own now (its clock stamped the files just written).
      const old = (statSync(join(root, files.liveYoung)).mtimeMs - 60 * 60 * 1000) / 1000;
      utimesSync(join(root, files.liveOld), old, old);
      // A symlink with our name pattern is not a temp file we wrote: never followed, never removed.
      symlinkSync('/etc/passwd', join(root, `drafts/.x.md.${dead}.00000000.tmp`));
      const r = await sweepTempFiles(root, [join(root, 'drafts')]);
      expect(r.failed).toEqual([]);
      expect(r.swept.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
        { path: files.dead, why: `writer pid ${dead} is gone` },
        { path: files.liveOld, why: '60 min old' },
      ]);
      const left = readdirSync(join(root, 'drafts')).sort();
      expect(left).toEqual([`.ch02-draft.md.${live}.0a1b2c3d.tmp`, '.ch04-draft.md.tmp', `.ch06-draft.md.${dead}.XYZ12345.tmp`, `.x.md.${dead}.00000000.tmp`, `ch05-draft.md.${dead}.0a1b2c3d.tmp`].sort());
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('checkroom resume --write sweeps and says so; a --dry-run recover deletes nothing', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'checkroom.yaml': 'units: { list: [ch01] }\n' });
    mkdirSync(join(root, 'drafts'));
    const dead = deadPid();
    const tmp = `drafts/.ch01-draft.md.${dead}.0a1b2c3d.tmp`;
    writeFileSync(join(root, tmp), 'half');
    const dry = cli(['recover', root, '--dry-run']);
    expect(dry.status).toBe(0);
    expect(existsSync(join(root, tmp))).toBe(true);
    expect(dry.stdout).not.toContain('swept');
    const r = cli(['resume', root, '--write']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`swept 1 leftover temp file of interrupted writes: ${tmp} (writer pid ${dead} is gone)`);
    expect(existsSync(join(root, tmp))).toBe(false);
  });
});

describe.skipIf(!hasTmux())('temp-file sweep in the control room (tmux 80x24)', () => {
  it('a driving control room sweeps at start and says what it swept; --readonly deletes nothing', { timeout: 60_000 }, async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'checkroom.yaml': 'units: { list: [ch01] }\n' });
    mkdirSync(join(root, 'drafts'));
    const tmp = `drafts/.ch01-draft.md.${deadPid()}.0a1b2c3d.tmp`;
    writeFileSync(join(root, tmp), 'half');
    const bin = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);
    const ro = new TmuxSession(`sh -c 'node ${bin} --readonly ${root}; sleep 600'`);
    try {
      await ro.waitFor(/READ-ONLY/);
      expect(existsSync(join(root, tmp))).toBe(true);
    } finally {
      ro.kill();
    }
    const t = new TmuxSession(`sh -c 'node ${bin} ${root}; sleep 600'`, { cols: 200 });
    try {
      await t.waitFor('swept 1 leftover temp file of interrupted writes: drafts/.ch01-draft.md.');
      expect(existsSync(join(root, tmp))).toBe(false);
    } finally {
      t.kill();
    }
  });
});
