import { describe, expect, it } from 'vitest';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bookPreset } from '../../../src/pipeline/book-preset.js';
import { parseCheckpoint } from '../../../src/checkpoint/parse.js';
import { renderCheckpoint } from '../../../src/checkpoint/render.js';
import { touchLastUpdate, updateCheckpointCell } from '../../../src/checkpoint/update-cell.js';
import { readCheckpoint, writeCheckpoint, CHECKPOINT_MAX_BYTES } from '../../../src/checkpoint/io.js';
import { splitRow } from '../../../src/checkpoint/table.js';
import type { CheckpointDoc } from '../../../src/checkpoint/types.js';

const book = bookPreset();

// The checkpoint.md of the source document (seeds/000, lines 65-97), verbatim, with the
// three {{placeholders}} of the header filled in as DOMAIN.md section 3 fills them.
const SEED_RAW = [
  "# {{项目名称}} — 项目进度检查点",
  "",
  "最后更新: {{时间戳}}",
  "当前Phase: {{当前Phase编号}}",
  "当前批次: Batch {{当前批次编号}}",
  "",
  "## Phase 1: 大纲定稿 — ✅ 完成",
  "## Phase 2: 共享资源构建 — ✅ 完成",
  "",
  "## Phase 3: 逐章写作 — ⏳ 进行中",
  "",
  "### Batch 1",
  "| 章节 | 研究 | 写作 | R1审查 | R2审查 | R3审查 | 合并审查 | 读者评审 | 长记忆更新 |",
  "|------|------|------|--------|--------|--------|---------|---------|-----------|",
  "| ch01 | ✅   | ✅   | ✅     | ✅     | ✅     | ✅      | ✅      | ✅        |",
  "| ch02 | ✅   | ✅   | ✅     | ✅     | ✅     | ✅      | ✅      | ✅        |",
  "| ch04 | ✅   | ✅   | ✅     | ✅     | ✅     | ✅      | ✅      | ✅        |",
  "",
  "### Batch 2",
  "| 章节 | 研究 | 写作 | R1审查 | R2审查 | R3审查 | 合并审查 | 读者评审 | 长记忆更新 |",
  "|------|------|------|--------|--------|--------|---------|---------|-----------|",
  "| ch03 | ✅   | ✅   | ⏳     | ❌     | ✅     | —       | —       | —         |",
  "| ch05 | ✅   | ⏳   | —      | —      | —      | —       | —       | —         |",
  "",
  "### Batch 3 — 未开始",
  "| 章节 | 研究 | 写作 | R1审查 | R2审查 | R3审查 | 合并审查 | 读者评审 | 长记忆更新 |",
  "|------|------|------|--------|--------|--------|---------|---------|-----------|",
  "| ch06 | —    | —    | —      | —      | —      | —       | —       | —         |",
  "",
  "## Phase 4: 统稿审计 — 未开始",
  "## Phase 5: HTML装帧 — 未开始",
  "",
  "凡例: ✅完了 ⏳進行中 ❌失敗 ⚠️人的確認必要 — 未開始",
].join('\n') + '\n';
const SEED = SEED_RAW.replace('{{时间戳}}', '2026-11-28 14:03').replace('{{当前Phase编号}}', '3').replace('{{当前批次编号}}', '2');

const STEPS8 = ['research', 'draft', 'r1', 'r2', 'r3', 'review', 'panel', 'memory'];
const row = (doc: CheckpointDoc, unit: string) => doc.batches.flatMap((b) => b.rows).find((r) => r.unit === unit);
/** Everything but line numbers and warnings: what a round trip must keep. */
const content = (doc: CheckpointDoc) => ({
  ...doc,
  warnings: [],
  phases: doc.phases.map(({ line: _l, ...p }) => p),
  batches: doc.batches.map(({ line: _l, ...b }) => ({ ...b, rows: b.rows.map(({ line: _r, ...r }) => r) })),
});

