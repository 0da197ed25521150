import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../src/workspace.js';
import { stoppedAt, type WhereRow } from '../../../src/state/where.js';
import { regressionWords } from '../../../src/state/where-words.js';
import { whereBook } from '../../helpers/where.js';
import { pathOf, prose, writeFiles } from '../../helpers/workspace.js';

// Issue 18 item 3: where the work stopped is where the agents were (runs, the checkpoint's
// claim when the disk agrees, else the furthest batch with work in progress), not the first
// batch with a lost marker; the lost markers are listed as regressions.

const regressions = (s: Awaited<ReturnType<typeof loadWorkspace>>) => (s.regressions ?? []).map((r) => `${r.unit} ${r.step} ${r.batch} ${r.lost} ${r.evidence}`);

describe('where it stopped', () => {
  it('is Batch 2, the checkpoint\'s claim the disk agrees with, and Batch 1\'s lost markers are regressions', async () => {
    const s = await loadWorkspace(whereBook());
    expect(s.stoppedAt).toEqual({ phase: 3, batch: 2, from: 'checkpoint', checkpointSays: { phase: 3, batch: 2 } });
    expect(regressions(s)).toEqual(['ch01 draft 1 marker checkpoint', 'ch02 review 1 marker checkpoint']);
    // What scripts read is unchanged: the first batch not done.
    expect(s.currentBatch).toBe(1);
  });

  it('is Batch 2 from the disk when the checkpoint still says Batch 1, and says they disagree', async () => {
    const s = await loadWorkspace(whereBook({ batch: 1 }));
    expect(s.stoppedAt).toMatchObject({ phase: 3, batch: 2, from: 'disk', checkpointSays: { phase: 3, batch: 1 } });
    expect(s.stoppedAt!.disagreement).toBe('the checkpoint says Batch 1; the disk shows work in Batch 2');
  });

  it('is Batch 2 from the disk when the checkpoint claims Batch 3, where nothing has begun', async () => {
    const s = await loadWorkspace(whereBook({ batch: 3 }));
    expect(s.stoppedAt).toMatchObject({ batch: 2, from: 'disk', checkpointSays: { batch: 3 } });
    expect(s.stoppedAt!.disagreement).toBe('the checkpoint says Batch 3; the disk shows work in Batch 2');
  });

  it('is Batch 2 from the disk when the checkpoint names no batch; no disagreement', async () => {
    const s = await loadWorkspace(whereBook({ batch: null }));
    expect(s.stoppedAt).toEqual({ phase: 3, batch: 2, from: 'disk', checkpointSays: { phase: 3, batch: null } });
  });

  it('is Phase 3 from the disk alone without checkpoint.md (no batches known), the lost markers proven by the steps after them', async () => {
    const s = await loadWorkspace(whereBook({ noCheckpoint: true }));
    expect(s.stoppedAt).toEqual({ phase: 3, batch: null, from: 'disk' });
    expect(regressions(s)).toEqual(['ch01 draft null marker downstream', 'ch02 review null marker downstream']);
  });

  it('is where a live run is, over the checkpoint and the disk, and says the checkpoint disagrees', async () => {
    const s = await loadWorkspace(whereBook(), { running: new Set(['ch06/research']) });
    expect(s.stoppedAt).toMatchObject({ phase: 3, batch: 3, from: 'runs' });
    expect(s.stoppedAt!.disagreement).toBe('the checkpoint says Batch 2; runs are in Batch 3');
  });

  it('has no regressions when Batch 1 kept its markers, and still stops in Batch 2', async () => {
    const s = await loadWorkspace(whereBook({ intact: true }));
    expect(s.regressions).toEqual([]);
    expect(s.stoppedAt).toMatchObject({ batch: 2, from: 'checkpoint' });
    expect(s.currentBatch).toBe(2);
  });

  it('keeps the checkpoint\'s batch while runs go on in it, even with runs ahead in the next batch', async () => {
    const s = await loadWorkspace(whereBook(), { running: new Set(['ch05/draft', 'ch06/research']) });
    expect(s.stoppedAt).toEqual({ phase: 3, batch: 2, from: 'runs', checkpointSays: { phase: 3, batch: 2 } });
  });

  it('keeps the checkpoint\'s batch when work is under way there and ahead of it (research of Batch 3 begun)', async () => {
    const root = whereBook();
    writeFiles(root, { [pathOf('ch06', 'research')]: `# ch06 research\n\n${prose(300)}` });
    const s = await loadWorkspace(root);
    expect(s.stoppedAt).toMatchObject({ batch: 2, from: 'checkpoint' });
    expect(s.stoppedAt!.disagreement).toBeUndefined();
  });

});

describe('where it stopped, from the tallies (state/where.ts)', () => {
  const row = (id: number, t: Partial<WhereRow> = {}): WhereRow => ({ id, total: 10, done: 0, active: 0, running: 0, cut: 0, regress: 0, ...t });
  const phases = [row(3, { done: 12, active: 3 })];
  const at = (batches: WhereRow[], batch: number | null = null) => stoppedAt({ phases, batches, batchedPhase: 3, claim: batch === null ? null : { phase: 3, batch } });

  it('takes the journal\'s cut run where the disk has nothing later, and ignores one behind the work', () => {
    expect(at([row(1, { done: 10 }), row(2, { done: 2, active: 2, cut: 1 }), row(3)])).toMatchObject({ batch: 2, from: 'runs' });
    // A cut left in Batch 1 from an older session while Batch 2 is under way says nothing about now.
    expect(at([row(1, { done: 8, active: 1, cut: 1, regress: 1 }), row(2, { done: 3, active: 2 }), row(3)])).toMatchObject({ batch: 2, from: 'disk' });
  });

  it('between batches: a finished claimed batch agrees while the next has not begun', () => {
    expect(at([row(1, { done: 9, regress: 1 }), row(2, { done: 10 }), row(3)], 2)).toEqual({ phase: 3, batch: 2, from: 'checkpoint', checkpointSays: { phase: 3, batch: 2 } });
    expect(at([row(1, { done: 9, regress: 1 }), row(2, { done: 10 }), row(3)])).toMatchObject({ batch: 3, from: 'disk' });
  });

  it('a claimed batch complete but for its lost markers does not hold against work after it', () => {
    expect(at([row(1, { done: 8, regress: 2 }), row(2, { done: 1 }), row(3)], 1)).toMatchObject({ batch: 2, from: 'disk', disagreement: 'the checkpoint says Batch 1; the disk shows work in Batch 2' });
  });

  it('says the disk shows every phase done when the checkpoint claims a phase after the end', () => {
    const done = (id: number) => row(id, { done: 10 });
    expect(stoppedAt({ phases: [done(1), done(3)], batches: [done(1)], batchedPhase: 3, claim: { phase: 4, batch: null } })).toEqual({
      phase: null,
      batch: null,
      from: 'disk',
      checkpointSays: { phase: 4, batch: null },
      disagreement: 'the checkpoint says Phase 4; the disk shows every phase done',
    });
  });

  it('names at most six regressions and counts the rest', () => {
    const regs = Array.from({ length: 9 }, (_, i) => ({ unit: `ch0${i + 1}`, step: 'draft', batch: 1, path: '', lost: 'marker' as const, evidence: 'checkpoint' as const }));
    expect(regressionWords(regs, (t) => t)).toBe('ch01 draft, ch02 draft, ch03 draft, ch04 draft, ch05 draft, ch06 draft and 3 more (marker lost)');
  });
});
