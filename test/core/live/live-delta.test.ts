import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace, type LiveWorkspace } from '../../../src/live/live-workspace.js';
import { writeFileAtomic } from '../../../src/fs/atomic-write.js';
import type { WorkspaceState } from '../../../src/types.js';
import { PHASE_1_2, doneFile, pathOf, prose, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 10 item 3: a file event re-derives only the units it touches, and events for temp
// files and non-artifacts publish nothing. `settled()` (for the control socket) resolves once
// the events of changes made before the call are applied.

let live: LiveWorkspace | null = null;
afterEach(async () => {
  await live?.close();
  live = null;
});

const cell = (s: WorkspaceState, u: string, st: string) => s.cells.find((c) => c.unit === u && c.step === st)!;

function book(): string {
  const root = tempDir();
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
    ...Object.fromEntries([doneFile('ch01', 'research'), doneFile('ch02', 'research'), doneFile('ch03', 'research')]),
    [pathOf('ch01', 'draft')]: `# d\n\n${prose(400)}\n`,
    [pathOf('ch02', 'draft')]: `# d\n\n${prose(400)}\n`,
  });
  for (const d of ['reviews', 'reader-feedback', 'chapters', 'publish']) mkdirSync(join(root, d), { recursive: true });
  return root;
}

describe('live state by delta', () => {
  it('temp, swap, backup and notes files publish nothing; an artifact publishes once', async () => {
    const root = book();
    live = await createLiveWorkspace(root);
    const before = live.state;
    let published = 0;
    live.subscribe(() => published++);
    writeFileSync(join(root, 'drafts/.ch01-draft.md.4242.0badc0de.tmp'), 'half');
    writeFileSync(join(root, 'drafts/.ch01-draft.md.swp'), 'vim');
    writeFileSync(join(root, 'drafts/ch01-draft.md~'), 'backup');
    writeFileSync(join(root, 'drafts/4913'), '');
    writeFileSync(join(root, 'drafts/ch01-notes.md'), 'notes');
    writeFileSync(join(root, 'drafts/ch01-draft.md.bak.20261130-051200'), 'a backup');
    writeFileSync(join(root, 'unrelated.txt'), 'x');
    await live.settled();
    expect(published).toBe(0);
    expect(live.state).toBe(before);

    // The atomic writer's own temp file is no event either: one update, for the rename.
    await writeFileAtomic(join(root, pathOf('ch03', 'draft')), `# d\n\n${prose(400)}\n\n<!-- DRAFT_COMPLETE -->\n`, [root]);
    await live.settled();
    expect(cell(live.state, 'ch03', 'draft').status).toBe('done');
    expect(published).toBe(1);
  });

  it('a marker re-derives its unit only: the other units keep their cells and plan entries', async () => {
    const root = book();
    live = await createLiveWorkspace(root);
    const before = live.state;
    const others = (s: WorkspaceState) => ({
      cells: s.cells.filter((c) => c.unit !== 'ch02'),
      next: s.next.filter((n) => n.unit !== 'ch02'),
      partials: s.partials.filter((p) => p.unit !== 'ch02'),
    });
    expect(before.next.some((n) => n.unit === 'ch01')).toBe(true);
    appendFileSync(join(root, pathOf('ch02', 'draft')), '\n<!-- DRAFT_COMPLETE -->\n');
    await live.settled();
    const after = live.state;
    expect(cell(after, 'ch02', 'draft').status).toBe('done');
    expect(after.phases.find((p) => p.id === 3)!.done).toBe(before.phases.find((p) => p.id === 3)!.done + 1);
    // The very same objects, not equal copies: nothing of theirs was computed again.
    const [a, b] = [others(before), others(after)];
    expect(b.cells.length).toBe(a.cells.length);
    b.cells.forEach((c, i) => expect(c).toBe(a.cells[i]));
    expect(b.next.length).toBe(a.next.length);
    b.next.forEach((n, i) => expect(n).toBe(a.next[i]));
    b.partials.forEach((p, i) => expect(p).toBe(a.partials[i]));
  });

  it('settled() waits for the events of changes made before it, including a rename into place', async () => {
    const root = book();
    live = await createLiveWorkspace(root, { batchMs: 10_000 });
    appendFileSync(join(root, pathOf('ch01', 'draft')), '\n<!-- DRAFT_COMPLETE -->\n');
    writeFileSync(join(root, 'reviews/.x.tmp'), `# r\n\n${prose(400)}\n\n<!-- R1_CODE_REVIEW_COMPLETE -->\n`);
    renameSync(join(root, 'reviews/.x.tmp'), join(root, pathOf('ch01', 'r1')));
    // Far shorter than batchMs: settled() does not wait for the throttle, it applies now.
    await live.settled();
    expect(cell(live.state, 'ch01', 'draft').status).toBe('done');
    expect(cell(live.state, 'ch01', 'r1').status).toBe('done');
    appendFileSync(join(root, pathOf('ch02', 'draft')), '\n<!-- DRAFT_COMPLETE -->\n');
    await live.settled();
    expect(cell(live.state, 'ch02', 'draft').status).toBe('done');
  });
});