describe('parseCheckpoint: the source document example (zh)', () => {
  const doc = parseCheckpoint(SEED, book);

  it('reads the header, language and layout', () => {
    expect(doc.lang).toBe('zh');
    expect(doc.project).toBe('{{项目名称}}');
    expect(doc.lastUpdate).toBe('2026-11-28 14:03');
    expect(doc.currentPhase).toBe(3);
    expect(doc.currentBatch).toBe(2);
    expect(doc.layout).toEqual({ eol: '\n', bom: false });
    expect(doc.warnings).toEqual([]);
  });

  it('reads the phase lines', () => {
    expect(doc.phases).toEqual([
      { id: 1, name: '大纲定稿', status: 'done', line: 7 },
      { id: 2, name: '共享资源构建', status: 'done', line: 8 },
      { id: 3, name: '逐章写作', status: 'in_progress', line: 10 },
      { id: 4, name: '统稿审计', status: 'not_started', line: 30 },
      { id: 5, name: 'HTML装帧', status: 'not_started', line: 31 },
    ]);
  });

  it('reads the batches and the claims of every cell', () => {
    expect(doc.batches.map((b) => [b.id, b.status, b.line, b.rows.map((r) => r.unit)])).toEqual([
      [1, null, 12, ['ch01', 'ch02', 'ch04']],
      [2, null, 19, ['ch03', 'ch05']],
      [3, 'not_started', 25, ['ch06']],
    ]);
    for (const b of doc.batches) expect(b.columns).toEqual(STEPS8);
    expect(row(doc, 'ch03')).toEqual({
      unit: 'ch03',
      line: 22,
      claims: { research: 'done', draft: 'done', r1: 'in_progress', r2: 'failed', r3: 'done', review: 'not_started', panel: 'not_started', memory: 'not_started' },
    });
    expect(row(doc, 'ch05')?.claims.draft).toBe('in_progress');
    expect(Object.values(row(doc, 'ch04')!.claims)).toEqual(Array(8).fill('done'));
    expect(Object.values(row(doc, 'ch06')!.claims)).toEqual(Array(8).fill('not_started'));
  });

  it('reports the unfilled {{placeholders}} instead of inventing numbers', () => {
    const raw = parseCheckpoint(SEED_RAW, book);
    expect(raw.currentPhase).toBeNull();
    expect(raw.currentBatch).toBeNull();
    expect(raw.lastUpdate).toBe('{{时间戳}}');
    expect(raw.warnings.map((w) => w.line)).toEqual([4, 5]);
  });
});

const EN = `# The Rust Book — Progress Checkpoint

**Last updated:** 2026-11-28 14:03
Current phase: 3
Current batch: 2

## Phase 1: Outline — ✅ Done
## Phase 3: Chapter Writing — ⏳ In progress
### Batch 2
| Chapter | Research | Draft | R1 Review | R2 Review | R3 Review | Merged Review | Reader Panel | Long-memory Update |
|---|---|---|---|---|---|---|---|---|
| ch03 | ✅ | ✅ | ⏳ | ❌ | ✅ | — | — | — |
### Batch 3 — Not started

Legend: ✅ done · ⏳ in progress · ❌ failed · ⚠️ needs a human · — not started
`;

const JA = `# 技術書 — 進捗チェックポイント

最終更新：2026-11-28 14:03
現在のPhase：3
現在のバッチ：Batch 2

## Phase 1: アウトライン確定 — ✅ 完了
## Phase 3: 章ごとの執筆 — ⏳ 進行中
### バッチ 2
| 章 | 調査 | 執筆 | R1レビュー | R2レビュー | R3レビュー | 統合レビュー | 読者評価 | 長期記憶更新 |
|----|------|------|------------|------------|------------|--------------|----------|--------------|
| ch03 | ✅ | ✅ | ⏳ | ❌ | ✅ | — | — | — |
### Batch 3 — 未着手
`;

describe('parseCheckpoint: English and Japanese', () => {
  for (const [lang, text, project] of [['en', EN, 'The Rust Book'], ['ja', JA, '技術書']] as const) {
    it(`reads the ${lang} equivalent of the example`, () => {
      const doc = parseCheckpoint(text, book);
      expect(doc.warnings).toEqual([]);
      expect(doc.lang).toBe(lang);
      expect(doc.project).toBe(project);
      expect([doc.lastUpdate, doc.currentPhase, doc.currentBatch]).toEqual(['2026-11-28 14:03', 3, 2]);
      expect(doc.phases.map((p) => [p.id, p.status])).toEqual([[1, 'done'], [3, 'in_progress']]);
      expect(doc.batches.map((b) => [b.id, b.status])).toEqual([[2, null], [3, 'not_started']]);
      expect(row(doc, 'ch03')?.claims).toEqual(row(parseCheckpoint(SEED, book), 'ch03')?.claims);
      expect(row(doc, 'ch03')?.line).toBe(12);
    });
  }

  it('tells Japanese from Chinese by the vocabulary, and falls back to kana', () => {
    expect(parseCheckpoint('最終更新: x\n', book).lang).toBe('ja');
    expect(parseCheckpoint('最后更新: x\n', book).lang).toBe('zh');
    expect(parseCheckpoint('# メモ\n', book).lang).toBe('ja');
    expect(parseCheckpoint('# notes\n', book).lang).toBe('en');
    expect(parseCheckpoint('### Batch 1\n| 章 | 調査 | R1レビュー |\n| ch01 | ✅ | ✅ |\n', book).lang).toBe('ja');
  });
});

