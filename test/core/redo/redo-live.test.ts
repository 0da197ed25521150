import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyDemo } from '../../helpers/workspace.js';
import { holdOpen, killWriters } from '../../helpers/writer.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { gatherRedo } from '../../../src/redo/gather.js';
import { applyRedo } from '../../../src/redo/apply.js';
import { diskPorts } from '../../../src/redo/ports.js';

// A file of the set being written by a real process (open for write, quiet) refuses the
// whole redo with its name, in the preview and again at apply time; nothing is touched.

afterEach(killWriters);

const untouched = async (root: string): Promise<void> => {
  for (const p of ['drafts/ch03-draft.md', 'reviews/ch03-r1-code.md', 'reviews/ch03-r3-content.md']) expect(existsSync(join(root, p))).toBe(true);
  for (const d of ['drafts', 'reviews', 'meta']) expect(readdirSync(join(root, d)).filter((f) => f.includes('.bak.'))).toEqual([]);
  expect((await readJournal(root)).events).toEqual([]);
};

describe('redo from here and a live writer', () => {
  it('the preview refuses, naming the file and its writer', async () => {
    const root = copyDemo();
    const config = await loadConfig(root);
    const w = await holdOpen(join(root, 'reviews/ch03-r3-content.md'));
    const p = await gatherRedo(await loadWorkspace(root, { config }), { liveRuns: [] }, { unit: 'ch03', step: 'draft' }, null);
    expect(p.refusal).toContain(`reviews/ch03-r3-content.md is being written by pid ${w.pid}`);
    await expect(applyRedo(root, p, diskPorts(root, config))).rejects.toThrow('nothing was touched');
    await untouched(root);
  });

  it('a writer that starts after the preview is seen when y is pressed: nothing is half-done', async () => {
    const root = copyDemo();
    const config = await loadConfig(root);
    const p = await gatherRedo(await loadWorkspace(root, { config }), { liveRuns: [] }, { unit: 'ch03', step: 'draft' }, null);
    expect(p.refusal).toBeNull();
    const w = await holdOpen(join(root, 'meta/chapter-summaries.md'));
    await expect(applyRedo(root, p, diskPorts(root, config))).rejects.toThrow(`meta/chapter-summaries.md is being written by pid ${w.pid}`);
    await untouched(root);
  });
});
