import { mkdtemp, mkdir, readFile, readdir, rm, writeFile, utimes } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackupError, backupFile, copyBackup, diffBackup, diffLines, listBackups, restoreBackup, undoBackup } from '../../../src/backups/backups.js';
import { formatStamp, parseStamp } from '../../../src/backups/stamp.js';

let root: string;
const at = new Date(2026, 10, 28, 14, 3, 12); // local time 2026-11-28 14:03:12
const put = async (rel: string, text: string) => {
  await mkdir(join(root, rel, '..'), { recursive: true });
  await writeFile(join(root, rel), text);
};
const read = (rel: string) => readFile(join(root, rel), 'utf8');

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'checkroom-bak-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('stamps', () => {
  it('formats local time and parses it back, with collision counters and epoch variants', () => {
    expect(formatStamp(at)).toBe('20261128-140312');
    expect(parseStamp('20261128-140312')).toEqual({ raw: '20261128-140312', ms: at.getTime(), seq: 0 });
    expect(parseStamp('20261128-140312-2')?.seq).toBe(2);
    expect(parseStamp('1764400000')?.ms).toBe(1764400000_000);
    expect(parseStamp('1764400000123')?.ms).toBe(1764400000123);
    expect(parseStamp('old')).toBeNull();
  });
});

describe('backupFile', () => {
  it('moves the file to rel.bak.<stamp> and keeps both backups made in the same second', async () => {
    await put('drafts/ch03-draft.md', 'first\n');
    const one = await backupFile(root, 'drafts/ch03-draft.md', at);
    expect(one.backup).toBe('drafts/ch03-draft.md.bak.20261128-140312');
    await put('drafts/ch03-draft.md', 'second\n');
    const two = await backupFile(root, 'drafts/ch03-draft.md', at);
    expect(two.backup).toBe('drafts/ch03-draft.md.bak.20261128-140312-1');
    await put('drafts/ch03-draft.md', 'third\n');
    const three = await backupFile(root, 'drafts/ch03-draft.md', at);
    expect(three.backup).toBe('drafts/ch03-draft.md.bak.20261128-140312-2');
    expect(await read(one.backup)).toBe('first\n');
    expect(await read(two.backup)).toBe('second\n');
    expect(await read(three.backup)).toBe('third\n');
    expect((await readdir(join(root, 'drafts'))).includes('ch03-draft.md')).toBe(false);
  });

  it('says what to do when the file is missing, and refuses paths outside the workspace', async () => {
    await expect(backupFile(root, 'nope.md', at)).rejects.toThrow(/nope\.md does not exist/);
    await expect(backupFile(root, '../escape.md', at)).rejects.toBeInstanceOf(BackupError);
  });

  it('copyBackup keeps the original and is a real copy (an in-place write does not change it)', async () => {
    await put('a.md', 'v1\n');
    const { backup } = await copyBackup(root, 'a.md', at);
    await writeFile(join(root, 'a.md'), 'v2\n');
    expect(await read(backup)).toBe('v1\n');
    expect(await read('a.md')).toBe('v2\n');
  });
});

describe('listBackups', () => {
  it('lists newest first, mixing checkroom stamps, counters and epoch variants', async () => {
    await put('a.md', 'x');
    await put('a.md.bak.20261128-140312', '1');
    await put('a.md.bak.20261128-140312-1', '22');
    await put('a.md.bak.1700000000', '333'); // 2023
    await put('a.md.bak.20270101-000000', '4444');
    await put('ab.md.bak.20261128-140312', 'not ours');
    const list = await listBackups(root, 'a.md');
    expect(list.map((b) => b.stamp)).toEqual(['20270101-000000', '20261128-140312-1', '20261128-140312', '1700000000']);
    expect(list.map((b) => b.bytes)).toEqual([4, 2, 1, 3]);
    expect(list[0].path).toBe('a.md.bak.20270101-000000');
  });

  it('returns nothing for a directory that does not exist', async () => {
    expect(await listBackups(root, 'missing/dir/a.md')).toEqual([]);
  });
});