describe('parseCheckpoint: tolerance', () => {
  it('reads CRLF with a BOM and records both in the layout', () => {
    const doc = parseCheckpoint('\uFEFF' + SEED.replace(/\n/g, '\r\n'), book);
    expect(doc.layout).toEqual({ eol: '\r\n', bom: true });
    expect(doc.warnings).toEqual([]);
    expect(content(doc)).toEqual({ ...content(parseCheckpoint(SEED, book)), layout: { eol: '\r\n', bom: true } });
    expect(row(doc, 'ch03')?.line).toBe(22);
  });

  it('accepts full-width colons, bold labels, bare batch numbers and localized batch headings', () => {
    const doc = parseCheckpoint(
      ['# 书 — 项目进度检查点', '**最后更新**：2026-01-02', '- 当前Phase : Phase 3', '当前批次: 4', '### 批次 4', '### バッチ 5 — ✅ 完了'].join('\n'),
      book,
    );
    expect([doc.lastUpdate, doc.currentPhase, doc.currentBatch]).toEqual(['2026-01-02', 3, 4]);
    expect(doc.batches.map((b) => [b.id, b.status])).toEqual([[4, null], [5, 'done']]);
    expect(doc.warnings).toEqual([]);
  });

  it('reports broken rows, unknown glyphs and columns with their line numbers', () => {
    const text = [
      '### Batch 1', //                                                    1
      '| 章节 | 研究 | 写作 | Vibes | R1审查 |', //                            2
      '|---|---|---|---|---|', //                                          3
      '| ch01 | ✅ | 🦄 | ✅ | ⏳ |', //                                     4 unknown glyph
      '| ch02 | ✅ | ✅ |', //                                              5 missing cells
      '| chapter two | ✅ | ✅ | ✅ | ✅ |', //                               6 not a unit
      '| ch01 | ❌ | ❌ | ❌ | ❌ |', //                                     7 duplicate
      '| ch03 | ⚠ | [x] | ? | ⚠️ |', //                                     8 fine
    ].join('\n');
    const doc = parseCheckpoint(text, book);
    expect(doc.warnings.map((w) => w.line)).toEqual([2, 4, 5, 6, 7]);
    expect(doc.warnings[0].message).toContain('"Vibes"');
    expect(doc.warnings[1].message).toContain('🦄');
    expect(doc.batches[0].columns).toEqual(['research', 'draft', 'r1']);
    expect(row(doc, 'ch01')?.claims).toEqual({ research: 'done', r1: 'in_progress' }); // first row wins
    expect(row(doc, 'ch02')?.claims).toEqual({ research: 'done', draft: 'done' });
    expect(row(doc, 'ch03')?.claims).toEqual({ research: 'needs_human', draft: 'done', r1: 'needs_human' });
    expect(doc.batches[0].rows.map((r) => r.unit)).toEqual(['ch01', 'ch02', 'ch03']);
  });

  it('reports unreadable phase and batch statuses, keeping the names', () => {
    const doc = parseCheckpoint('## Phase 1: Outline — 🟦\n## Phase 2: Shared — ⚠️\n## Phase 4: Whole - Book\n### Batch 3 — 🟦\n', book);
    expect(doc.phases.map((p) => [p.name, p.status])).toEqual([['Outline', null], ['Shared', null], ['Whole - Book', null]]);
    expect(doc.batches[0].status).toBeNull();
    expect(doc.warnings.map((w) => w.line)).toEqual([1, 2, 4]);
  });

  // The asserted "batch 0" was the bug: a headingless table holds units of no batch.
  it('reads a table without a batch heading as units of no batch, never batch 0', () => {
    const doc = parseCheckpoint('## Phase 3: x\n| ch07 | ✅ | ❌ |\n', book);
    expect(doc.batches.map((b) => b.id)).toEqual([null]);
    expect(row(doc, 'ch07')?.claims).toMatchObject({ research: 'done', draft: 'failed' });
    expect(doc.warnings.every((w) => w.line === 2)).toBe(true);
    expect(doc.warnings.length).toBe(2); // no header, 3 cells for 9 columns
  });
});

