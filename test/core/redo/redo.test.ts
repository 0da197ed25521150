import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyDemo } from '../../helpers/workspace.js';
import { settle } from '../../helpers/settle.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import { gatherRedo } from '../../../src/redo/gather.js';
import { applyRedo, undoRedo } from '../../../src/redo/apply.js';
import { diskPorts } from '../../../src/redo/ports.js';
import { redoClosure } from '../../../src/redo/closure.js';
import { redoLines } from '../../../src/redo/words.js';

// Redo from here (docs/redo.md) on a copy of the demo: ch03's draft and everything built on it.

const ledgerOf = async (root: string) => {
  const config = await loadConfig(root);
  return replayJournal((await readJournal(root)).events, Date.now(), { breaker: config.breaker, limits: config.limits });
};

const setup = async () => {
  const root = copyDemo();
  const config = await loadConfig(root);
  const ws = await loadWorkspace(root, { config });
  return { root, config, ws };
};

const backupsIn = (root: string, dir: string): string[] => (existsSync(join(root, dir)) ? readdirSync(join(root, dir)).filter((f) => f.includes('.bak.')) : []);

describe('redo from here', () => {
  it('ch03 draft: the cell and every step downstream in its unit, in plan order, the shared memory entry among them', async () => {
    const { ws } = await setup();
    const cells = redoClosure(ws.pipeline, ws.units, ws.cells, { unit: 'ch03', step: 'draft' });
    expect(cells.map((c) => `${c.unit}/${c.step}`)).toEqual(['ch03/draft', 'ch03/r1', 'ch03/r2', 'ch03/r3', 'ch03/review', 'ch03/panel', 'ch03/memory', 'ch03/final', 'ch03/html']);
    expect(cells.find((c) => c.step === 'memory')).toMatchObject({ path: 'meta/chapter-summaries.md', shared: true });
    // Nothing upstream, nothing of another unit (ch03 has no memory entry yet: no later unit read it).
    expect(cells.some((c) => c.step === 'research' || c.unit !== 'ch03')).toBe(false);
  });

  it('a written long-memory entry carries the redo to the later units whose draft read it', async () => {
    const { ws } = await setup();
    // ch02's entry is in meta/chapter-summaries.md; ch03, ch04 and ch05 have drafts on disk.
    const cells = redoClosure(ws.pipeline, ws.units, ws.cells, { unit: 'ch02', step: 'panel' });
    const keys = cells.map((c) => `${c.unit}/${c.step}`);
    expect(keys.slice(0, 3)).toEqual(['ch02/panel', 'ch02/memory', 'ch03/draft']);
    expect(keys).toContain('ch04/draft');
    expect(keys).toContain('ch05/r1');
    expect(keys).not.toContain('ch03/research');
    expect(cells.find((c) => c.unit === 'ch04' && c.step === 'draft')?.why).toBe('reads_memory');
    // Plan order: phase 3 of every unit before any unit's phase 4.
    expect(keys.indexOf('ch05/memory')).toBeLessThan(keys.indexOf('ch02/final'));
  });

  it('previews every file with its size, backs each up, queues the cells in plan order, one journal record; undo restores them', async () => {
    const { root, config, ws } = await setup();
    const before = new Map(['drafts/ch03-draft.md', 'reviews/ch03-r1-code.md', 'reviews/ch03-r3-content.md', 'meta/chapter-summaries.md'].map((p) => [p, readFileSync(join(root, p), 'utf8')]));
    const p = await gatherRedo(ws, { liveRuns: [] }, { unit: 'ch03', step: 'draft' }, null);
    expect(p.refusal).toBeNull();
    expect(p.files.map((f) => f.path)).toEqual([...before.keys()]);
    for (const f of p.files) expect(f.bytes).toBe(Buffer.byteLength(before.get(f.path)!));
    expect(p.bytes).toBe(p.files.reduce((s, f) => s + f.bytes, 0));
    expect(redoLines(p).join('\n')).toContain('with its marker: finished work, backed up and redone all the same');

    const r = await applyRedo(root, p, diskPorts(root, config));
    // The unit's own files moved aside; the shared long-memory file copied and still there.
    expect(existsSync(join(root, 'drafts/ch03-draft.md'))).toBe(false);
    expect(existsSync(join(root, 'reviews/ch03-r1-code.md'))).toBe(false);
    expect(readFileSync(join(root, 'meta/chapter-summaries.md'), 'utf8')).toBe(before.get('meta/chapter-summaries.md'));
    for (const m of r.moves) expect(readFileSync(join(root, m.backup), 'utf8')).toBe(before.get(m.path));
    const redoRecords = (await readJournal(root)).events.filter((e) => e.type === 'redo_applied');
    expect(redoRecords).toHaveLength(1);

    // A restart folds it back: the queue in plan order, one undo group.
    const l = await ledgerOf(root);
    expect(l.triage.redoQueue.map((q) => `${q.unit}/${q.step}`)).toEqual(p.cells.map((c) => `${c.unit}/${c.step}`));
    expect(l.triage.undo.at(-1)?.redo?.cells).toHaveLength(9);
    const after = await loadWorkspace(root, { config });
    expect(after.cells.find((c) => c.unit === 'ch03' && c.step === 'draft')?.status).toBe('not_started');

    // Something was written since (a relaunch began): undo keeps it as a backup too.
    writeFileSync(join(root, 'drafts/ch03-draft.md'), 'a new draft, half done\n');
    settle(root); // its writer has stopped: past the quiet window
    const u = await undoRedo(root, l.triage.undo.at(-1)!, diskPorts(root, config));
    for (const [path, text] of before) expect(readFileSync(join(root, path), 'utf8')).toBe(text);
    const kept = u.restored.find((x) => x.path === 'drafts/ch03-draft.md')!.current!;
    expect(readFileSync(join(root, kept), 'utf8')).toBe('a new draft, half done\n');
    const l2 = await ledgerOf(root);
    expect(l2.triage.redoQueue).toEqual([]);
    expect(l2.triage.undo.some((g) => g.redo)).toBe(false);
    expect((await readJournal(root)).events.filter((e) => e.type === 'redo_undone')).toHaveLength(1);
  });

  it("resets the cells' attempts and escalations as Z does, in the ledger a restart folds", async () => {
    const { root, config, ws } = await setup();
    const { appendJournal } = await import('../../../src/run/journal/journal.js');
    await appendJournal(root, { type: 'escalate', at: 1, unit: 'ch03', step: 'r2', class: 'STALLED', reason: 'killed twice' });
    expect((await ledgerOf(root)).cells['ch03/r2']?.escalation).not.toBeNull();
    const p = await gatherRedo(ws, { liveRuns: [] }, { unit: 'ch03', step: 'draft' }, null);
    await applyRedo(root, p, diskPorts(root, config));
    const c = (await ledgerOf(root)).cells['ch03/r2'];
    expect(c?.escalation ?? null).toBeNull();
    expect(c?.state).toBe('idle');
  });

  it('a run in flight on a cell of the set refuses the whole action; nothing is touched', async () => {
    const { root, config, ws } = await setup();
    const liveRuns = [{ runId: 'r-7', unit: 'ch03', step: 'r2', pid: 4242 }] as never;
    const p = await gatherRedo(ws, { liveRuns }, { unit: 'ch03', step: 'draft' }, null);
    expect(p.refusal).toContain('ch03 r2 has a run in flight (run r-7, pid 4242)');
    await expect(applyRedo(root, p, diskPorts(root, config))).rejects.toThrow('nothing was touched');
    expect(existsSync(join(root, 'drafts/ch03-draft.md'))).toBe(true);
    expect(backupsIn(root, 'drafts')).toEqual([]);
    expect((await readJournal(root)).events).toEqual([]);
  });
});

