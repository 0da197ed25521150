import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { markCells } from '../../../../src/run/attempt/launch-checkpoint.js';
import { markerOf } from '../../../../src/run/supervisor/context.js';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { parseCheckpoint } from '../../../../src/checkpoint/parse.js';
import { claimsOf } from '../../../../src/state/derive.js';
import { copyDemo } from '../../../helpers/workspace.js';
import type { Claim } from '../../../../src/types.js';

// checkpoint.md's claims, one writer at a time, and the marks that queue behind a write go out
// together: an array's cells starting at once were one read-modify-write of the whole file each
// (the arrays bench at 2,000 cells: the marks, not Slurm, spaced the starts).

/** markCells, counting its calls (the marks each carried); `failFirst`: the first call throws as a full disk would. */
function countingWrite(failFirst = false) {
  const calls: number[] = [];
  const write: typeof markCells = async (root, config, marks, at) => {
    calls.push(marks.length);
    if (failFirst && calls.length === 1) throw new Error('ENOSPC: no space left on device');
    return markCells(root, config, marks, at);
  };
  return { calls, write };
}

const claims = (root: string, pipeline: Parameters<typeof parseCheckpoint>[1]) => claimsOf(parseCheckpoint(readFileSync(join(root, 'checkpoint.md'), 'utf8'), pipeline));

describe('marks on checkpoint.md', () => {
  it('markCells sets every mark in one write, in order (the last mark of a cell wins), and keeps the rest of the file', async () => {
    const root = copyDemo();
    const config = await loadConfig(root);
    const before = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    const r = await markCells(root, config, [
      { unit: 'ch08', step: 'research', claim: 'in_progress' },
      { unit: 'ch09', step: 'research', claim: 'in_progress' },
      { unit: 'ch08', step: 'research', claim: 'failed' },
    ], Date.parse('2026-12-02T10:00:00Z'));
    expect(r).toEqual({ changed: true, rebuilt: null });
    const c = claims(root, config.pipeline);
    expect([c.get('ch08/research'), c.get('ch09/research')]).toEqual(['failed', 'in_progress']);
    const after = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    // Only those two rows and the "last updated" line differ.
    const changed = after.split('\n').filter((l, i) => l !== before.split('\n')[i]);
    expect(changed.filter((l) => !/^\| ch0[89] /.test(l))).toHaveLength(1);
  });

  it('the marker sends the marks queued behind a write in the next one: 24 marks at once are 2 writes, every one lands, each promise resolves after its write', async () => {
    const root = copyDemo();
    const config = await loadConfig(root);
    const w = countingWrite();
    const marker = markerOf({ root, config }, () => Date.now(), () => undefined, w.write);
    const units = ['ch05', 'ch06', 'ch07', 'ch08', 'ch09'];
    const steps = config.pipeline.steps.map((s) => s.id).slice(2, 7);
    const wanted: [string, Claim][] = [];
    const all: Promise<void>[] = [];
    for (const u of units)
      for (const s of steps.slice(0, 5)) {
        if (wanted.length === 24) break;
        const claim: Claim = wanted.length % 3 === 0 ? 'failed' : 'in_progress';
        wanted.push([`${u}/${s}`, claim]);
        all.push(marker.mark(u, s, claim).then(() => expect(claims(root, config.pipeline).get(`${u}/${s}`)).toBe(claim)));
      }
    await Promise.all(all);
    // The first mark starts a write; the 23 that queued behind it are the second.
    expect(w.calls).toEqual([1, 23]);
    const c = claims(root, config.pipeline);
    for (const [key, claim] of wanted) expect(c.get(key)).toBe(claim);
  });

  it('a failed write rejects the marks it carried and the next marks still go out', async () => {
    const root = copyDemo();
    const config = await loadConfig(root);
    const w = countingWrite(true);
    const marker = markerOf({ root, config }, () => Date.now(), () => undefined, w.write);
    await expect(marker.mark('ch08', 'research', 'in_progress')).rejects.toThrow(/ENOSPC/);
    await marker.mark('ch09', 'research', 'in_progress');
    expect(claims(root, config.pipeline).get('ch09/research')).toBe('in_progress');
    expect(claims(root, config.pipeline).get('ch08/research')).not.toBe('in_progress');
  });
});