describe('renderCheckpoint', () => {
  const doc = parseCheckpoint(SEED, book);
  const out = renderCheckpoint(doc, book);
  const lines = out.split('\n');

  it('re-parses to the same document', () => {
    expect(content(parseCheckpoint(out, book))).toEqual(content(doc));
    expect(parseCheckpoint(out, book).warnings).toEqual([]);
  });

  it('looks like the source document', () => {
    const src = SEED.split('\n');
    expect(lines.length).toBe(src.length);
    // Identical except the tables (the source misaligns its last three columns) and the
    // legend (the source writes a Japanese legend into a Chinese file).
    lines.forEach((l, i) => {
      if (!l.startsWith('|') && !l.startsWith('图例')) expect(l).toBe(src[i]);
    });
    expect(lines[12]).toBe('| 章节 | 研究 | 写作 | R1审查 | R2审查 | R3审查 | 合并审查 | 读者评审 | 长记忆更新 |');
    expect(lines[13]).toBe('|------|------|------|--------|--------|--------|----------|----------|------------|');
    expect(lines[21]).toBe('| ch03 | ✅   | ✅   | ⏳     | ❌     | ✅     | —        | —        | —          |');
    expect(lines[32]).toBe('图例: ✅完成 ⏳进行中 ❌失败 ⚠️需人工确认 — 未开始');
  });

  it('writes English and Japanese headings, and keeps CRLF and BOM', () => {
    const en = renderCheckpoint({ ...doc, lang: 'en', project: null, layout: { eol: '\r\n', bom: true } }, book);
    expect(en.startsWith('\uFEFF# Progress Checkpoint\r\n\r\nLast updated: 2026-11-28 14:03\r\nCurrent phase: 3\r\nCurrent batch: 2\r\n')).toBe(true);
    expect(en).toContain('\r\n## Phase 1: Outline — ✅ Done\r\n');
    expect(en).toContain('\r\n| Chapter | Research | Draft | R1 Review |');
    expect(en.replace(/\r\n/g, '')).not.toContain('\n');
    const ja = renderCheckpoint({ ...doc, lang: 'ja' }, book);
    expect(ja).toContain('\n## Phase 3: 章ごとの執筆 — ⏳ 進行中\n');
    expect(ja).toContain('\n### Batch 3 — 未着手\n');
    expect(ja).toContain('\n| 章   | 調査 | 執筆 | R1レビュー |');
    const back = parseCheckpoint(ja, book);
    expect(back.lang).toBe('ja');
    expect(back.batches.map((b) => b.rows.map((r) => r.claims))).toEqual(doc.batches.map((b) => b.rows.map((r) => r.claims)));
  });
});

describe('updateCheckpointCell', () => {
  const expectOnlyLineChanged = (before: string, after: string, lineNo: number): void => {
    const a = before.split('\n');
    const b = after.split('\n');
    expect(b.length).toBe(a.length);
    a.forEach((l, i) => (i === lineNo - 1 ? expect(b[i]).not.toBe(l) : expect(b[i]).toBe(l)));
  };

  it('changes exactly one cell of one row and keeps the row aligned', () => {
    const r = updateCheckpointCell(SEED, 'ch03', 'r1', 'done', book);
    expect(r).toMatchObject({ changed: true });
    expect(r.warning).toBeUndefined();
    expectOnlyLineChanged(SEED, r.text, 22);
    const before = splitRow(SEED.split('\n')[21]);
    const after = splitRow(r.text.split('\n')[21]);
    expect(after.map((c) => c.text)).toEqual(before.map((c, i) => (i === 3 ? '✅' : c.text)));
    expect(r.text.split('\n')[21]).toBe('| ch03 | ✅   | ✅   | ✅     | ❌     | ✅     | —       | —       | —         |');
    expect(row(parseCheckpoint(r.text, book), 'ch03')?.claims.r1).toBe('done');
  });

  it('widens a glyph cell into a dash cell without moving the next pipe', () => {
    const r = updateCheckpointCell(SEED, 'ch05', 'memory', 'needs_human', book);
    // `—` is one column wide and `⚠️` two: one padding space fewer keeps the pipe in place.
    expect(r.text.split('\n')[22]).toBe('| ch05 | ✅   | ⏳   | —      | —      | —      | —       | —       | ⚠️        |');
    expectOnlyLineChanged(SEED, r.text, 23);
  });

  it('preserves CRLF, BOM and every other byte', () => {
    const text = '\uFEFF' + SEED.replace(/\n/g, '\r\n');
    const r = updateCheckpointCell(text, 'ch06', 'research', 'in_progress', book);
    expect(r.changed).toBe(true);
    expect(r.text.startsWith('\uFEFF')).toBe(true);
    expect(r.text.replace('| ch06 | ⏳   |', '| ch06 | —    |')).toBe(text);
  });

  it('does nothing when the cell already holds the claim', () => {
    expect(updateCheckpointCell(SEED, 'ch03', 'r2', 'failed', book)).toEqual({ text: SEED, changed: false });
  });

  it('reports a missing unit or column so the caller can rewrite the file', () => {
    const noUnit = updateCheckpointCell(SEED, 'ch99', 'r1', 'done', book);
    expect(noUnit).toMatchObject({ text: SEED, changed: false });
    expect(noUnit.warning).toContain('ch99');
    const noCol = updateCheckpointCell(SEED, 'ch03', 'html', 'done', book);
    expect(noCol).toMatchObject({ text: SEED, changed: false });
    expect(noCol.warning).toContain('html');
    const short = updateCheckpointCell('### Batch 1\n| 章节 | 研究 | 写作 |\n| ch01 | ✅ |\n', 'ch01', 'draft', 'done', book);
    expect(short.changed).toBe(false);
    expect(short.warning).toContain('line 3');
  });

  it('touchLastUpdate rewrites only the value of the last-updated line', () => {
    const r = touchLastUpdate(SEED, '2026-11-29 09:15');
    expectOnlyLineChanged(SEED, r.text, 3);
    expect(r.text.split('\n')[2]).toBe('最后更新: 2026-11-29 09:15');
    const bold = touchLastUpdate('**Last updated:** 2020\r\nx', '2021');
    expect(bold).toEqual({ text: '**Last updated:** 2021\r\nx', changed: true });
    expect(touchLastUpdate('# nothing here\n', 'x')).toMatchObject({ changed: false, warning: expect.any(String) });
  });
});