describe('the fork in the operator model', () => {
  it("a redo with agent= and prompt= shows on each of its cells until that cell's launch", async () => {
    const { cellsOf } = await import('../../../src/operator/cells.js');
    const cfg = { breaker: { threshold: 3, cooldownMs: 1000, maxCooldownMs: 5000 }, limits: { maxLaunches: 100, maxConsecutiveFailures: 10 } };
    const redo = { v: 1 as const, type: 'redo_applied' as const, at: 1, id: 'redo:1:ch03/r1', unit: 'ch03', step: 'r1', cells: [{ unit: 'ch03', step: 'r1', path: 'reviews/ch03-r1-code.md', claim: 'done' }, { unit: 'ch03', step: 'review', path: 'reviews/ch03-review.md', claim: null }], moves: [], agent: 'writer-b', prompt: 'prompts/v2.md' };
    const launch = { v: 1 as const, type: 'launch' as const, at: 2, runId: 'r', unit: 'ch03', step: 'r1', agent: 'writer-b', attempt: 1, argv: ['x'], cwd: '/w', logPath: '/w/l', pid: 1, procStart: 1, outputPath: null };
    const model = (events: never[]) => cellsOf({ ledger: replayJournal(events, 10, cfg) } as never, [], null);
    expect(model([redo] as never[]).get('ch03/r1')?.fork).toBe('agent writer-b, prompt prompts/v2.md');
    const after = model([redo, launch] as never[]);
    expect(after.get('ch03/r1')?.fork).toBeNull();
    expect(after.get('ch03/review')?.fork).toBe('agent writer-b, prompt prompts/v2.md');
  });
});

