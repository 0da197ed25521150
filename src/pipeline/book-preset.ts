import type { PipelineDef, StepDef } from '../types.js';

// The reference pipeline, exactly docs/domain.md, The reference pipeline: five phases, eight chapter steps in
// phase 3 (R1–R3 in parallel after the draft), the final chapter in phase 4, HTML in phase 5.
// Aliases are the checkpoint.md column headings in Chinese (as the source document writes
// them), English and Japanese.

const step = (s: Omit<StepDef, 'kind' | 'minChars'> & Partial<Pick<StepDef, 'kind' | 'minChars'>>): StepDef => ({
  kind: 'file',
  minChars: 200,
  ...s,
});

export const BOOK_STEPS: StepDef[] = [
  step({ id: 'research', label: 'Research', aliases: ['研究', 'Research', '調査'], path: 'research/{unit}-research.md', marker: 'RESEARCH_COMPLETE', dependsOn: [], phase: 3, agent: 'researcher' }),
  step({ id: 'draft', label: 'Draft', aliases: ['写作', 'Draft', 'Writing', '執筆'], path: 'drafts/{unit}-draft.md', marker: 'DRAFT_COMPLETE', dependsOn: ['research'], phase: 3, agent: 'writer' }),
  step({ id: 'r1', label: 'R1 code review', aliases: ['R1审查', 'R1 Review', 'R1 Code Review', 'R1レビュー'], path: 'reviews/{unit}-r1-code.md', marker: 'R1_CODE_REVIEW_COMPLETE', dependsOn: ['draft'], phase: 3, agent: 'reviewer' }),
  step({ id: 'r2', label: 'R2 consistency review', aliases: ['R2审查', 'R2 Review', 'R2 Consistency Review', 'R2レビュー'], path: 'reviews/{unit}-r2-consistency.md', marker: 'R2_CONSISTENCY_REVIEW_COMPLETE', dependsOn: ['draft'], phase: 3, agent: 'reviewer' }),
  step({ id: 'r3', label: 'R3 content review', aliases: ['R3审查', 'R3 Review', 'R3 Content Review', 'R3レビュー'], path: 'reviews/{unit}-r3-content.md', marker: 'R3_CONTENT_REVIEW_COMPLETE', dependsOn: ['draft'], phase: 3, agent: 'reviewer' }),
  step({ id: 'review', label: 'Merged review', aliases: ['合并审查', 'Merged Review', '統合レビュー'], path: 'reviews/{unit}-review.md', marker: 'REVIEW_COMPLETE', dependsOn: ['r1', 'r2', 'r3'], phase: 3, agent: 'editor' }),
  step({ id: 'panel', label: 'Reader panel', aliases: ['读者评审', 'Reader Panel', '読者評価'], path: 'reader-feedback/{unit}-panel.md', marker: 'READER_PANEL_COMPLETE', dependsOn: ['review'], phase: 3, agent: 'panel' }),
  step({ id: 'memory', label: 'Long-memory update', aliases: ['长记忆更新', 'Long-memory Update', 'Memory', '長期記憶更新'], path: 'meta/chapter-summaries.md', marker: null, kind: 'entry', minChars: 0, dependsOn: ['panel'], phase: 3, agent: 'archivist' }),
  step({ id: 'final', label: 'Final chapter', aliases: ['定稿', 'Final', '最終稿'], path: 'chapters/{unit}.md', marker: 'CHAPTER_FINAL', dependsOn: ['memory'], phase: 4, agent: 'editor' }),
  step({ id: 'html', label: 'HTML', aliases: ['HTML', 'HTML装帧', 'HTML装丁'], path: 'publish/{unit}.html', marker: 'HTML_COMPLETE', dependsOn: ['final'], phase: 5, agent: 'publisher' }),
];

export const bookPreset = (): PipelineDef => ({
  name: 'book',
  source: 'built-in preset "book"',
  phases: [
    { id: 1, name: 'Outline', aliases: ['大纲定稿', 'Outline', 'アウトライン確定'], artifacts: ['outline-final.md', 'source-map.md'], barrier: true },
    {
      id: 2,
      name: 'Shared resources',
      aliases: ['共享资源构建', 'Shared Resources', '共有リソース構築'],
      artifacts: ['meta/glossary.md', 'meta/style-guide.md', 'meta/metaphor-registry.md', 'meta/chapter-summaries.md', 'meta/cross-references.md'],
      barrier: true,
    },
    { id: 3, name: 'Chapter writing', aliases: ['逐章写作', 'Chapter Writing', '章ごとの執筆'], artifacts: [], barrier: true },
    { id: 4, name: 'Whole-book audit', aliases: ['统稿审计', 'Whole-book Audit', '全体監査'], artifacts: [], barrier: false },
    { id: 5, name: 'HTML', aliases: ['HTML装帧', 'HTML Publishing', 'HTML装丁'], artifacts: [], barrier: false },
  ],
  steps: BOOK_STEPS.map((s) => ({ ...s, aliases: [...s.aliases], dependsOn: [...s.dependsOn] })),
  units: { pattern: 'ch\\d{2,3}' },
  batches: [],
});
