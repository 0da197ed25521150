import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rewriteCheckpoint } from '../../../src/checkpoint/rewrite.js';
import { parseCheckpoint } from '../../../src/checkpoint/parse.js';
import { bookPreset } from '../../../src/pipeline/book-preset.js';
import { doneFile, PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 8 item 6: `checkpoint --write` dropped a column it did not know, with its values, and
// invented `### Batch N` for chapters that had none. Both are kept as the file had them.

const book = bookPreset();
const at = new Date(2026, 10, 30, 5, 12, 0);
const base = { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) };

describe('checkpoint --write keeps the layout', () => {
  it('keeps an unknown column, in its place, with every value', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      ...base,
      ...Object.fromEntries([doneFile('ch01', 'research'), doneFile('ch02', 'research')]),
      'checkpoint.md':
        '# B — Progress Checkpoint\n\n## Phase 3: Writing\n\n### Batch 1\n| Chapter | Research | Owner | Draft |\n|---|---|---|---|\n| ch01 | ✅ | dana | — |\n| ch02 | ⏳ | li \\| wu | — |\n',
    });
    const { text } = await rewriteCheckpoint(dir, at);
    expect(readFileSync(join(dir, 'checkpoint.md'), 'utf8')).toBe(text);
    const head = text.split('\n').find((l) => l.includes('Owner'))!;
    // Right after Research, where it was.
    expect(head).toMatch(/^\| Chapter +\| Research +\| Owner +\| Draft +\|/);
    expect(text).toMatch(/\| ch01 +\| ✅ +\| dana +\| — /);
    expect(text).toMatch(/\| ch02 +\| ✅ +\| li \\\| wu +\| — /);
    const doc = parseCheckpoint(text, book);
    expect(doc.batches[0].rows.map((r) => r.extra)).toEqual([{ Owner: 'dana' }, { Owner: 'li \\| wu' }]);
  });

  it('never invents a batch for a chapter that had none', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      ...base,
      ...Object.fromEntries([doneFile('ch01', 'research'), doneFile('ch02', 'research')]),
      'checkpoint.md': '# B — Progress Checkpoint\n\n## Phase 3: Writing\n\n### Batch 1\n| Chapter | Research | Draft |\n|---|---|---|\n| ch01 | ✅ | — |\n',
    });
    const { text } = await rewriteCheckpoint(dir, at);
    expect(text).not.toContain('### Batch 2');
    const doc = parseCheckpoint(text, book);
    // ch02 is in no batch (null); the asserted "batch 0" was the bug.
    expect(doc.batches.map((b) => [b.id, b.rows.map((r) => r.unit)])).toEqual([
      [null, ['ch02']],
      [1, ['ch01']],
    ]);
  });

  it('writes a checkpoint with no batches without any batch heading', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      ...base,
      ...Object.fromEntries([doneFile('ch01', 'research')]),
      'checkpoint.md': '# B — Progress Checkpoint\n\n## Phase 3: Writing\n| Chapter | Research | Draft |\n|---|---|---|\n| ch01 | ⏳ | — |\n',
    });
    const { text } = await rewriteCheckpoint(dir, at);
    expect(text).not.toMatch(/### Batch/);
    expect(text).toMatch(/\| ch01 +\| ✅ +\| — /);
  });
});
