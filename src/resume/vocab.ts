import type { CellStatus, DiskState, Lang, PlanAction, Verdict } from '../types.js';

// RESUME.md vocabulary. Chinese is the source document's own template (docs/domain.md, RESUME.md;
// its "RESUME.md模板"), heading for heading; English and Japanese say the same in the same order.
// The parser accepts every language's labels, so a letter stays readable after a switch.

export interface ResumeVocab {
  title: string;
  generatedAt: string;
  generatedBy: string;
  generator: string;
  overview: string;
  progress: string;
  unfinished: string;
  issues: string;
  decisions: string;
  next: string;
  files: string;
  project: string;
  source: string;
  sourceValue: (file: string) => string;
  unitCount: string;
  workdir: string;
  phase: string;
  batch: string;
  done: string;
  inProgress: string;
  notStarted: string;
  status: string;
  priority: string;
  impact: string;
  prio: Record<1 | 2 | 3, string>;
  none: string;
  more: (n: number) => string;
  readCheckpoint: string;
  detectPartials: string;
  noDecisions: string;
  noIssues: string;
  allPhasesDone: string;
  action: Record<PlanAction, string>;
  decisionKind: Record<string, string>;
  impactBlocks: (unit: string, n: number) => string;
  impactNothing: string;
  impactPartial: (unit: string, step: string) => string;
  impactSuspect: string;
  impactStale: string;
  impactMemory: string;
  impactTodos: string;
  impactBreaker: string;
  checkpointLabel: string;
  sharedLabel: string;
  /** Status, disk state and verdict words of the known-issues lines. */
  statusWord: Record<CellStatus | DiskState, string>;
  verdict: Record<Verdict, string>;
  /** `maybe_complete (why)`: the why gives the size. */
  partial: (verdict: string, why: string) => string;
  /** `suspicious (why)`. */
  suspect: (why: string) => string;
  /** `checkpoint.md ≠ disk ×4 (list)`. */
  differs: (what: string, n: number, list: string) => string;
  breaker: (agent: string, detail: string) => string;
  /** A plan entry about the whole workspace (a phase's shared files). */
  workspace: string;
  /** checkroom's own decision notes (journal), said in this language; others as written. */
  decisionNote: (note: string) => string;
}

const ACTIONS_EN: Record<PlanAction, string> = {
  retry: 'retry',
  human_review: 'human review',
  backup_redo: 'back up and redo',
  decide: 'decide: keep (append the marker) or redo',
  run: 'run',
  complete_phase: 'complete the phase',
  rebuild_memory: 'rebuild long memory',
};

/** The notes checkroom itself writes on decisions (store-triage.ts, supervisor*.ts), in Chinese and Japanese. */
const NOTES: { re: RegExp; zh: (m: RegExpExecArray) => string; ja: (m: RegExpExecArray) => string }[] = [
  { re: /^backed up and queued for relaunch$/, zh: () => '已备份并排队重做', ja: () => 'バックアップして再実行待ちに追加' },
  { re: /^backed up by the operator$/, zh: () => '由操作者备份', ja: () => 'オペレーターがバックアップ' },
  { re: /^marker (.*) appended$/, zh: (m) => `补上标记 ${m[1]}`, ja: (m) => `マーカー ${m[1]} を追記` },
  { re: /^undo: moved back under its name$/, zh: () => '撤销：恢复原文件名', ja: () => '取り消し：元の名前に戻した' },
  { re: /^before attempt (\d+)$/, zh: (m) => `第 ${m[1]} 次尝试之前`, ja: (m) => `${m[1]} 回目の試行の前` },
  { re: /^relaunched by the operator$/, zh: () => '由操作者重新启动', ja: () => 'オペレーターが再実行' },
  { re: /^reset by the operator$/, zh: () => '由操作者重置', ja: () => 'オペレーターがリセット' },
];
const noteIn = (lang: 'zh' | 'ja') => (note: string): string => {
  for (const n of NOTES) {
    const m = n.re.exec(note);
    if (m) return n[lang](m);
  }
  return note;
};

