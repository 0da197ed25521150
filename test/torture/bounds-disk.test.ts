import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic, WriteError } from '../../src/fs/atomic-write.js';
import { runAsNobody } from '../helpers/nobody.js';
import { REPO, PHASE_1_2, summaries, tempDir, writeFiles, marked, prose } from '../helpers/workspace.js';

// Issue 8 item 9: a full disk (a 1 MB tmpfs), a read-only file system, permission denied,
// and a workspace spanning two file systems. Each ends in a clear error (or works) and loses
// nothing: the files hold what they held, no truncated backup, no temp file left behind.
// Mounting needs root; CI runs as root, elsewhere these skip with the reason.

const ROOT = process.getuid?.() === 0;
const why = 'needs root (mount -t tmpfs); CI runs as root';
const CLI = join(REPO, 'dist/src/cli.js');
const cli = (args: string[]) => spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, input: '' });

const mounts: string[] = [];
afterEach(() => {
  for (const m of mounts.splice(0).reverse()) spawnSync('umount', ['-l', m]);
});

const tmpfs = (dir: string, size: string): void => {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  mounts.push(dir);
};

const book = (root: string): void =>
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries(['ch01']),
    'checkroom.yaml': 'units: { list: [ch01] }\n',
    'checkpoint.md': '# Book — checkpoint\n\nLast updated: 2026-11-28 14:03\n\n| Chapter | Research |\n|---|---|\n| ch01 | ⏳ |\n',
    'research/ch01-research.md': marked(`# ch01\n\n${prose(400)}`, 'RESEARCH_COMPLETE'),
  });

/** Every file under `dir` with its bytes, to compare before and after. */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else if (!e.name.startsWith('filler')) out[`${rel}${e.name}`] = readFileSync(join(d, e.name), 'latin1');
    }
  };
  walk(dir, '');
  return out;
};

/** Fill the file system until a write fails: what is left is less than a page. */
const fill = (dir: string): void => {
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(dir, `filler${i}`), Buffer.alloc(i === 0 ? 256 * 1024 : 4096));
    } catch {
      return;
    }
  }
};

describe.skipIf(!ROOT)(`torture: full disk, read-only, permissions, two file systems (${ROOT ? 'root' : why})`, { timeout: 120_000 }, () => {
  it('a full disk: checkpoint --write and resume --write fail clearly and change nothing', () => {
    const root = join(tempDir(), 'ws');
    tmpfs(root, '1m');
    book(root);
    // A RESUME.md to back up, so the backup copy meets the full disk too.
    writeFileSync(join(root, 'RESUME.md'), `# RESUME\n\n${'r'.repeat(20_000)}\n`);
    fill(root);
    const before = snapshot(root);
    for (const args of [['checkpoint', root, '--write'], ['resume', root, '--write']]) {
      const r = cli(args);
      expect(r.status, `${args[0]}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/the disk is full; free some space and try again/);
      expect(snapshot(root)).toEqual(before);
    }
  });

  it('writeFileAtomic on a full disk: a WriteError that says so; the old file intact, no temp file', async () => {
    const root = join(tempDir(), 'ws');
    tmpfs(root, '1m');
    writeFileSync(join(root, 'a.md'), 'old');
    fill(root);
    const err = await writeFileAtomic(join(root, 'a.md'), 'n'.repeat(512 * 1024), [root]).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(WriteError);
    expect((err as WriteError).message).toContain('the disk is full');
    expect(readFileSync(join(root, 'a.md'), 'utf8')).toBe('old');
    expect(readdirSync(root).filter((n) => !n.startsWith('filler'))).toEqual(['a.md']);
  });

  it('a read-only file system: backups --restore and checkpoint --write say so and change nothing', () => {
    const root = join(tempDir(), 'ws');
    tmpfs(root, '4m');
    book(root);
    writeFileSync(join(root, 'research/ch01-research.md.bak.20261128-140300'), 'older research\n');
    execFileSync('mount', ['-o', 'remount,ro', root]);
    const before = snapshot(root);
    const restore = cli(['backups', root, 'research/ch01-research.md', '--restore', 'ch01-research.md.bak.20261128-140300']);
    expect(restore.status).toBe(1);
    expect(`${restore.stdout}${restore.stderr}`).toContain('the file system is read-only');
    const cp = cli(['checkpoint', root, '--write']);
    expect(cp.status).toBe(1);
    expect(cp.stderr).toContain('the file system is read-only');
    expect(snapshot(root)).toEqual(before);
  });

  it('permission denied (as nobody): checkpoint --write says so and changes nothing', () => {
    const root = tempDir();
    book(root);
    chmodSync(root, 0o755);
    const before = snapshot(root);
    const r = runAsNobody(['node', CLI, 'checkpoint', root, '--write'], { NO_COLOR: '1' });
    if (r === null) return; // no runuser: nothing can be proved here
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('permission denied');
    expect(snapshot(root)).toEqual(before);
  });

  it('a step directory on another file system (EXDEV ground): back up and restore keep every version', () => {
    const root = tempDir();
    book(root);
    tmpfs(join(root, 'drafts'), '4m');
    writeFileSync(join(root, 'drafts/ch01-draft.md'), 'current draft\n');
    writeFileSync(join(root, 'drafts/ch01-draft.md.bak.20261128-140300'), 'older draft\n');
    const r = cli(['backups', root, 'drafts/ch01-draft.md', '--restore', 'ch01-draft.md.bak.20261128-140300']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(join(root, 'drafts/ch01-draft.md'), 'utf8')).toBe('older draft\n');
    const versions = readdirSync(join(root, 'drafts')).map((n) => readFileSync(join(root, 'drafts', n), 'utf8')).sort();
    expect(versions).toEqual(['current draft\n', 'older draft\n', 'older draft\n']);
  });
});
