import { describe, expect, it, beforeAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { loadWorkspace } from '../../../src/workspace.js';
import type { StatusJson } from '../../../src/cli/json.js';
import { REPO, tempDir, writeFiles, doneFile, PHASE_1_2, summaries, pathOf, prose } from '../../helpers/workspace.js';
import { SOURCE_CHECKPOINT } from '../../helpers/source-example.js';

// The source document's checkpoint example, reproduced on disk, through `checkroom status --json`:
// the statuses, verdicts, discrepancies and plan order that DOMAIN.md implies.

const BATCH1 = ['ch01', 'ch02', 'ch04'];
const STEPS = ['research', 'draft', 'r1', 'r2', 'r3', 'review', 'panel'];

function sourceExampleWorkspace(): string {
  const root = tempDir();
  const files: Record<string, string> = { ...PHASE_1_2, 'checkpoint.md': SOURCE_CHECKPOINT, 'meta/chapter-summaries.md': summaries(BATCH1) };
  for (const u of BATCH1) for (const s of STEPS) Object.assign(files, Object.fromEntries([doneFile(u, s)]));
  Object.assign(files, Object.fromEntries([doneFile('ch03', 'research'), doneFile('ch03', 'draft'), doneFile('ch03', 'r3'), doneFile('ch05', 'research')]));
  // ch03 R1 was interrupted mid-sentence; R2 never produced a file (❌).
  files[pathOf('ch03', 'r1')] = `# R1 code review\n\n${prose(300)}\n\n1. The example on line 12 does not compile because the`;
  // ch05's draft: 60 Chinese characters, no marker.
  files[pathOf('ch05', 'draft')] = '文'.repeat(60);
  writeFiles(root, files);
  return root;
}

describe('checkroom status --json on the source document example', () => {
  let json: StatusJson;
  beforeAll(() => {
    const root = sourceExampleWorkspace();
    json = JSON.parse(execFileSync('node', [join(REPO, 'dist/src/cli.js'), 'status', root, '--json'], { encoding: 'utf8' }));
  });
  const cell = (u: string, s: string) => json.cells.find((c) => c.unit === u && c.step === s)!;

  it('reads the header and derives the current phase and batch', () => {
    expect(json.version).toBe(1);
    expect(json.currentPhase).toBe(3);
    expect(json.currentBatch).toBe(2);
    expect(json.checkpoint).toMatchObject({ exists: true, lang: 'zh', lastUpdate: '2026-11-28 14:03' });
  });

  it('gives every cell the status the disk proves', () => {
    expect(cell('ch01', 'panel').status).toBe('done');
    expect(cell('ch01', 'memory').status).toBe('done');
    expect(cell('ch03', 'r1')).toMatchObject({ status: 'partial', checkpoint: 'in_progress', verdict: 'truncated' });
    expect(cell('ch03', 'r2')).toMatchObject({ status: 'failed', checkpoint: 'failed', disk: 'missing' });
    expect(cell('ch03', 'r3').status).toBe('done');
    expect(cell('ch03', 'review')).toMatchObject({ status: 'not_started', blockedBy: ['ch03/r2'] });
    expect(cell('ch05', 'draft')).toMatchObject({ status: 'partial', chars: 60, verdict: 'almost_certainly_partial', path: 'drafts/ch05-draft.md' });
    expect(cell('ch06', 'research').status).toBe('not_started');
  });

  it('explains each half-product, counting characters not bytes', () => {
    const ch05 = json.partials.find((p) => p.unit === 'ch05')!;
    expect(ch05).toMatchObject({ step: 'draft', chars: 60, verdict: 'almost_certainly_partial' });
    expect(ch05.reason).toContain('only 60 characters');
    const r1 = json.partials.find((p) => p.unit === 'ch03' && p.step === 'r1')!;
    expect(r1.reason).toContain('mid-sentence');
  });

  it('lists no discrepancy where the checkpoint and the disk agree', () => {
    expect(json.discrepancies).toEqual([]);
  });

  it('orders the plan: blocking failure, then half-products, and holds batch 3 back', () => {
    const order = json.next.map((n) => `${n.priority}:${n.unit}/${n.step}:${n.action}`);
    expect(order.slice(0, 3)).toEqual(['1:ch03/r2:retry', '2:ch03/r1:backup_redo', '2:ch05/draft:backup_redo']);
    expect(json.next[0].reason).toContain('blocks 5 steps of ch03');
    expect(json.next.some((n) => n.unit === 'ch06')).toBe(false); // batch 2 is not settled yet
    expect(json.next.some((n) => n.step === 'final')).toBe(false); // phase 4 waits for every chapter
  });
});

describe('reconciliation against a stale checkpoint', () => {
  it('lets the filesystem win and lists both views', async () => {
    const root = sourceExampleWorkspace();
    // The R1 review finished after the checkpoint was written; ch04's summary entry is lost.
    writeFiles(root, Object.fromEntries([doneFile('ch03', 'r1')]));
    writeFiles(root, { 'meta/chapter-summaries.md': summaries(['ch01', 'ch02']) });
    const s = await loadWorkspace(root);
    const d = (u: string, st: string) => s.discrepancies.find((x) => x.unit === u && x.step === st);
    expect(s.cells.find((c) => c.unit === 'ch03' && c.step === 'r1')!.status).toBe('done');
    expect(d('ch03', 'r1')).toMatchObject({ checkpoint: 'in_progress', disk: 'done' });
    expect(d('ch04', 'memory')).toMatchObject({ checkpoint: 'done', disk: 'missing' });
    expect(d('ch04', 'memory')!.note).toContain('nothing on disk');
  });

  it('shows a chapter that exists only on disk', async () => {
    const root = sourceExampleWorkspace();
    writeFiles(root, Object.fromEntries([doneFile('ch07', 'research')]));
    const s = await loadWorkspace(root);
    expect(s.units).toContain('ch07');
    const c = s.cells.find((x) => x.unit === 'ch07' && x.step === 'research')!;
    expect(c).toMatchObject({ status: 'done', checkpoint: null, batch: null });
    expect(s.batches.at(-1)).toMatchObject({ id: null, units: ['ch07'] });
  });

  it('marks escalated cells needs_human and skips their dependents while other work continues', async () => {
    const root = tempDir();
    const cp = SOURCE_CHECKPOINT.replace('| ch06 | —    | —    |', '| ch06 | ✅   | ⚠️   |');
    const files: Record<string, string> = { ...PHASE_1_2, 'checkpoint.md': cp, 'meta/chapter-summaries.md': summaries(BATCH1) };
    for (const u of BATCH1) for (const s of STEPS) Object.assign(files, Object.fromEntries([doneFile(u, s)]));
    for (const u of ['ch03', 'ch05']) for (const s of STEPS) Object.assign(files, Object.fromEntries([doneFile(u, s)]));
    files['meta/chapter-summaries.md'] = summaries([...BATCH1, 'ch03', 'ch05']);
    Object.assign(files, Object.fromEntries([doneFile('ch06', 'research')]));
    writeFiles(root, files);
    const s = await loadWorkspace(root);
    expect(s.cells.find((c) => c.unit === 'ch06' && c.step === 'draft')!.status).toBe('needs_human');
    expect(s.next[0]).toMatchObject({ priority: 1, unit: 'ch06', step: 'draft', action: 'human_review' });
    expect(s.next[0].reason).toContain('blocks 8 steps of ch06');
    expect(s.next.some((n) => n.unit === 'ch06' && n.step === 'r1')).toBe(false);
  });

  it('opens the next batch when the earlier one only waits on a human decision', async () => {
    const root = tempDir();
    const cp = SOURCE_CHECKPOINT;
    const files: Record<string, string> = { ...PHASE_1_2, 'checkpoint.md': cp, 'meta/chapter-summaries.md': summaries(BATCH1) };
    for (const u of BATCH1) for (const s of STEPS) Object.assign(files, Object.fromEntries([doneFile(u, s)]));
    // ch02's panel looks complete but lacks its marker: keep or redo is the operator's call.
    files[pathOf('ch02', 'panel')] = `# Panel\n\n${prose(400)}\n`;
    writeFiles(root, files);
    let s = await loadWorkspace(root);
    expect(s.next.find((n) => n.unit === 'ch02')).toMatchObject({ priority: 2, action: 'decide' });
    expect(s.next.some((n) => n.unit === 'ch03' && n.step === 'r1' && n.action === 'run')).toBe(false); // ch03 r1 is ⏳ with no file: not yet
    expect(s.next.some((n) => n.unit === 'ch06')).toBe(false); // batch 2 is still open work
    // Once batch 2 is settled (here: everything done), batch 3 opens although ch02 still waits on a human.
    for (const u of ['ch03', 'ch05']) for (const st of STEPS) writeFiles(root, Object.fromEntries([doneFile(u, st)]));
    writeFiles(root, { 'meta/chapter-summaries.md': summaries([...BATCH1, 'ch03', 'ch05']) });
    s = await loadWorkspace(root);
    expect(s.next.find((n) => n.unit === 'ch06')).toMatchObject({ priority: 3, step: 'research', action: 'run' });
    // ch05's chain now waits on a decision about its research: its later steps hold nothing back either.
    writeFiles(root, { [pathOf('ch06', 'research')]: `# R\n\n${prose(400)}\n` });
    writeFiles(root, Object.fromEntries([doneFile('ch07', 'research')]));
    s = await loadWorkspace(root);
    expect(s.next.find((n) => n.unit === 'ch06')).toMatchObject({ priority: 2, action: 'decide' });
    expect(s.next.find((n) => n.unit === 'ch07')).toMatchObject({ priority: 3, step: 'draft', action: 'run' });
  });
});
