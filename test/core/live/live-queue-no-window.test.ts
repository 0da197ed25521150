import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace, type LiveWorkspace } from '../../../src/live/live-workspace.js';
import type { WorkspaceState } from '../../../src/types.js';
import { PHASE_1_2, doneFile, pathOf, prose, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 18 item 6: no fixed window between a file event and the screen. The live queue
// applied a change that came within `batchMs` of the last batch only when that window ended,
// so a marker arriving while another file was being written waited for a timer. Now the
// pause after a batch is what the batch cost (at most batchMs): with a window of a minute,
// two markers in a row are both applied at once.

let live: LiveWorkspace | null = null;
afterEach(async () => {
  await live?.close();
  live = null;
});

const status = (s: WorkspaceState, u: string) => s.cells.find((c) => c.unit === u && c.step === 'draft')!.status;

describe('the live queue', () => {
  it('applies a change that follows another at once, not when a batch window ends', async () => {
    const root = tempDir();
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries([]),
      ...Object.fromEntries([doneFile('ch01', 'research'), doneFile('ch02', 'research')]),
      [pathOf('ch01', 'draft')]: `# d\n\n${prose(400)}\n`,
      [pathOf('ch02', 'draft')]: `# d\n\n${prose(400)}\n`,
    });
    for (const d of ['reviews', 'reader-feedback', 'chapters', 'publish']) mkdirSync(join(root, d), { recursive: true });
    live = await createLiveWorkspace(root, { batchMs: 60_000 });
    const seen = (unit: string) => new Promise<void>((resolve) => live!.subscribe((s) => status(s, unit) === 'done' && resolve()));
    const first = seen('ch01');
    appendFileSync(join(root, pathOf('ch01', 'draft')), '\n<!-- DRAFT_COMPLETE -->\n');
    await first;
    const second = seen('ch02');
    appendFileSync(join(root, pathOf('ch02', 'draft')), '\n<!-- DRAFT_COMPLETE -->\n');
    // Before: this waited out the 60 s window (the test's own timeout fails it).
    await second;
    expect(status(live.state, 'ch02')).toBe('done');
  }, 15_000);
});
