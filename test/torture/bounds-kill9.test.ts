import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sweepTempFiles, TEMP_NAME } from '../../src/fs/sweep-temp.js';
import { REPO, tempDir } from '../helpers/workspace.js';

// Issue 8 item 9: kill -9 during every atomic write. A child writes in a loop through the
// real built modules — writeFileAtomic (checkpoint.md, RESUME.md, keep, the launch's cell
// edit all use it) and copyBackup (every backup before an in-place write) — and is killed
// at a spread of moments. After each kill the target holds the old or the new bytes, never
// a truncation; every backup on disk is a whole copy; what is left over is checkroom's temp
// pattern only, and the start-up sweep removes it.

const DIST = join(REPO, 'dist/src');
const OLD = 'o'.repeat(3 << 20);
const NEW = 'n'.repeat(3 << 20);

/** Start the child; resolve once it said it is writing, so the kill lands mid-loop. */
const writer = (script: string): Promise<ReturnType<typeof spawn>> =>
  new Promise((ok, fail) => {
    const child = spawn('node', ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('error', fail);
    child.stdout!.once('data', () => ok(child));
  });

const killAfter = async (child: ReturnType<typeof spawn>, spins: number): Promise<void> => {
  // A spread of moments without a clock: yield to the event loop `spins` times.
  for (let i = 0; i < spins; i++) await new Promise((r) => setImmediate(r));
  child.kill('SIGKILL');
  await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));
};

describe('torture: kill -9 during atomic writes', () => {
  it('writeFileAtomic: the target is always the old or the new bytes; leftovers are swept', { timeout: 180_000 }, async () => {
    const root = tempDir();
    const target = join(root, 'checkpoint.md');
    writeFileSync(target, OLD);
    const script = `
      import { writeFileAtomic } from ${JSON.stringify(join(DIST, 'fs/atomic-write.js'))};
      const [a, b] = ['o'.repeat(3 << 20), 'n'.repeat(3 << 20)];
      process.stdout.write('go\\n');
      for (let i = 0; ; i++) await writeFileAtomic(${JSON.stringify(target)}, i % 2 ? a : b, [${JSON.stringify(root)}]);
    `;
    for (let round = 0; round < 12; round++) {
      const child = await writer(script);
      await killAfter(child, round * 37);
      const now = readFileSync(target, 'utf8');
      expect(now === OLD || now === NEW, `round ${round}: ${now.length} bytes, neither old nor new`).toBe(true);
    }
    const left = readdirSync(root).filter((n) => n !== 'checkpoint.md');
    for (const n of left) expect(n).toMatch(TEMP_NAME);
    const r = await sweepTempFiles(root, [root]);
    expect(r.swept.map((s) => s.path).sort()).toEqual(left.sort());
    expect(readdirSync(root)).toEqual(['checkpoint.md']);
  });

  it('copyBackup: a backup name on disk always holds a whole copy', { timeout: 180_000 }, async () => {
    const root = tempDir();
    // Large enough that the child spends nearly all its time inside the copy of the bytes,
    // so the kills land there (a name created first and filled after showed up empty).
    const BIG = 'b'.repeat(8 << 20);
    writeFileSync(join(root, 'RESUME.md'), BIG);
    const script = `
      import { copyBackup } from ${JSON.stringify(join(DIST, 'backups/backups.js'))};
      process.stdout.write('go\\n');
      for (let i = 0; ; i++) {
        await copyBackup(${JSON.stringify(root)}, 'RESUME.md', new Date(Date.UTC(2026, 0, 1, 0, 0, i % 50)));
        process.stdout.write('copied\\n');
      }
    `;
    for (let round = 0; round < 16; round++) {
      const child = await writer(script);
      // Kill after a copy or two has finished, a few event-loop turns into the next one.
      let copies = 0;
      await new Promise<void>((r) => child.stdout!.on('data', (d: Buffer) => ((copies += String(d).split('copied').length - 1) >= 1 + (round % 2) ? r() : undefined)));
      await killAfter(child, round * 3);
      for (const n of readdirSync(root).filter((x) => x.startsWith('RESUME.md.bak.'))) {
        expect(statSync(join(root, n)).size, `round ${round}: ${n}`).toBe(BIG.length);
        unlinkSync(join(root, n));
      }
    }
    for (const n of readdirSync(root).filter((x) => !x.startsWith('RESUME.md'))) expect(n).toMatch(TEMP_NAME);
    await sweepTempFiles(root, [root]);
    expect(readdirSync(root)).toEqual(['RESUME.md']);
    expect(readFileSync(join(root, 'RESUME.md'), 'utf8') === BIG).toBe(true);
  });
});