describe('restoreBackup', () => {
  it('copies the backup back and first backs up the current file, keeping all versions', async () => {
    await put('r.md', 'old good\n');
    const { backup } = await backupFile(root, 'r.md', at);
    await put('r.md', 'new bad\n');
    const later = new Date(at.getTime() + 60_000);
    const res = await restoreBackup(root, backup, later);
    expect(res.restored).toBe('r.md');
    expect(res.currentBackedUpTo).toBe('r.md.bak.20261128-140412');
    expect(await read('r.md')).toBe('old good\n');
    expect(await read(backup)).toBe('old good\n'); // the backup is kept, never consumed
    expect(await read(res.currentBackedUpTo!)).toBe('new bad\n');
    // Restoring again in the same second does not overwrite the previous current backup.
    await writeFile(join(root, 'r.md'), 'newer\n');
    const again = await restoreBackup(root, backup, later);
    expect(again.currentBackedUpTo).toBe('r.md.bak.20261128-140412-1');
    expect(await read('r.md.bak.20261128-140412')).toBe('new bad\n');
    expect((await readdir(root)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('restores when the current file is gone, and rejects names that are not backups', async () => {
    await put('g.md', 'kept\n');
    const { backup } = await backupFile(root, 'g.md', at);
    expect(await restoreBackup(root, backup, at)).toEqual({ restored: 'g.md', currentBackedUpTo: null });
    expect(await read('g.md')).toBe('kept\n');
    await expect(restoreBackup(root, 'g.md', at)).rejects.toThrow(/not a backup name/);
  });
});

describe('undoBackup', () => {
  it('moves the backup back when the original name is free', async () => {
    await put('u.md', 'content\n');
    const { backup } = await backupFile(root, 'u.md', at);
    expect(await undoBackup(root, backup, 'u.md')).toEqual({ restored: 'u.md' });
    expect(await read('u.md')).toBe('content\n');
    expect(await listBackups(root, 'u.md')).toEqual([]);
  });

  it('refuses, saying why, when the original was written again', async () => {
    await put('u.md', 'content\n');
    const { backup } = await backupFile(root, 'u.md', at);
    await put('u.md', 'redo output\n');
    await expect(undoBackup(root, backup, 'u.md')).rejects.toThrow(/u\.md exists again.*back it up first, or use restore/);
    expect(await read('u.md')).toBe('redo output\n');
    expect(await read(backup)).toBe('content\n');
  });
});

describe('diff', () => {
  it('shows a unified-style line diff of a backup against the current file', async () => {
    const before = ['# Title', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'tail'].join('\n') + '\n';
    const after = ['# Title', 'a', 'B!', 'c', 'd', 'e', 'f', 'g', 'h', 'tail', 'new'].join('\n') + '\n';
    await put('d.md.bak.20261128-140312', before);
    await put('d.md', after);
    const diff = await diffBackup(root, 'd.md.bak.20261128-140312', 'd.md');
    expect(diff).toMatchObject({ added: 2, removed: 1, identical: false, summary: false });
    // Seven unchanged lines between the changes (> 2 × 3 context lines): two hunks.
    expect(diff.hunks).toEqual(['@@ -1,6 +1,6 @@', ' # Title', ' a', '-b', '+B!', ' c', ' d', ' e', '@@ -8,3 +8,4 @@', ' g', ' h', ' tail', '+new']);
  });

  it('splits distant changes into separate hunks and escapes control characters', () => {
    const a = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    const b = [...a];
    b[2] = 'changed \u001b[31m';
    b[25] = 'changed too';
    const diff = diffLines(a.join('\n'), b.join('\n'));
    const headers = diff.hunks.filter((l) => l.startsWith('@@'));
    expect(headers).toEqual(['@@ -1,6 +1,6 @@', '@@ -23,7 +23,7 @@']);
    expect(diff.hunks).toContain('+changed \\e[31m');
  });

  it('reports identical files and bounds huge diffs to a summary', () => {
    expect(diffLines('same\n', 'same\n')).toMatchObject({ identical: true, hunks: [] });
    const big = diffLines(Array.from({ length: 5000 }, (_, i) => `a${i}`).join('\n'), Array.from({ length: 5000 }, (_, i) => `b${i}`).join('\n'));
    expect(big).toMatchObject({ summary: true, added: 5000, removed: 5000 });
    const long = diffLines(Array.from({ length: 600 }, (_, i) => `x${i}`).join('\n'), Array.from({ length: 600 }, (_, i) => (i % 2 ? `x${i}` : `y${i}`)).join('\n'));
    expect(long.hunks.length).toBeLessThanOrEqual(201);
    expect(long.hunks.at(-1)).toMatch(/more diff lines not shown/);
  });
});

// A real full disk: a 64 KiB tmpfs. Needs root and mount permission (containers may refuse).
const canMount = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  try {
    const probe = execFileSync('mktemp', ['-d']).toString().trim();
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
      execFileSync('umount', [probe], { stdio: 'ignore' });
      return true;
    } finally {
      execFileSync('rmdir', [probe]);
    }
  } catch {
    return false;
  }
})();

describe('full disk', () => {
  it.skipIf(!canMount)('a copy that hits ENOSPC leaves the original intact, no half backup, and says the disk is full (skipped: mount -t tmpfs not permitted)', async () => {
    const disk = join(root, 'disk');
    await mkdir(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]);
    try {
      const original = 'x'.repeat(40 * 1024);
      await writeFile(join(disk, 'big.md'), original);
      await utimes(join(disk, 'big.md'), at, at);
      const err = await copyBackup(disk, 'big.md', at).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BackupError);
      expect((err as BackupError).code).toBe('ENOSPC');
      expect((err as BackupError).message).toMatch(/disk is full.*original file is intact/);
      expect(await readFile(join(disk, 'big.md'), 'utf8')).toBe(original);
      expect(await readdir(disk)).toEqual(['big.md']);
      // The move needs no space (a hard link), so backing up still works on a full disk.
      expect((await backupFile(disk, 'big.md', at)).backup).toBe('big.md.bak.20261128-140312');
      // Restore must stage a copy first: on a full disk it fails and changes nothing.
      await writeFile(join(disk, 'small.md'), 'tiny');
      const before = (await readdir(disk)).sort();
      await expect(restoreBackup(disk, 'big.md.bak.20261128-140312', at)).rejects.toThrow(/disk is full/);
      expect((await readdir(disk)).sort()).toEqual(before);
    } finally {
      execFileSync('umount', [disk]);
    }
  });
});