describe("a unit's long-memory entry", () => {
  it('leaves the shared file (copied first), the other units\' entries stay; the entry step is redone; undo puts it back', async () => {
    const { root, config, ws } = await setup();
    const before = readFileSync(join(root, 'meta/chapter-summaries.md'), 'utf8');
    expect(before).toContain('## ch02 — B-tree');
    const p = await gatherRedo(ws, { liveRuns: [] }, { unit: 'ch02', step: 'panel' }, null);
    const r = await applyRedo(root, p, diskPorts(root, config));
    const after = readFileSync(join(root, 'meta/chapter-summaries.md'), 'utf8');
    expect(after).not.toContain('## ch02');
    expect(after).toContain('## ch01 — 存储格式与页');
    expect(after.length).toBeLessThan(before.length);
    const copy = r.moves.find((m) => m.path === 'meta/chapter-summaries.md')!;
    expect(copy.copy).toBe(true);
    expect(readFileSync(join(root, copy.backup), 'utf8')).toBe(before);
    const now = await loadWorkspace(root, { config });
    expect(now.cells.find((c) => c.unit === 'ch02' && c.step === 'memory')?.status).toBe('not_started');
    expect(now.cells.find((c) => c.unit === 'ch01' && c.step === 'memory')?.status).toBe('done');
    settle(root);
    await undoRedo(root, (await ledgerOf(root)).triage.undo.at(-1)!, diskPorts(root, config));
    expect(readFileSync(join(root, 'meta/chapter-summaries.md'), 'utf8')).toBe(before);
  });

  it('withoutEntries takes the heading naming the unit and what is under it, down to the next heading of its level', async () => {
    const { withoutEntries } = await import('../../../src/redo/entry.js');
    const text = '# Summaries\n\n## ch01 — a\nx\n### detail of ch01\ny\n## ch010 — another\nz\n## ch02\nw\n';
    expect(withoutEntries(text, ['ch01'])).toEqual({ text: '# Summaries\n\n## ch010 — another\nz\n## ch02\nw\n', removed: 1 });
    expect(withoutEntries(text, ['ch09']).removed).toBe(0);
  });
});

describe('the pure parts', () => {
  it('previewRedo refuses on the first file being written, naming it, and counts every file once', async () => {
    const { ws } = await setup();
    const { previewRedo } = await import('../../../src/redo/preview.js');
    const sizes = new Map([['drafts/ch03-draft.md', 10], ['meta/chapter-summaries.md', 5]]);
    const base = { pipeline: ws.pipeline, units: ws.units, cells: ws.cells, origin: { unit: 'ch03', step: 'draft' }, override: null, sizes, live: new Map<string, string>(), running: new Map<string, string>() };
    const p = previewRedo(base);
    expect(p).toMatchObject({ refusal: null, bytes: 15 });
    expect(p.files.map((f) => [f.path, f.shared])).toEqual([['drafts/ch03-draft.md', false], ['meta/chapter-summaries.md', true]]);
    const live = new Map([['meta/chapter-summaries.md', 'meta/chapter-summaries.md is being written by pid 7 (sh)']]);
    expect(previewRedo({ ...base, live }).refusal).toBe('meta/chapter-summaries.md is being written by pid 7 (sh); wait until it stops, then redo: nothing was touched');
  });

  it(':redo words: a cell as unit/step or unit step, then agent= and prompt=; anything else is a RedoError saying the form', async () => {
    const { parseRedoArgs } = await import('../../../src/redo/override.js');
    const { RedoError } = await import('../../../src/redo/types.js');
    expect(parseRedoArgs('')).toEqual({ cell: null, override: {} });
    expect(parseRedoArgs('ch03/draft agent=writer-b')).toEqual({ cell: { unit: 'ch03', step: 'draft' }, override: { agent: 'writer-b' } });
    expect(parseRedoArgs('prompt=prompts/v2.md ch03 review')).toEqual({ cell: { unit: 'ch03', step: 'review' }, override: { prompt: 'prompts/v2.md' } });
    expect(() => parseRedoArgs('ch03')).toThrow(RedoError);
    expect(() => parseRedoArgs('ch03/draft agent=')).toThrow('agent= needs a value');
  });

  it('forkTarget: no fork is the target as it was; an agent gone from checkroom.yaml refuses, never runs the default', async () => {
    const { root, config } = await setup();
    const { forkTarget } = await import('../../../src/redo/fork.js');
    const { targetOf } = await import('../../../src/run/attempt/launch-spec.js');
    const t = targetOf(root, config, 'ch03', 'draft');
    expect(forkTarget(root, config, t, undefined)).toBe(t);
    expect(forkTarget(root, config, t, { id: 'x', agent: 'editor' }).agent.name).toBe('editor');
    expect(() => forkTarget(root, config, t, { id: 'x', agent: 'gone' })).toThrow('which checkroom.yaml no longer has');
    writeFileSync(join(root, 'p.md'), 'again');
    expect(forkTarget(root, config, t, { id: 'x', prompt: 'p.md' }).agent.env.CHECKROOM_PROMPT).toBe(join(root, 'p.md'));
  });
});