describe('readCheckpoint / writeCheckpoint', () => {
  const withDir = async (fn: (dir: string) => Promise<void>): Promise<void> => {
    const dir = await mkdtemp(join(tmpdir(), 'checkroom-cp-'));
    try {
      await fn(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  it('returns null for a missing file and round-trips a written one', () =>
    withDir(async (dir) => {
      expect(await readCheckpoint(dir, book)).toBeNull();
      const text = '\uFEFF' + SEED.replace(/\n/g, '\r\n');
      await writeCheckpoint(dir, text);
      expect(await readFile(join(dir, 'checkpoint.md'), 'utf8')).toBe(text);
      const doc = await readCheckpoint(dir, book);
      expect(doc?.layout).toEqual({ eol: '\r\n', bom: true });
      expect(row(doc!, 'ch03')?.claims.r2).toBe('failed');
    }));

  it('reports binary files, directories and oversized files without throwing', () =>
    withDir(async (dir) => {
      await writeFile(join(dir, 'bin.md'), Buffer.from([0x23, 0x20, 0x00, 0x01]));
      const bin = await readCheckpoint(dir, book, 'bin.md');
      expect(bin?.warnings[0].message).toContain('NUL');
      await mkdir(join(dir, 'dir.md'));
      expect((await readCheckpoint(dir, book, 'dir.md'))?.warnings[0].message).toContain('directory');
      const big = SEED + 'x'.repeat(80) + '\n';
      await writeFile(join(dir, 'big.md'), big.repeat(Math.ceil((CHECKPOINT_MAX_BYTES + 10) / Buffer.byteLength(big))));
      const doc = await readCheckpoint(dir, book, 'big.md');
      expect(doc?.warnings[0].message).toContain('only the first');
      expect(row(doc!, 'ch03')?.claims.r1).toBe('in_progress');
    }));
});

describe('code blocks in checkpoint.md', () => {
  it('ignores an example table inside a fence, and a one-cell update leaves it alone', async () => {
    const { parseCheckpoint } = await import('../../../src/checkpoint/parse.js');
    const { updateCheckpointCell } = await import('../../../src/checkpoint/update-cell.js');
    const { bookPreset } = await import('../../../src/pipeline/book-preset.js');
    const text = [
      '# B — Progress Checkpoint',
      '',
      'Example:',
      '```',
      '| Chapter | Research | Draft |',
      '|---|---|---|',
      '| ch01 | ⏳ | — |',
      '```',
      '',
      '### Batch 1',
      '| Chapter | Research | Draft |',
      '|---|---|---|',
      '| ch01 | ✅ | ✅ |',
      '',
    ].join('\n');
    const doc = parseCheckpoint(text, bookPreset());
    const rows = doc.batches.flatMap((b) => b.rows);
    expect(rows).toHaveLength(1);
    expect(rows[0].claims).toMatchObject({ research: 'done', draft: 'done' });
    const edit = updateCheckpointCell(text, 'ch01', 'draft', 'failed', bookPreset());
    expect(edit.changed).toBe(true);
    expect(edit.text.split('\n')[6]).toBe('| ch01 | ⏳ | — |');
    expect(edit.text.split('\n')[12]).toContain('❌');
  });
});
