import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rewriteCheckpoint } from '../../../src/checkpoint/rewrite.js';
import { parseCheckpoint } from '../../../src/checkpoint/parse.js';
import { loadConfig } from '../../../src/pipeline/config/load.js';
import { bookPreset } from '../../../src/pipeline/book-preset.js';
import { reviseCheckpoint } from '../../../src/checkpoint/revise.js';
import { markCell } from '../../../src/run/attempt/launch-checkpoint.js';
import { claimsOf } from '../../../src/state/derive.js';
import { doneFile, PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 17 item 2: a checkpoint rewrite (`checkpoint --write`, `recover`, the room's `w`)
// rebuilt the file from what checkroom reads and dropped the operator's own text: a
// blockquote between phases, a trailing `## 决策记录` section, the file's labels (現在のフェーズ
// became 現在のPhase) and a column it did not know (リサーチ). Only the owned spans change now.

const at = new Date(2026, 10, 30, 5, 12, 0);
const base = { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) };

const ZH = [
  '# 示例书 — 项目进度检查点',
  '最后更新: 2026-11-28 14:03',
  '当前Phase: 3',
  '当前批次: Batch 1',
  '',
  '## Phase 1: 大纲定稿 — ✅ 完成',
  '## Phase 2: 共享资源构建 — ✅ 完成',
  '',
  '> 备注: 第 3 章的 R2 等作者回复后再跑,别自动重试。',
  '> (operator, 11-28)',
  '',
  '## Phase 3: 逐章写作 — ⏳ 进行中',
  '### Batch 1',
  '| 章节 | 研究 | 写作 |',
  '|------|------|------|',
  '| ch01 | ⏳   | —    |',
  '| ch02 | ✅   | —    |',
  '',
  '## 决策记录',
  '',
  '- 11-27: ch02 的比喻改用"图书馆",见 metaphor-registry。',
  '- 11-28: 批次 2 推迟到周一。',
  '',
].join('\n');

async function rewritten(files: Record<string, string>): Promise<{ dir: string; text: string }> {
  const dir = tempDir();
  writeFiles(dir, { ...base, ...files });
  const { text } = await rewriteCheckpoint(dir, at);
  expect(readFileSync(join(dir, 'checkpoint.md'), 'utf8')).toBe(text);
  return { dir, text };
}

describe('a checkpoint rewrite keeps the operator text (issue 17 item 2)', () => {
  it('keeps a trailing ## 决策记录 section byte for byte, at the end', async () => {
    const { text } = await rewritten({ ...Object.fromEntries([doneFile('ch01', 'research'), doneFile('ch02', 'research')]), 'checkpoint.md': ZH });
    const tail = ZH.slice(ZH.indexOf('## 决策记录'));
    expect(text.endsWith(tail)).toBe(true);
    // The cell the disk proves changed, in place.
    expect(text).toContain('| ch01 | ✅   | —    |');
  });

  it('keeps a blockquote between phases in its place', async () => {
    const { text } = await rewritten({ ...Object.fromEntries([doneFile('ch01', 'research')]), 'checkpoint.md': ZH });
    const lines = text.split('\n');
    const quote = lines.indexOf('> 备注: 第 3 章的 R2 等作者回复后再跑,别自动重试。');
    expect(quote).toBeGreaterThan(lines.findIndex((l) => l.startsWith('## Phase 2')));
    expect(quote).toBeLessThan(lines.findIndex((l) => l.startsWith('## Phase 3')));
    expect(lines[quote + 1]).toBe('> (operator, 11-28)');
  });

  it('keeps a Japanese file its own labels: 現在のフェーズ stays, and is read', async () => {
    const ja = [
      '# 本 — 進捗チェックポイント',
      '最終更新: 2026-11-28 14:03',
      '現在のフェーズ: 2',
      '現在のバッチ: Batch 1',
      '',
      '## Phase 3: 章ごとの執筆 — ⏳ 進行中',
      '### Batch 1',
      '| 章 | 調査 | 執筆 |',
      '|----|------|------|',
      '| ch01 | ⏳ | — |',
      '',
    ].join('\n');
    const { text } = await rewritten({ ...Object.fromEntries([doneFile('ch01', 'research')]), 'checkpoint.md': ja });
    expect(text).toContain('現在のフェーズ: 3');
    expect(text).not.toContain('現在のPhase');
    expect(text.split('\n').slice(0, 4)).toEqual(['# 本 — 進捗チェックポイント', '最終更新: 2026-11-30 05:12', '現在のフェーズ: 3', '現在のバッチ: Batch 1']);
  });

  it('keeps an unknown リサーチ column with its cells', async () => {
    const ja = [
      '# 本 — 進捗チェックポイント',
      '最終更新: 2026-11-28 14:03',
      '',
      '### Batch 1',
      '| 章 | リサーチ | 調査 | 執筆 |',
      '|----|----------|------|------|',
      '| ch01 | 田中 済 | ⏳ | — |',
      '| ch02 | 未定 | — | — |',
      '',
    ].join('\n');
    const { text } = await rewritten({ ...Object.fromEntries([doneFile('ch01', 'research')]), 'checkpoint.md': ja });
    expect(text).toContain('| 章 | リサーチ | 調査 | 執筆 |');
    expect(text).toContain('| ch01 | 田中 済 | ✅ | — |');
    expect(text).toContain('| ch02 | 未定 | — | — |');
  });

  it('keeps a リサーチ column that checkroom.yaml names as the research step, and its claims are read', async () => {
    const yaml = 'preset: book\nsteps:\n  - id: research\n    aliases: [研究, Research, 調査, リサーチ]\n';
    const ja = ['# 本 — 進捗チェックポイント', '最終更新: 2026-11-28 14:03', '', '### Batch 1', '| 章 | リサーチ | 執筆 |', '|----|----------|------|', '| ch01 | ⏳ | — |', '| ch02 | — | — |', ''].join('\n');
    const { dir, text } = await rewritten({ 'checkroom.yaml': yaml, ...Object.fromEntries([doneFile('ch01', 'research')]), 'checkpoint.md': ja });
    expect(text).toContain('| 章 | リサーチ | 執筆 |');
    const pipeline = (await loadConfig(dir)).pipeline;
    const claims = claimsOf(parseCheckpoint(text, pipeline));
    expect(claims.get('ch01/research')).toBe('done');
    expect(claims.get('ch02/research')).toBe('not_started');
  });

  it('keeps a BOM, CRLF line ends and a last line without a line end', async () => {
    const crlf = '\uFEFF' + ZH.replace(/\n$/, '').replace(/\n/g, '\r\n');
    const { text } = await rewritten({ ...Object.fromEntries([doneFile('ch01', 'research')]), 'checkpoint.md': crlf });
    expect(text.startsWith('\uFEFF# 示例书')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    expect(text.endsWith('- 11-28: 批次 2 推迟到周一。')).toBe(true);
  });

  it('writes the cells a short row lacks, and puts a new batch in number order', () => {
    const book = bookPreset();
    const old = ['# B — Progress Checkpoint', 'Last updated: x', '', '### Batch 2', '| Chapter | Research | Draft |', '|---|---|---|', '| ch02 | ✅ |', '', '> keep', ''].join('\n');
    const want = parseCheckpoint(old, book);
    want.lastUpdate = 'x';
    want.batches[0].rows[0].claims = { research: 'done', draft: 'in_progress' };
    want.batches.unshift({ id: 1, status: null, columns: ['research', 'draft'], rows: [{ unit: 'ch01', claims: { research: 'done', draft: 'done' }, line: 0 }], line: 0 });
    const out = reviseCheckpoint(old, want, book);
    expect(out.split('\n')).toEqual([
      '# B — Progress Checkpoint',
      'Last updated: x',
      '',
      '### Batch 1',
      '| Chapter | Research | Draft |',
      '|---|---|---|',
      '| ch01 | ✅ | ✅ |',
      '',
      '### Batch 2',
      '| Chapter | Research | Draft |',
      '|---|---|---|',
      '| ch02 | ✅ | ⏳ |',
      '',
      '> keep',
      '',
    ]);
  });

  it('writes a status in the form the line had: a bare glyph, a bare word, or both', () => {
    const book = bookPreset();
    const old = ['# 书 — 项目进度检查点', '## Phase 1: 大纲定稿 — ⏳', '## Phase 2: 共享资源构建 — 进行中', '## Phase 3: 逐章写作 — ⏳ 进行中', '### Batch 1 — 未开始', '| 章节 | 研究 |', '|---|---|', '| ch01 | ✅ |', ''].join('\n');
    const want = parseCheckpoint(old, book);
    for (const p of want.phases) p.status = 'done';
    want.batches[0].status = 'failed';
    expect(reviseCheckpoint(old, want, book).split('\n').slice(1, 5)).toEqual(['## Phase 1: 大纲定稿 — ✅', '## Phase 2: 共享资源构建 — 完成', '## Phase 3: 逐章写作 — ✅ 完成', '### Batch 1 — 失败']);
  });

  it('gives a narrow table the step columns of its batch, in pipeline order, keeping its own columns', () => {
    const book = bookPreset();
    const old = ['# 书 — 项目进度检查点', '### Batch 1', '| 章节 | 研究 | 写作 | R1审查 |', '|---|---|---|---|', '| ch01 | ✅ | ✅ | ⏳ |', '', '### Batch 2', '| 章节 | 备注 | 研究 |', '|------|------|------|', '| ch03 | 田中 | ✅ |', '> keep', ''].join('\n');
    const want = parseCheckpoint(old, book);
    want.batches[1].columns = ['research', 'draft', 'r1'];
    want.batches[1].rows[0].claims = { research: 'done', draft: 'done', r1: 'in_progress' };
    const out = reviseCheckpoint(old, want, book);
    expect(out.split('\n').slice(7, 11)).toEqual(['| 章节 | 备注 | 研究 | 写作 | R1审查 |', '|------|------|------|------|--------|', '| ch03 | 田中 | ✅ | ✅   | ⏳     |', '> keep']);
    expect(out.split('\n').slice(0, 7)).toEqual(old.split('\n').slice(0, 7));
    const back = parseCheckpoint(out, book);
    expect(back.batches[1].rows[0]).toMatchObject({ claims: { research: 'done', draft: 'done', r1: 'in_progress' }, extra: { 备注: '田中' } });
  });

  it('a launch into a narrow table gets its cell: the column is added in place, the notes stay', async () => {
    const cp = ['# 书 — 项目进度检查点', '最后更新: 2026-11-28 14:03', '', '### Batch 1', '| 章节 | 研究 | 写作 |', '|---|---|---|', '| ch01 | ✅ | ✅ |', '', '### Batch 2', '| 章节 | 研究 |', '|---|---|', '| ch03 | ✅ |', '', '> 备注: ch03 等作者', ''].join('\n');
    const dir = tempDir();
    writeFiles(dir, { ...base, ...Object.fromEntries([doneFile('ch01', 'research'), doneFile('ch01', 'draft'), doneFile('ch03', 'research')]), 'checkpoint.md': cp });
    const config = await loadConfig(dir);
    const r = await markCell(dir, config, 'ch03', 'draft', 'in_progress', at.getTime());
    expect(r.changed).toBe(true);
    expect(r.rebuilt).not.toContain('still');
    const text = readFileSync(join(dir, 'checkpoint.md'), 'utf8');
    expect(claimsOf(parseCheckpoint(text, config.pipeline)).get('ch03/draft')).toBe('in_progress');
    expect(text.endsWith('\n\n> 备注: ch03 等作者\n')).toBe(true);
    expect(text).toContain('### Batch 2\n| 章节 | 研究 | 写作 |\n|---|---|------|\n| ch03 | ✅ | ⏳   |\n');
  });
});
