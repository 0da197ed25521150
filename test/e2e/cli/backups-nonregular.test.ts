import { spawnSync, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diffBackup, listBackups, restoreBackup, scanBackups } from '../../../src/backups/backups.js';
import { REPO, tempDir } from '../../helpers/workspace.js';

// Names that look like backups but are not regular files (reviewer's bug 1), and backups
// no line diff can describe (bug 2). Real files in temp dirs: a symlink to a secret outside
// the workspace, a FIFO (which would block any reader), a directory, a sparse 67 MB file and
// binary bytes. Nothing outside the workspace may be read or written.

const CLI = join(REPO, 'dist/src/cli.js');
const FILE = 'drafts/ch03-draft.md';
const CURRENT = '# 第三章\n\n正文第一段。\n\n<!-- DRAFT_COMPLETE -->\n';
const SECRET = 'TOP-SECRET-OUTSIDE-THE-WORKSPACE';
const at = new Date(2026, 10, 28, 14, 3, 12);

let ws: string;
let outside: string;

beforeEach(() => {
  ws = tempDir('checkroom-bak-nonreg-');
  outside = tempDir('checkroom-outside-');
  mkdirSync(join(ws, 'drafts'));
  writeFileSync(join(ws, 'checkroom.yaml'), 'steps: []\n');
  writeFileSync(join(ws, FILE), CURRENT);
  writeFileSync(join(outside, 'secret'), `${SECRET}\n`);
  execFileSync('mkfifo', [join(outside, 'pipe')]);
});
afterEach(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const bak = (stamp: string) => `${FILE}.bak.${stamp}`;
const abs = (rel: string) => join(ws, rel);

/** Names, sizes, mtimes and contents of everything outside: must not change. */
const snapshotOutside = () =>
  readdirSync(outside)
    .sort()
    .map((f) => {
      const st = lstatSync(join(outside, f));
      return [f, st.mode, st.size, st.mtimeMs, st.isFile() ? readFileSync(join(outside, f), 'utf8') : null];
    });

/** Every regular file of the workspace, to check the secret never landed in one. */
const workspaceText = (dir = ws): string =>
  readdirSync(dir, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? workspaceText(join(dir, e.name)) : e.isFile() ? readFileSync(join(dir, e.name), 'utf8') : ''))
    .join('\n');

// A safety timeout only (a hang fails the test instead of stalling the run), never a threshold.
const run = (...args: string[]) => spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, input: '', timeout: 60_000 });

/** The four impostors, each named like a backup of FILE. */
function plantImpostors() {
  symlinkSync(join(outside, 'secret'), abs(bak('20260105-000000')));
  symlinkSync(join(outside, 'pipe'), abs(bak('20260105-000001')));
  execFileSync('mkfifo', [abs(bak('20260106-000000'))]);
  mkdirSync(abs(bak('20260107-000000')));
}

