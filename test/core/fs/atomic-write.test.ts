import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic, WriteError } from '../../../src/fs/atomic-write.js';
import { tempDir } from '../../helpers/workspace.js';

// Atomic replace on real file systems, including a real full disk (a small tmpfs).

const canMount = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = tempDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('writeFileAtomic', () => {
  it('replaces the file and leaves no temp file behind, keeping its mode', () => {
    const dir = tempDir();
    const p = join(dir, 'checkpoint.md');
    writeFileSync(p, 'old', { mode: 0o640 });
    return writeFileAtomic(p, '新的内容', [dir]).then(() => {
      expect(readFileSync(p, 'utf8')).toBe('新的内容');
      expect(readdirSync(dir)).toEqual(['checkpoint.md']);
      expect(execFileSync('stat', ['-c', '%a', p]).toString().trim()).toBe('640');
    });
  });

  it.skipIf(!canMount)('on a full disk keeps every byte of the old file and says the disk is full (skipped: cannot mount tmpfs)', async () => {
    const disk = tempDir();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]);
    try {
      const old = 'x'.repeat(20 * 1024);
      writeFileSync(join(disk, 'checkpoint.md'), old);
      writeFileSync(join(disk, 'filler'), Buffer.alloc(36 * 1024));
      const err = await writeFileAtomic(join(disk, 'checkpoint.md'), 'y'.repeat(30 * 1024), [disk]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WriteError);
      expect((err as WriteError).message).toContain('disk is full');
      expect(readFileSync(join(disk, 'checkpoint.md'), 'utf8')).toBe(old);
      expect(readdirSync(disk).sort()).toEqual(['checkpoint.md', 'filler']);
    } finally {
      execFileSync('umount', [disk]);
    }
  });

  it('explains a directory it cannot write to', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'ro'));
    const err = await writeFileAtomic(join(dir, 'ro', 'missing-dir', 'f.md'), 'x', [dir]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WriteError);
    expect((err as WriteError).message).toMatch(/cannot write/);
  });
});
