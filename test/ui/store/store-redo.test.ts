import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal } from '../../../src/run/journal/journal.js';
import { closeStores, openStore, STAMP } from '../../helpers/store.js';
import { copyDemo } from '../../helpers/workspace.js';
import { planRedo } from '../../../src/ui/triage/redo.js';

// D and :redo in the control room (docs/redo.md), through `feed`: the preview dialog names
// every file with its size, y backs them up and queues the cells (the Plan's queued rows),
// u undoes the whole redo; read-only and a bad fork refuse with a message.

afterEach(closeStores);

const CH03 = ['ch03/draft', 'ch03/r1', 'ch03/r2', 'ch03/r3', 'ch03/review', 'ch03/panel', 'ch03/memory', 'ch03/final', 'ch03/html'];

describe('store: redo from here', () => {
  it('D on ch03 draft in Progress previews, y backs up and queues in plan order, u restores everything', async () => {
    const r = await openStore(copyDemo());
    const draft = readFileSync(join(r.root, 'drafts/ch03-draft.md'), 'utf8');
    // Progress: the third unit's row, the draft's column.
    await r.press('1', 'g', 'j', 'j', 'l', 'D');
    const d = r.s().dialog!;
    expect(d.title).toBe(`Redo from ch03 draft: 9 cells, 4 files (${d.pending.type === 'redo' ? d.pending.preview.bytes : 0} B) backed up`);
    expect(d.lines).toContain(`1. ch03 draft: drafts/ch03-draft.md ${Buffer.byteLength(draft)} B, has its marker`);
    expect(d.lines.some((l) => l.startsWith('7. ch03 memory: meta/chapter-summaries.md') && l.endsWith('shared: copied, its entry out'))).toBe(true);
    await r.press('y');
    expect(existsSync(join(r.root, 'drafts/ch03-draft.md'))).toBe(false);
    expect(readFileSync(join(r.root, `drafts/ch03-draft.md.bak.${STAMP}`), 'utf8')).toBe(draft);
    expect(r.s().redoQueue.map((q) => `${q.unit}/${q.step}`)).toEqual(CH03);
    expect(r.s().message?.text).toContain('redo from ch03 draft: 4 backed up, 9 queued');
    expect(r.s().undo.at(-1)?.redo?.cells).toHaveLength(9);

    await r.press('u');
    expect(r.s().dialog?.title).toBe('Undo: redo from ch03 draft (9 cells)');
    await r.press('y');
    expect(readFileSync(join(r.root, 'drafts/ch03-draft.md'), 'utf8')).toBe(draft);
    expect(r.s().redoQueue).toEqual([]);
    expect(r.s().undo.some((g) => g.redo)).toBe(false);
  });

  it(':redo unit/step agent=… forks; an unknown agent or a prompt outside the workspace is refused, nothing touched', async () => {
    const r = await openStore(copyDemo());
    await r.press(':', 'redo ch03/r1 agent=nobody', 'enter');
    expect(r.s().dialog).toBeNull();
    expect(r.s().message?.text).toContain('no agent "nobody" in checkroom.yaml');
    await r.press(':', 'redo ch03/r1 prompt=../../etc/passwd', 'enter');
    expect(r.s().message?.text).toContain('is outside the workspace');
    await r.press(':', 'redo ch03/r1 agent=writer', 'enter');
    expect(r.s().dialog?.lines).toContain("fork: agent writer, for these cells' next attempt only");
    expect(r.s().dialog?.title).toMatch(/^Redo from ch03 r1: 6 cells, 2 files/);
    expect(existsSync(join(r.root, 'reviews/ch03-r1-code.md'))).toBe(true);
  });

  it('D where no cell is selected says what to do', async () => {
    const r = await openStore(copyDemo());
    await r.press('4');
    expect(planRedo(r.s(), '')).toEqual({ say: 'no cell selected here: pick a cell (Progress, Plan, Health or Partials) and press D, or type :redo unit/step', tone: 'warn' });
    expect(planRedo(r.s(), 'ch99/draft')).toEqual({ say: 'no cell ch99 draft in this workspace', tone: 'warn' });
  });

  it('read-only refuses D and :redo', async () => {
    const r = await openStore(copyDemo(), { readonly: true });
    await r.press(':', 'redo ch03/draft', 'enter');
    expect(r.s().dialog).toBeNull();
    expect(r.s().message?.tone).toBe('warn');
    expect(existsSync(join(r.root, 'drafts/ch03-draft.md'))).toBe(true);
    expect((await readJournal(r.root)).events).toEqual([]);
  });
});