describe('only regular files are backups', () => {
  it('scanBackups lists regular files and names the rest as ignored, without reading them', async () => {
    plantImpostors();
    writeFileSync(abs(bak('20260108-000000')), 'a real backup\n');
    const before = snapshotOutside();
    const { backups, ignored } = await scanBackups(ws, FILE);
    expect(backups.map((b) => b.path)).toEqual([bak('20260108-000000')]);
    expect(ignored).toEqual([
      { path: bak('20260105-000000'), kind: 'a symbolic link' },
      { path: bak('20260105-000001'), kind: 'a symbolic link' },
      { path: bak('20260106-000000'), kind: 'a FIFO (named pipe)' },
      { path: bak('20260107-000000'), kind: 'a directory' },
    ]);
    expect(await listBackups(ws, FILE)).toEqual(backups);
    expect(snapshotOutside()).toEqual(before);
  });

  it('restoreBackup refuses a symlink, a FIFO and a directory with ENOTREG and changes nothing', async () => {
    plantImpostors();
    const before = snapshotOutside();
    const names = readdirSync(join(ws, 'drafts')).sort();
    for (const [stamp, kind] of [
      ['20260105-000000', 'a symbolic link'],
      ['20260105-000001', 'a symbolic link'],
      ['20260106-000000', 'a FIFO \\(named pipe\\)'],
      ['20260107-000000', 'a directory'],
    ]) {
      const err = await restoreBackup(ws, bak(stamp), at).then(
        () => { throw new Error(`${stamp} was restored`); },
        (e: unknown) => e as { code: string; message: string },
      );
      expect(err.code).toBe('ENOTREG');
      expect(err.message).toMatch(new RegExp(`cannot restore .*${stamp}: it is ${kind}, not a regular file; only regular files are backups \\(nothing was changed\\)`));
    }
    expect(readFileSync(abs(FILE), 'utf8')).toBe(CURRENT);
    expect(readdirSync(join(ws, 'drafts')).sort()).toEqual(names); // no staged copy, no new backup
    expect(snapshotOutside()).toEqual(before);
  });

  it('restoreBackup refuses to replace a current file that is a symlink, leaving its target alone', async () => {
    rmSync(abs(FILE));
    symlinkSync(join(outside, 'secret'), abs(FILE));
    writeFileSync(abs(bak('20260108-000000')), 'a real backup\n');
    const before = snapshotOutside();
    await expect(restoreBackup(ws, bak('20260108-000000'), at)).rejects.toMatchObject({ code: 'ENOTREG', message: expect.stringMatching(/ch03-draft\.md is a symbolic link, not a regular file; move it away first/) });
    expect(lstatSync(abs(FILE)).isSymbolicLink()).toBe(true);
    expect(snapshotOutside()).toEqual(before);
    const d = await diffBackup(ws, bak('20260108-000000'), FILE);
    expect(d).toMatchObject({ kind: 'not_regular', identical: false, summary: true });
    expect(d.hunks.join('\n')).not.toContain(SECRET);
  });

  it('restores a regular backup byte for byte, keeping its mode, and never a directory entry it did not make', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17); // more than one copy chunk
    writeFileSync(abs(bak('20260108-000000')), bytes, { mode: 0o640 });
    const r = await restoreBackup(ws, bak('20260108-000000'), at);
    expect(r).toEqual({ restored: FILE, currentBackedUpTo: bak('20261128-140312') });
    expect(readFileSync(abs(FILE)).equals(bytes)).toBe(true);
    expect(statSync(abs(FILE)).mode & 0o777).toBe(0o640);
    expect(readFileSync(abs(bak('20261128-140312')), 'utf8')).toBe(CURRENT);
    expect(readdirSync(join(ws, 'drafts')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('diffs that are not line diffs', () => {
  it('a sparse 67 MB backup is too large: not read, no line counts', async () => {
    writeFileSync(abs(bak('20260108-000000')), '');
    truncateSync(abs(bak('20260108-000000')), 67 * 1024 * 1024);
    const d = await diffBackup(ws, bak('20260108-000000'), FILE);
    expect(d).toMatchObject({ kind: 'too_large', identical: false, summary: true });
    expect(d.hunks).toEqual([`too large to diff here (${67 * 1024 * 1024} vs ${Buffer.byteLength(CURRENT)} bytes); compare them in an editor`]);
  });

  it('a backup or current file with NUL bytes is binary, not diffed; equal binaries are identical', async () => {
    const bin = randomBytes(100_000);
    bin[500] = 0;
    writeFileSync(abs(bak('20260108-000000')), bin);
    const d = await diffBackup(ws, bak('20260108-000000'), FILE);
    expect(d).toMatchObject({ kind: 'binary', identical: false, summary: true });
    expect(d.hunks).toEqual([`binary, not diffed (the backup contains NUL bytes; 100000 vs ${Buffer.byteLength(CURRENT)} bytes)`]);
    writeFileSync(abs(FILE), bin);
    expect(await diffBackup(ws, bak('20260108-000000'), FILE)).toMatchObject({ kind: 'identical', identical: true, hunks: [] });
    writeFileSync(abs(bak('20260109-000000')), CURRENT);
    expect((await diffBackup(ws, bak('20260109-000000'), FILE)).hunks[0]).toMatch(/^binary, not diffed \(the current file contains NUL bytes/);
  });

  it('text diffs say their kind', async () => {
    writeFileSync(abs(bak('20260108-000000')), CURRENT.replace('第一段', '第二段'));
    expect(await diffBackup(ws, bak('20260108-000000'), FILE)).toMatchObject({ kind: 'lines', added: 1, removed: 1 });
  });
});

describe('checkroom backups (the CLI)', () => {
  it('lists regular backups with honest diff figures and the impostors as ignored, in text and JSON', () => {
    plantImpostors();
    writeFileSync(abs(bak('20260108-000000')), '');
    truncateSync(abs(bak('20260108-000000')), 67 * 1024 * 1024);
    const bin = randomBytes(100_000);
    bin[0] = 0;
    writeFileSync(abs(bak('20260109-000000')), bin);
    writeFileSync(abs(bak('20260110-000000')), CURRENT.replace('第一段', '第二段'));
    const before = snapshotOutside();

    const text = run('backups', ws, FILE);
    expect(text.status).toBe(0);
    expect(text.stdout).not.toContain(SECRET);
    const line = (stamp: string) => text.stdout.split('\n').find((l) => l.includes(stamp)) ?? '';
    expect(line('20260108-000000')).toMatch(/too large to diff$/);
    expect(line('20260109-000000')).toMatch(/binary, not diffed$/);
    expect(line('20260110-000000')).toMatch(/vs current: \+1 -1/); // cut to 80 columns
    expect(text.stdout).not.toMatch(/\+0 -0/);
    expect(line('20260105-000000')).toBe('  ignored ch03-draft.md.bak.20260105-000000: a symbolic link, not a regular file');
    expect(line('20260106-000000')).toMatch(/ignored ch03-draft\.md\.bak\.20260106-000000: a FIFO/);
    expect(line('20260107-000000')).toMatch(/ignored ch03-draft\.md\.bak\.20260107-000000: a directory/);

    const json = run('backups', ws, FILE, '--json');
    expect(json.status).toBe(0);
    const out = JSON.parse(json.stdout) as { backups: { path: string; diff: unknown }[]; ignored: { path: string; kind: string }[] };
    const diffOf = (stamp: string) => out.backups.find((b) => b.path === bak(stamp))?.diff;
    expect(diffOf('20260108-000000')).toEqual({ identical: false, added: null, removed: null, kind: 'too_large', note: expect.stringMatching(/^too large to diff here/) });
    expect(diffOf('20260109-000000')).toEqual({ identical: false, added: null, removed: null, kind: 'binary', note: expect.stringMatching(/^binary, not diffed/) });
    expect(diffOf('20260110-000000')).toEqual({ identical: false, added: 1, removed: 1, kind: 'lines' });
    expect(out.backups).toHaveLength(3);
    expect(out.ignored.map((g) => g.kind)).toEqual(['a symbolic link', 'a symbolic link', 'a FIFO (named pipe)', 'a directory']);
    expect(snapshotOutside()).toEqual(before);
  });

  it('--restore of a symlink, a FIFO or a directory is refused with exit 2, promptly, touching nothing', () => {
    plantImpostors();
    const before = snapshotOutside();
    const names = readdirSync(join(ws, 'drafts')).sort();
    for (const stamp of ['20260105-000000', '20260105-000001', '20260106-000000', '20260107-000000']) {
      const r = run('backups', ws, FILE, '--restore', `ch03-draft.md.bak.${stamp}`);
      expect(r.signal).toBeNull(); // not killed by the safety timeout: it did not hang
      expect(r.status).toBe(2);
      expect(r.stdout + r.stderr).toMatch(/not a regular file; only regular files are backups \(nothing was changed\)/);
      expect(r.stdout + r.stderr).not.toMatch(/EISDIR|copyfile/);
    }
    expect(readFileSync(abs(FILE), 'utf8')).toBe(CURRENT);
    expect(readdirSync(join(ws, 'drafts')).sort()).toEqual(names);
    expect(workspaceText()).not.toContain(SECRET);
    expect(snapshotOutside()).toEqual(before);
  });
});