export const RESUME_VOCAB: Record<Lang, ResumeVocab> = {
  zh: {
    title: '恢复指南',
    generatedAt: '生成时间',
    generatedBy: '生成者',
    generator: '上一次编排会话（checkroom 根据磁盘生成）',
    overview: '项目概述',
    progress: '当前进度',
    unfinished: '未完成任务',
    issues: '已知问题',
    decisions: '关键决策历史',
    next: '下一步操作',
    files: '重要文件位置',
    project: '项目',
    source: '源码',
    sourceValue: (f) => `见 ${f}`,
    unitCount: '章节数',
    workdir: '工作目录',
    phase: '当前Phase',
    batch: '当前批次',
    done: '已完成章节',
    inProgress: '进行中章节',
    notStarted: '未开始章节',
    status: '状态',
    priority: '优先级',
    impact: '影响',
    prio: { 1: '高', 2: '中', 3: '低' },
    none: '无',
    more: (n) => `… 另有 ${n} 项（见 checkroom plan）`,
    readCheckpoint: '读取 checkpoint.md 确认进度',
    detectPartials: '检测半成品文件',
    noDecisions: '无（日志中没有决策记录）',
    noIssues: '无',
    allPhasesDone: '全部完成',
    action: { retry: '重试', human_review: '人工审查', backup_redo: '备份后重做', decide: '人工决定：补标记或重做', run: '执行', complete_phase: '完成本阶段', rebuild_memory: '重建长记忆' },
    decisionKind: { backup: '备份', keep: '保留（补标记）', redo: '重做', restore: '恢复备份', reset_cell: '重置计数', skip: '跳过' },
    impactBlocks: (u, n) => `阻塞 ${u} 的 ${n} 个后续步骤`,
    impactNothing: '不阻塞后续步骤',
    impactPartial: (u, s) => `${u} ${s} 需处理后才能继续`,
    impactSuspect: '有标记但内容可疑，下游可能基于错误内容',
    impactStale: 'checkpoint.md 已过时，以磁盘为准',
    impactMemory: '后续章节会读到不完整的长记忆',
    impactTodos: 'todo 表与磁盘不一致，以标记为准',
    impactBreaker: '该 agent 暂停派发',
    checkpointLabel: '检查点',
    sharedLabel: '共享资源',
    statusWord: { done: '已完成', partial: '半成品', running: '运行中', failed: '失败', needs_human: '需人工处理', not_started: '未开始', missing: '不存在', unreadable: '无法读取' },
    verdict: { almost_certainly_partial: '几乎肯定是半成品', truncated: '被截断', maybe_complete: '可能已完成（只缺标记）', suspicious: '可疑' },
    partial: (v, why) => `${v}（${why}）`,
    suspect: (why) => `可疑（${why}）`,
    differs: (what, n, list) => `${what} 与磁盘不一致 ×${n}（${list}）`,
    breaker: (a, d) => `熔断器 ${a}：${d}`,
    workspace: '工作区',
    decisionNote: noteIn('zh'),
  },
  en: {
    title: 'Resume Guide',
    generatedAt: 'Generated',
    generatedBy: 'Generated by',
    generator: 'the previous orchestration session (checkroom, from the disk)',
    overview: 'Project overview',
    progress: 'Current progress',
    unfinished: 'Unfinished tasks',
    issues: 'Known issues',
    decisions: 'Key decisions',
    next: 'Next steps',
    files: 'Important files',
    project: 'Project',
    source: 'Source',
    sourceValue: (f) => `see ${f}`,
    unitCount: 'Chapters',
    workdir: 'Working directory',
    phase: 'Current phase',
    batch: 'Current batch',
    done: 'Done chapters',
    inProgress: 'In-progress chapters',
    notStarted: 'Not-started chapters',
    status: 'status',
    priority: 'priority',
    impact: 'impact',
    prio: { 1: 'high', 2: 'medium', 3: 'low' },
    none: 'none',
    more: (n) => `… ${n} more (see checkroom plan)`,
    readCheckpoint: 'Read checkpoint.md to confirm progress',
    detectPartials: 'Detect half-products',
    noDecisions: 'none (no decision in the journal)',
    noIssues: 'none',
    allPhasesDone: 'all done',
    action: ACTIONS_EN,
    decisionKind: { backup: 'backup', keep: 'keep (append the marker)', redo: 'redo', restore: 'restore a backup', reset_cell: 'reset the counters', skip: 'skip' },
    impactBlocks: (u, n) => `blocks ${n} later step${n === 1 ? '' : 's'} of ${u}`,
    impactNothing: 'blocks nothing downstream',
    impactPartial: (u, s) => `${u} ${s} must be handled before it can continue`,
    impactSuspect: 'marked but suspicious: later steps may build on bad work',
    impactStale: 'checkpoint.md is stale; the disk decides',
    impactMemory: 'later chapters read incomplete long memory',
    impactTodos: 'the todo table disagrees with the disk; the markers decide',
    impactBreaker: 'this agent is not dispatched',
    checkpointLabel: 'Checkpoint',
    sharedLabel: 'Shared resources',
    statusWord: { done: 'done', partial: 'partial', running: 'running', failed: 'failed', needs_human: 'needs_human', not_started: 'not_started', missing: 'missing', unreadable: 'unreadable' },
    verdict: { almost_certainly_partial: 'almost_certainly_partial', truncated: 'truncated', maybe_complete: 'maybe_complete', suspicious: 'suspicious' },
    partial: (v, why) => `${v} (${why})`,
    suspect: (why) => `suspicious (${why})`,
    differs: (what, n, list) => `${what} ≠ disk ×${n} (${list})`,
    breaker: (a, d) => `breaker ${a}: ${d}`,
    workspace: 'workspace',
    decisionNote: (note) => note,
  },
  ja: {
    title: '再開ガイド',
    generatedAt: '生成日時',
    generatedBy: '生成者',
    generator: '前回のオーケストレーションセッション（checkroom がディスクから生成）',
    overview: 'プロジェクト概要',
    progress: '現在の進捗',
    unfinished: '未完了タスク',
    issues: '既知の問題',
    decisions: '重要な決定の履歴',
    next: '次の操作',
    files: '重要ファイルの場所',
    project: 'プロジェクト',
    source: 'ソース',
    sourceValue: (f) => `${f} を参照`,
    unitCount: '章数',
    workdir: '作業ディレクトリ',
    phase: '現在のPhase',
    batch: '現在のバッチ',
    done: '完了した章',
    inProgress: '進行中の章',
    notStarted: '未着手の章',
    status: '状態',
    priority: '優先度',
    impact: '影響',
    prio: { 1: '高', 2: '中', 3: '低' },
    none: 'なし',
    more: (n) => `… ほか ${n} 件（checkroom plan を参照）`,
    readCheckpoint: 'checkpoint.md を読んで進捗を確認する',
    detectPartials: '未完成のファイルを検出する',
    noDecisions: 'なし（ジャーナルに決定の記録なし）',
    noIssues: 'なし',
    allPhasesDone: 'すべて完了',
    action: { retry: '再試行', human_review: '人による確認', backup_redo: 'バックアップしてやり直す', decide: '判断：マーカーを追記するかやり直す', run: '実行', complete_phase: 'フェーズを完了する', rebuild_memory: '長期記憶を再構築する' },
    decisionKind: { backup: 'バックアップ', keep: '保持（マーカー追記）', redo: 'やり直し', restore: 'バックアップから復元', reset_cell: 'カウンタのリセット', skip: 'スキップ' },
    impactBlocks: (u, n) => `${u} の後続 ${n} ステップを止めている`,
    impactNothing: '後続を止めていない',
    impactPartial: (u, s) => `${u} ${s} を処理しないと先に進めない`,
    impactSuspect: 'マーカーはあるが内容が疑わしい：後続が誤った内容に依存する恐れ',
    impactStale: 'checkpoint.md が古い：ディスクが正',
    impactMemory: '後続の章が不完全な長期記憶を読む',
    impactTodos: 'todo テーブルがディスクと食い違う：マーカーが正',
    impactBreaker: 'この agent には割り当てない',
    checkpointLabel: 'チェックポイント',
    sharedLabel: '共有リソース',
    statusWord: { done: '完了', partial: '未完成品', running: '実行中', failed: '失敗', needs_human: '要判断', not_started: '未着手', missing: 'なし', unreadable: '読めない' },
    verdict: { almost_certainly_partial: 'ほぼ確実に未完成品', truncated: '途切れている', maybe_complete: '完成かもしれない（マーカーだけがない）', suspicious: '疑わしい' },
    partial: (v, why) => `${v}（${why}）`,
    suspect: (why) => `疑わしい（${why}）`,
    differs: (what, n, list) => `${what} とディスクの食い違い ×${n}（${list}）`,
    breaker: (a, d) => `ブレーカー ${a}：${d}`,
    workspace: 'ワークスペース',
    decisionNote: noteIn('ja'),
  },
};

/** Labels of the source template's file list, by directory (docs/domain.md, The reference pipeline). Unknown ones fall back to the step label. */
export const DIR_LABELS: Record<Lang, Record<string, string>> = {
  zh: { 'outline-final.md': '大纲', 'source-map.md': '源码映射', research: '研究', drafts: '草稿', reviews: '审查', 'reader-feedback': '读者评审', chapters: '定稿', publish: '发布' },
  en: { 'outline-final.md': 'Outline', 'source-map.md': 'Source map', research: 'Research', drafts: 'Drafts', reviews: 'Reviews', 'reader-feedback': 'Reader feedback', chapters: 'Final chapters', publish: 'Publishing' },
  ja: { 'outline-final.md': 'アウトライン', 'source-map.md': 'ソースマップ', research: '調査', drafts: '草稿', reviews: 'レビュー', 'reader-feedback': '読者評価', chapters: '最終稿', publish: '公開' },
};