describe('backups of read-only files (non-root user)', () => {
  it('copies a 0444 file it may not hard-link, and keeps its bytes and mode', async () => {
    if (process.getuid?.() !== 0) return; // the setup needs root: a root-owned file in a directory of nobody's
    const { chmodSync, chownSync, statSync, writeFileSync, readFileSync } = await import('node:fs');
    const { pathToFileURL } = await import('node:url');
    const { NOBODY, runAsNobody } = await import('../../helpers/nobody.js');
    const { REPO } = await import('../../helpers/workspace.js');
    const root = await mkdtemp(join(tmpdir(), 'checkroom-ro-'));
    try {
      chmodSync(root, 0o755);
      chownSync(root, NOBODY, NOBODY);
      const src = join(root, 'checkpoint.md');
      writeFileSync(src, '# 项目进度检查点\n');
      chmodSync(src, 0o444); // owned by root: with fs.protected_hardlinks=1 nobody may not link it
      const dst = join(root, 'checkpoint.md.bak.20261130-080000');
      const mod = pathToFileURL(join(REPO, 'dist/src/backups/fs.js')).href;
      const r = runAsNobody([process.execPath, '--input-type=module', '-e', `const m = await import(${JSON.stringify(mod)}); console.log(await m.linkOrCopy(${JSON.stringify(src)}, ${JSON.stringify(dst)}, [${JSON.stringify(root)}]));`]);
      if (!r) return; // no runuser here
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(['link', 'copy']).toContain(r.stdout.trim());
      expect(readFileSync(dst, 'utf8')).toBe('# 项目进度检查点\n');
      expect(statSync(dst).mode & 0o777).toBe(0o444);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
