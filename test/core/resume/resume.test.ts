import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../../src/workspace.js';
import type { WorkspaceState } from '../../../src/types.js';
import { buildResume } from '../../../src/resume/build.js';
import { parseResume } from '../../../src/resume/parse.js';
import { resumeFacts } from '../../../src/resume/facts.js';
import { compareResume, resumeDrift, writeResume } from '../../../src/resume/io.js';
import { milestoneReached } from '../../../src/resume/milestone.js';
import { SOURCE_CHECKPOINT } from '../../helpers/source-example.js';
import { DEMO, PHASE_1_2, copyDemo, doneFile, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// RESUME.md, the letter to the next session (DOMAIN.md section 6, seed 000_… section 7).

const NOW = new Date(2026, 10, 30, 9, 15);
const STEPS = ['research', 'draft', 'r1', 'r2', 'r3', 'review', 'panel'];

/** The source document's checkpoint with the disk the README of the demo describes for ch03/ch05. */
function midFlight(checkpoint = SOURCE_CHECKPOINT): string {
  const root = tempDir();
  const files: Record<string, string> = { ...PHASE_1_2, 'checkpoint.md': checkpoint, 'meta/chapter-summaries.md': summaries(['ch01', 'ch02', 'ch04']) };
  for (const u of ['ch01', 'ch02', 'ch04']) for (const s of STEPS) Object.assign(files, Object.fromEntries([doneFile(u, s)]));
  Object.assign(files, Object.fromEntries([doneFile('ch03', 'research'), doneFile('ch03', 'draft'), doneFile('ch03', 'r1'), doneFile('ch03', 'r3'), doneFile('ch05', 'research')]));
  files['drafts/ch05-draft.md'] = '# ch05\n\n写到一半';
  writeFiles(root, files);
  return root;
}

const facts = (s: WorkspaceState) => {
  const f = resumeFacts(s);
  return { phase: f.phase, batch: f.batch, done: f.done, inProgress: f.inProgress, notStarted: f.notStarted, unfinished: f.unfinished.map(({ unit, step, status }) => ({ unit, step, status })) };
};

describe('buildResume / parseResume', () => {
  it('writes the seed template in Chinese and reads back exactly the facts it states', async () => {
    const root = midFlight();
    const state = await loadWorkspace(root);
    const text = buildResume(state, { now: NOW });
    for (const h of ['## 项目概述', '## 当前进度', '## 未完成任务', '## 已知问题', '## 关键决策历史', '## 下一步操作', '## 重要文件位置']) expect(text).toContain(h);
    expect(text).toContain('生成时间: 2026-11-30 09:15');
    expect(text).toContain('1. ch03 r2 — 状态: ❌ failed — 优先级: 高');
    expect(text).toContain('- 当前Phase: Phase 3 逐章写作');
    const parsed = parseResume(text);
    const { generatedAt, ...rest } = parsed;
    expect(generatedAt).toBe('2026-11-30 09:15');
    expect(rest).toEqual(facts(state));
    // And the facts are the disk's, not the checkpoint's.
    expect(parsed.done).toEqual(['ch01', 'ch02', 'ch04']);
    expect(parsed.inProgress).toEqual(['ch03', 'ch05']);
    expect(parsed.notStarted).toEqual(['ch06']);
    expect(parsed.unfinished).toContainEqual({ unit: 'ch05', step: 'draft', status: 'partial' });
    expect(parsed.unfinished.some((t) => t.unit === 'ch03' && t.step === 'r1')).toBe(false); // R1 is done on disk
  });

  it('round-trips in English and Japanese too, and takes decisions and breakers from the journal', async () => {
    const root = midFlight();
    const state = await loadWorkspace(root);
    const decisions = [{ v: 1 as const, at: NOW.getTime() - 3600_000, type: 'decision' as const, kind: 'backup' as const, unit: 'ch05', step: 'draft', path: 'drafts/ch05-draft.md', backupPath: 'drafts/ch05-draft.md.bak.20261130-081500', note: 'cut off mid-code-block' }];
    for (const lang of ['en', 'ja'] as const) {
      const text = buildResume(state, { now: NOW, lang, decisions, breakers: [{ agent: 'writer', detail: 'open after 3 consecutive failures' }] });
      const { generatedAt: _g, ...rest } = parseResume(text);
      expect(rest).toEqual(facts(state));
      expect(text).toContain('drafts/ch05-draft.md.bak.20261130-081500');
      expect(text).toContain(lang === 'en' ? 'breaker writer: open after 3 consecutive failures' : 'ブレーカー writer：open after 3 consecutive failures');
    }
    expect(buildResume(state, { now: NOW, lang: 'en' })).toContain('## Unfinished tasks\n1. ch03 r2 — status: ❌ failed — priority: high');
    expect(buildResume(state, { now: NOW, lang: 'ja' })).toContain('## 未完了タスク');
  });

  it('lists the known issues with their impact', async () => {
    const root = midFlight();
    const text = buildResume(await loadWorkspace(root), { now: NOW });
    const issues = text.split('## 已知问题\n')[1].split('\n## ')[0];
    expect(issues).toContain('ch03 r2 ❌ 失败 — 影响: 阻塞 ch03 的 5 个后续步骤');
    expect(issues).toMatch(/drafts\/ch05-draft\.md: 几乎肯定是半成品（只有 \d+ 个字符.*） — 影响: ch05 draft 需处理后才能继续/);
    expect(issues).toMatch(/checkpoint\.md 与磁盘不一致 ×\d+（.*ch03 r1: ⏳ → 已完成/);
  });

  it('gives every reason in the language of the letter, the English ones only in English', async () => {
    // Sentences only the English catalog says (reasons/en.ts): none may leak into zh or ja.
    const english = /\b(characters|no marker|back up and redo|blocks \d|nothing downstream|ready:|is cut off|has no entry|the entry is missing|marked bad work|needs a human)\b/;
    const state = await loadWorkspace(copyDemo());
    for (const lang of ['zh', 'ja'] as const) {
      const text = buildResume(state, { now: NOW, lang });
      const body = ['## 已知问题', '## 既知の問題'].map((h) => text.split(`${h}\n`)[1]).find(Boolean) ?? text;
      expect(body.match(english), `${lang}: ${body.match(english)?.[0]}`).toBeNull();
    }
    const en = buildResume(state, { now: NOW, lang: 'en' });
    expect(en).toMatch(english);
    // The demo's findings, said in Chinese: a cut-off code block, a short research file,
    // a failed review that blocks its chapter, the missing long-memory entry.
    const zh = buildResume(state, { now: NOW, lang: 'zh' });
    expect(zh).toContain('代码块开了头却没有闭合');
    expect(zh).toMatch(/只有 \d+ 个字符（不足 100）且没有标记/);
    expect(zh).toMatch(/ch03 r2 失败；阻塞 ch03 的 \d+ 个后续步骤/);
    expect(zh).toContain('checkpoint.md 标为已完成，但条目不存在');
  });

  it('says phase names, the workspace and its own decision notes in the language of the letter; consent bookkeeping is no key decision', async () => {
    const root = copyDemo();
    rmSync(join(root, 'source-map.md'));
    const at = NOW.getTime() - 60_000;
    const decisions = [
      { v: 1 as const, at, type: 'decision' as const, kind: 'redo' as const, unit: 'ch05', step: 'draft', path: 'drafts/ch05-draft.md', backupPath: 'drafts/ch05-draft.md.bak.20261130-081500', note: 'backed up and queued for relaunch' },
      { v: 1 as const, at, type: 'decision' as const, kind: 'command_shown' as const, note: 'command shown: agents 0123abcd' },
    ];
    const state = await loadWorkspace(root);
    const zh = buildResume(state, { now: NOW, lang: 'zh', decisions });
    expect(zh).toMatch(/\d+\. 工作区: 重建长记忆 — Phase 1 大纲定稿：缺少 source-map\.md/);
    expect(zh).toContain('重做 ch05 draft drafts/ch05-draft.md: 已备份并排队重做; → drafts/ch05-draft.md.bak.20261130-081500');
    expect(zh).not.toContain('command shown');
    const ja = buildResume(state, { now: NOW, lang: 'ja', decisions });
    expect(ja).toMatch(/\d+\. ワークスペース: 長期記憶を再構築する — Phase 1 アウトライン確定：source-map\.md がない/);
    expect(ja).toContain('バックアップして再実行待ちに追加');
    expect(ja).not.toContain('半成品');
  });
});

describe('writeResume / resumeDrift', () => {
  it('writes atomically and backs up the letter it replaces', async () => {
    const root = midFlight();
    const state = await loadWorkspace(root);
    writeFileSync(join(root, 'RESUME.md'), 'the old letter\n');
    const r = await writeResume(root, state, { now: NOW });
    expect(r.backup).toMatch(/^RESUME\.md\.bak\.\d{8}-\d{6}$/);
    expect(readFileSync(join(root, r.backup!), 'utf8')).toBe('the old letter\n');
    expect(readFileSync(join(root, 'RESUME.md'), 'utf8')).toBe(r.text);
    expect(readdirSync(root).filter((f) => f.includes('.tmp'))).toEqual([]);
    const drift = await resumeDrift(root, state, { now: NOW.getTime() + 90 * 60_000 });
    expect(drift).toMatchObject({ exists: true, ageMs: 90 * 60_000, generatedAt: '2026-11-30 09:15', disagreements: [] });
  });

  it('says where the demo RESUME.md no longer agrees with the disk', async () => {
    const root = copyDemo();
    const state = await loadWorkspace(root);
    const drift = await resumeDrift(root, state, { now: new Date(2026, 10, 30, 18, 40).getTime() });
    expect(drift.exists).toBe(true);
    expect(drift.generatedAt).toBe('2026-11-27 18:40');
    expect(drift.ageMs).toBe(3 * 24 * 3600_000);
    expect(drift.disagreements).toContain('RESUME.md says ch03 r1 is not started; disk shows it done');
    expect(drift.disagreements).toContain('RESUME.md says ch05 draft is not started; disk shows it partial');
    expect(drift.disagreements).toContain('RESUME.md says ch02 is done; disk shows it in progress');
    expect(drift.disagreements).toContain('RESUME.md says ch06 research is running; disk shows it done');
    // The committed demo itself stays stale on purpose.
    expect(readFileSync(join(DEMO, 'RESUME.md'), 'utf8')).toContain('生成时间: 2026-11-27 18:40');
  });

  it('says a status in words, not a raw value as an adjective ("is needs human")', async () => {
    const state = await loadWorkspace(DEMO);
    const cell = (u: string, st: string) => state.cells.find((c) => c.unit === u && c.step === st)!;
    const escalated = { ...state, cells: state.cells.map((c) => (c === cell('ch03', 'r3') ? { ...c, status: 'needs_human' as const } : c)) };
    const parsed = { generatedAt: null, phase: null, batch: null, done: [], inProgress: [], notStarted: [] };
    expect(compareResume({ ...parsed, unfinished: [{ unit: 'ch03', step: 'r1', status: 'needs_human' }] }, state)).toEqual([
      'RESUME.md says ch03 r1 needs a human; disk shows it done',
    ]);
    expect(compareResume({ ...parsed, unfinished: [{ unit: 'ch03', step: 'r3', status: 'running' }] }, escalated)).toEqual([
      'RESUME.md says ch03 r3 is running; it is escalated and needs a human',
    ]);
    expect(compareResume({ ...parsed, unfinished: [{ unit: 'ch03', step: 'r1', status: 'failed' }] }, state)).toEqual(['RESUME.md says ch03 r1 failed; disk shows it done']);
  });

  it('reports a missing letter as missing', async () => {
    const root = midFlight();
    expect(await resumeDrift(root, await loadWorkspace(root))).toMatchObject({ exists: false, ageMs: null, disagreements: [] });
  });
});

describe('milestoneReached', () => {
  it('fires when a batch completes and when the phase changes, not on an ordinary step', async () => {
    const root = midFlight();
    const a = await loadWorkspace(root);
    writeFiles(root, Object.fromEntries([doneFile('ch05', 'r1')])); // nothing completes
    expect(milestoneReached(a, await loadWorkspace(root))).toBeNull();
    // Finish batch 2 (ch03, ch05).
    const files: Record<string, string> = { 'meta/chapter-summaries.md': summaries(['ch01', 'ch02', 'ch04', 'ch03', 'ch05']) };
    for (const u of ['ch03', 'ch05']) for (const s of STEPS) Object.assign(files, Object.fromEntries([doneFile(u, s)]));
    writeFiles(root, files);
    const b = await loadWorkspace(root);
    expect(milestoneReached(a, b)).toBe('Batch 2 complete');
    // Finish ch06 (batch 3): phase 3 is done, phase 4 begins.
    const more: Record<string, string> = { 'meta/chapter-summaries.md': summaries(['ch01', 'ch02', 'ch04', 'ch03', 'ch05', 'ch06']) };
    for (const s of STEPS) Object.assign(more, Object.fromEntries([doneFile('ch06', s)]));
    writeFiles(root, more);
    expect(milestoneReached(b, await loadWorkspace(root))).toBe('phase changed: Phase 3 → Phase 4');
  });

  it('does not fire on a checkpoint.md edited into a stray table (rows regrouped, no real progress)', async () => {
    const root = copyDemo();
    const a = await loadWorkspace(root);
    writeFileSync(join(root, 'checkpoint.md'), '| ch05 | ✅ | ✅ |\n');
    const b = await loadWorkspace(root);
    expect(milestoneReached(a, b)).toBeNull();
    writeFileSync(join(root, 'checkpoint.md'), '| ch01 | ✅ | ✅ |\n');
    expect(milestoneReached(b, await loadWorkspace(root))).toBeNull();
  });

  it('does not fire when the phase goes back (an outline moved away by a checkout or a rename)', async () => {
    const root = midFlight();
    const a = await loadWorkspace(root);
    expect(a.currentPhase).toBe(3);
    renameSync(join(root, 'outline-final.md'), join(root, 'outline-final.md.moved'));
    const back = await loadWorkspace(root);
    expect(back.currentPhase).toBeLessThan(3);
    expect(milestoneReached(a, back)).toBeNull();
    // Moving it back is not progress either: the same phase as before the rename.
    renameSync(join(root, 'outline-final.md.moved'), join(root, 'outline-final.md'));
    const again = await loadWorkspace(root);
    expect(again.currentPhase).toBe(3);
    expect(milestoneReached(a, again)).toBeNull();
  });
});
