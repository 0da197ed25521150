import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyDemo, REPO } from '../../helpers/workspace.js';
import { bookPreset } from '../../../src/pipeline/book-preset.js';
import { parseCheckpoint } from '../../../src/checkpoint/parse.js';
import { renderCheckpoint } from '../../../src/checkpoint/render.js';
import { insertCheckpointRow } from '../../../src/checkpoint/insert-row.js';
import { updateCheckpointCell } from '../../../src/checkpoint/update-cell.js';
import { readSources, stateOf } from '../../../src/workspace.js';
import type { StatusJson } from '../../../src/cli/json.js';

// A unit in no batch (a disk-only chapter of the demo: ch10 has research on disk and no
// checkpoint row, and the demo's config gives no batches). The launcher's one-cell edit finds
// no row; ch10 goes in a table under no batch heading. Reading that file back used to file the
// table as "batch 0": status "Batch 0", matrix "ch10 B0", the quit dialog "disk shows Batch
// 0". Rows under no batch heading are units of no batch; the row is added in place, so the
// user's notes survive (a full rebuild used to drop them).

const book = bookPreset();
const CLI = join(REPO, 'dist/src/cli.js');
const cli = (args: string[]) => {
  const r = spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, input: '' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('a unit in no batch after `checkroom run` rewrites checkpoint.md', () => {
  it('stays out of every batch: no "Batch 0" in status, state or file', async () => {
    const root = copyDemo();
    const file = join(root, 'checkpoint.md');
    const note = '备注: ch03 的 R2 等作者回复';
    writeFileSync(file, readFileSync(file, 'utf8').replace('\n### Batch 2\n', `\n${note}\n\n### Batch 2\n`));
    const before = readFileSync(file, 'utf8');
    const run = cli(['run', root, 'ch10', 'draft']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).not.toContain('rebuilt');
    expect(run.out).toContain('ch10 draft: done');

    const text = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    const lines = text.split('\n');
    const ch10 = lines.findIndex((l) => l.startsWith('| ch10 '));
    const firstBatch = lines.findIndex((l) => l.startsWith('### Batch'));
    // The layout keeps ch10 out of every batch: under the phase line, before `### Batch 1`.
    expect(ch10).toBeGreaterThan(lines.indexOf('## Phase 3: 逐章写作 — ⏳ 进行中'));
    expect(ch10).toBeLessThan(firstBatch);
    expect(text).not.toContain('### Batch 0');
    const doc = parseCheckpoint(text, book);
    expect(doc.warnings).toEqual([]);
    expect(doc.batches.map((b) => [b.id, b.rows.map((r) => r.unit)])).toEqual([
      [null, ['ch10']],
      [1, ['ch01', 'ch02', 'ch04']],
      [2, ['ch03', 'ch05']],
      [3, ['ch06', 'ch07', 'ch08', 'ch09']],
    ]);
    // Every other byte is the user's: only the new table and the last-updated value differ.
    const added = lines.slice(ch10 - 3, ch10 + 2);
    expect(added[0]).toBe('');
    expect(added[1]).toBe(lines[firstBatch + 1]); // the header of Batch 1's table, as written
    expect(added[3]).toMatch(/^\| ch10 \| ✅ +\| ✅ +\| — /);
    expect(added[4]).toBe('');
    const rest = [...lines.slice(0, ch10 - 3), ...lines.slice(ch10 + 1)];
    const was = before.split('\n');
    expect(rest.filter((l, i) => l !== was[i])).toEqual([expect.stringMatching(/^最后更新: \d{4}-\d\d-\d\d \d\d:\d\d$/)]);
    expect(text).toContain(`\n${note}\n`);

    const state = stateOf(await readSources(root));
    expect(state.batches.map((b) => [b.id, b.units])).toEqual([
      [1, ['ch01', 'ch02', 'ch04']],
      [2, ['ch03', 'ch05']],
      [3, ['ch06', 'ch07', 'ch08', 'ch09']],
      [null, ['ch10']],
    ]);
    expect(state.currentBatch).toBe(1);

    const status = cli(['status', root]);
    expect(status.code).toBe(0);
    // Where the work stopped (issue 18 item 3): the checkpoint's Batch 2, not Batch 1 and its lost markers.
    expect(status.out).toContain('Phase 3 Chapter writing · Batch 2 ·');
    expect(status.out).toContain('unbatched 2/8');
    expect(status.out).not.toMatch(/Batch 0|\bB0\b/);
    const json = JSON.parse(cli(['status', root, '--json']).out) as StatusJson;
    expect(json.currentBatch).toBe(1);
    expect(json.batches.map((b) => b.id)).toEqual([1, 2, 3, null]);
  }, 60_000);
});

describe('rows under no batch heading', () => {
  it('are units of no batch, not merged with a real `### Batch 0`, and written back under no heading', () => {
    const text = [
      '## Phase 3: Writing',
      '| Unit | Research | Draft |',
      '|---|---|---|',
      '| ch02 | ✅ | — |',
      '### Batch 0',
      '| Unit | Research | Draft |',
      '|---|---|---|',
      '| ch01 | ✅ | ✅ |',
      '## Phase 4: Audit',
      '| Unit | Research | Draft |',
      '|---|---|---|',
      '| ch03 | ⏳ | — |',
      '',
    ].join('\n');
    const doc = parseCheckpoint(text, book);
    expect(doc.warnings).toEqual([]);
    expect(doc.batches.map((b) => [b.id, b.rows.map((r) => r.unit)])).toEqual([
      [null, ['ch02', 'ch03']],
      [0, ['ch01']],
    ]);
    const out = renderCheckpoint(doc, book);
    const back = parseCheckpoint(out, book);
    expect(back.batches.map((b) => [b.id, b.rows.map((r) => r.unit)])).toEqual([
      [null, ['ch02', 'ch03']],
      [0, ['ch01']],
    ]);
    expect(out.split('\n').filter((l) => l.startsWith('### '))).toEqual(['### Batch 0']);
  });
});

describe('insertCheckpointRow', () => {
  const FILE = [
    '# B — Progress Checkpoint',
    '',
    '## Phase 3: Writing',
    '',
    '### Batch 1',
    '| Chapter | Research | Owner | Draft |',
    '|---|---|---|---|',
    '| ch01 | ✅ | dana | — |',
    '',
    'Note: ch01 waits for the author.',
  ];

  // The new row copies the widths of the row it follows, so the table stays aligned.
  it('appends to the table of the batch the config gives the unit, keeping other columns and notes', () => {
    const text = FILE.join('\r\n');
    const res = insertCheckpointRow(text, 'ch02', 1, { research: 'done' }, book);
    expect(res.changed).toBe(true);
    expect(res.text.split('\r\n')).toEqual([...FILE.slice(0, 8), '| ch02 | ✅ |      | — |', ...FILE.slice(8)]);
    const doc = parseCheckpoint(res.text, book);
    expect(doc.warnings.filter((w) => !w.message.startsWith('unknown column "Owner"'))).toEqual([]);
    expect(doc.batches.map((b) => [b.id, b.rows.map((r) => r.unit)])).toEqual([[1, ['ch01', 'ch02']]]);
  });

  it('adds a table of no batch before the first batch heading, or appends to it; never batch 0', () => {
    const first = insertCheckpointRow(FILE.join('\n'), 'ch09', null, { research: 'in_progress' }, book);
    expect(first.text.split('\n').slice(3, 9)).toEqual(['', '| Chapter | Research | Owner | Draft |', '|---|---|---|---|', '| ch09 | ⏳ |      | — |', '', '### Batch 1']);
    const second = insertCheckpointRow(first.text, 'ch10', null, {}, book);
    expect(second.text.split('\n')[7]).toBe('| ch10 | —  |      | — |');
    const doc = parseCheckpoint(second.text, book);
    expect(doc.warnings.filter((w) => !w.message.startsWith('unknown column "Owner"'))).toEqual([]);
    expect(doc.batches.map((b) => [b.id, b.rows.map((r) => r.unit)])).toEqual([
      [null, ['ch09', 'ch10']],
      [1, ['ch01']],
    ]);
    expect(second.text.endsWith('Note: ch01 waits for the author.')).toBe(true);
  });

  it('keeps a file without a final line end that way, and leaves a unit with a row alone', () => {
    const text = FILE.slice(0, 8).join('\n');
    const res = insertCheckpointRow(text, 'ch02', 1, {}, book);
    expect(res.text).toBe(`${text}\n| ch02 | —  |      | — |`);
    expect(insertCheckpointRow(res.text, 'ch02', 1, {}, book)).toEqual({ text: res.text, changed: false });
  });

  it('says so when the batch has no section (the caller rebuilds the file)', () => {
    const res = insertCheckpointRow(FILE.join('\n'), 'ch05', 2, {}, book);
    expect(res).toMatchObject({ changed: false, text: FILE.join('\n') });
    expect(res.warning).toContain('Batch 2');
  });
});

describe('updateCheckpointCell on a blank cell', () => {
  // A blank cell is all padding: the glyph goes after one space, and the next pipe stays put.
  it('keeps the cell width', () => {
    const text = '### Batch 1\n| Chapter | Research | Draft |\n|---|---|---|\n| ch01 |          | — |\n';
    const res = updateCheckpointCell(text, 'ch01', 'research', 'done', book);
    expect(res.text.split('\n')[3]).toBe('| ch01 | ✅       | — |');
  });
});
