import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { StatusJson } from '../../../src/cli/json.js';
import { readFileSync } from 'node:fs';
import { recoverReport } from '../../../src/recover/report.js';
import { buildResume } from '../../../src/resume/build.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { REPO } from '../../helpers/workspace.js';
import { whereBook } from '../../helpers/where.js';

// Issue 18 item 3 on every text surface: a book whose checkpoint says Batch 2, whose agents
// were in Batch 2 when interrupted, and whose Batch 1 lost two markers since. `status`, its
// `--json` and the recover report name Batch 2 and list the two regressions; when the
// checkpoint says otherwise they say so.

const CLI = join(REPO, 'dist/src/cli.js');
const cli = (args: string[]) => {
  const r = spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '80' }, input: '' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('where it stopped, in status and recover', () => {
  it('status names Batch 2 and lists the regressions in earlier batches, in 80 columns', () => {
    const s = cli(['status', whereBook()]);
    expect(s.err).toBe('');
    const lines = s.out.split('\n');
    expect(lines[1]).toMatch(/^Phase 3 Chapter writing · Batch 2 · checkpoint updated/);
    expect(s.out).toContain('regressions in earlier batches: ch01 draft, ch02 review (marker lost)');
    expect(s.out).not.toContain('the checkpoint says');
    expect(lines.every((l) => l.length <= 80)).toBe(true);
  });

  it('status --json adds stoppedAt and regressions, and keeps currentBatch (the first batch not done)', () => {
    const json = JSON.parse(cli(['status', whereBook(), '--json']).out) as StatusJson;
    expect(json.currentBatch).toBe(1);
    expect(json.stoppedAt).toEqual({ phase: 3, batch: 2, from: 'checkpoint', checkpointSays: { phase: 3, batch: 2 } });
    expect(json.regressions).toEqual([
      { unit: 'ch01', step: 'draft', batch: 1, path: 'drafts/ch01-draft.md', lost: 'marker', evidence: 'checkpoint' },
      { unit: 'ch02', step: 'review', batch: 1, path: 'reviews/ch02-review.md', lost: 'marker', evidence: 'checkpoint' },
    ]);
  });

  it('status says when the checkpoint disagrees with the disk', () => {
    const root = whereBook({ batch: 1 });
    const s = cli(['status', root]);
    expect(s.out.split('\n')[1]).toMatch(/^Phase 3 Chapter writing · Batch 2 ·/);
    expect(s.out).toContain('the checkpoint says Batch 1; the disk shows work in Batch 2');
    const json = JSON.parse(cli(['status', root, '--json']).out) as StatusJson;
    expect(json.stoppedAt).toMatchObject({ batch: 2, from: 'disk', checkpointSays: { batch: 1 }, disagreement: 'the checkpoint says Batch 1; the disk shows work in Batch 2' });
  });

  it('the recover report names Batch 2 and lists the two regressions apart from what was in progress', async () => {
    const root = whereBook();
    const r = await recoverReport(root, { dryRun: true });
    expect(r.stop).toMatchObject({ phase: 3, batch: 2, from: 'checkpoint', disagreement: null, regressionsEarlier: true });
    expect(r.stop.regressions.map((x) => `${x.unit} ${x.step}`)).toEqual(['ch01 draft', 'ch02 review']);
    // The lost markers are not "in progress": what was is Batch 2's.
    expect(r.stop.inProgress.map((c) => `${c.unit} ${c.step}`)).toEqual(['ch03 r1', 'ch05 draft']);
    const text = cli(['recover', root, '--dry-run']).out;
    const at = text.split('\n').findIndex((l) => l.includes('2 Where it stopped'));
    expect(text.split('\n')[at + 1]).toMatch(/^ {2}Phase 3 Chapter writing · Batch 2 · last done:/);
    expect(text).toContain('  regressions in earlier batches: ch01 draft, ch02 review (marker lost)');
  });

  it('the recover report says when the checkpoint disagrees', async () => {
    const r = await recoverReport(whereBook({ batch: 3 }), { dryRun: true });
    expect(r.stop).toMatchObject({ batch: 2, from: 'disk', checkpointSays: { phase: 3, batch: 3 } });
    expect(r.stop.disagreement).toBe('the checkpoint says Batch 3; the disk shows work in Batch 2');
  });

  it('RESUME.md\'s current batch is where the work stopped', async () => {
    const letter = buildResume(await loadWorkspace(whereBook()), { now: new Date(2026, 10, 30, 5, 12) });
    expect(letter).toContain('\n- 当前批次: Batch 2\n');
  });

  it('recover rebuilds checkpoint.md with where the work stopped, so it agrees with the header afterwards', async () => {
    const root = whereBook({ batch: 1 });
    const r = await recoverReport(root, { dryRun: false });
    expect(r.rebuilt.find((a) => a.target === 'checkpoint.md')).toMatchObject({ done: true });
    expect(readFileSync(join(root, 'checkpoint.md'), 'utf8')).toContain('\n当前批次: Batch 2\n');
    const json = JSON.parse(cli(['status', root, '--json']).out) as StatusJson;
    expect(json.stoppedAt).toEqual({ phase: 3, batch: 2, from: 'checkpoint', checkpointSays: { phase: 3, batch: 2 } });
    // The lost markers stay regressions: the steps after them are done.
    expect(json.regressions.map((x) => `${x.unit} ${x.step} ${x.evidence}`)).toEqual(['ch01 draft downstream', 'ch02 review downstream']);
  });
});
