import type { Lang, PhaseDef, PhaseStatus, StepDef } from '../types.js';

// checkpoint.md vocabulary in the three languages we read and write. Chinese is what the
// source document writes (docs/domain.md, Three sources of progress); English and Japanese must work too.

export interface Vocabulary {
  titleSuffix: string;
  lastUpdated: string;
  currentPhase: string;
  currentBatch: string;
  /** Heading of the first table column (the unit id). */
  unitColumn: string;
  status: Record<PhaseStatus, string>;
  needsHuman: string;
  legend: string;
}

export const LANGS: readonly Lang[] = ['zh', 'en', 'ja'];

export const VOCAB: Record<Lang, Vocabulary> = {
  zh: {
    titleSuffix: '项目进度检查点',
    lastUpdated: '最后更新',
    currentPhase: '当前Phase',
    currentBatch: '当前批次',
    unitColumn: '章节',
    status: { done: '完成', in_progress: '进行中', not_started: '未开始', failed: '失败' },
    needsHuman: '需人工确认',
    legend: '图例: ✅完成 ⏳进行中 ❌失败 ⚠️需人工确认 — 未开始',
  },
  en: {
    titleSuffix: 'Progress Checkpoint',
    lastUpdated: 'Last updated',
    currentPhase: 'Current phase',
    currentBatch: 'Current batch',
    unitColumn: 'Chapter',
    status: { done: 'Done', in_progress: 'In progress', not_started: 'Not started', failed: 'Failed' },
    needsHuman: 'Needs a human',
    legend: 'Legend: ✅ done · ⏳ in progress · ❌ failed · ⚠️ needs a human · — not started',
  },
  ja: {
    titleSuffix: '進捗チェックポイント',
    lastUpdated: '最終更新',
    currentPhase: '現在のPhase',
    currentBatch: '現在のバッチ',
    unitColumn: '章',
    status: { done: '完了', in_progress: '進行中', not_started: '未着手', failed: '失敗' },
    needsHuman: '人的確認必要',
    legend: '凡例: ✅完了 ⏳進行中 ❌失敗 ⚠️人的確認必要 — 未開始',
  },
};

/** Legend prefixes, used only to guess the language. */
export const LEGEND_LABEL: Record<Lang, string> = { zh: '图例', en: 'Legend', ja: '凡例' };

/** Lower-case, drop whitespace, markdown emphasis and emoji variation selectors; fold full-width forms. */
export const norm = (s: string): string =>
  s
    .normalize('NFKC')
    .replace(/[\s*_`]|\uFE0E|\uFE0F/g, '')
    .toLowerCase();

// Headings for the book preset's step ids. Kept explicit because scanning the alias list
// by script cannot tell a Chinese heading from a Japanese one written only in kanji.
const BOOK_HEADINGS: Record<Lang, Record<string, string>> = {
  zh: { research: '研究', draft: '写作', r1: 'R1审查', r2: 'R2审查', r3: 'R3审查', review: '合并审查', panel: '读者评审', memory: '长记忆更新', final: '定稿', html: 'HTML' },
  en: { research: 'Research', draft: 'Draft', r1: 'R1 Review', r2: 'R2 Review', r3: 'R3 Review', review: 'Merged Review', panel: 'Reader Panel', memory: 'Long-memory Update', final: 'Final', html: 'HTML' },
  ja: { research: '調査', draft: '執筆', r1: 'R1レビュー', r2: 'R2レビュー', r3: 'R3レビュー', review: '統合レビュー', panel: '読者評価', memory: '長期記憶更新', final: '最終稿', html: 'HTML' },
};

const KANA = /[\u3040-\u30ff]/;
const HAN = /[\u3400-\u9fff]/;

const aliasByScript = (aliases: string[], lang: Lang): string | undefined => {
  if (lang === 'ja') return aliases.find((a) => KANA.test(a));
  if (lang === 'zh') return aliases.find((a) => HAN.test(a) && !KANA.test(a));
  return aliases.find((a) => !HAN.test(a) && !KANA.test(a));
};

/** Column heading for a step in a language. Only returns text the parser maps back to the step. */
export function stepHeading(step: StepDef | undefined, id: string, lang: Lang): string {
  if (!step) return id;
  const preset = BOOK_HEADINGS[lang][step.id];
  if (preset && step.aliases.some((a) => norm(a) === norm(preset))) return preset;
  return aliasByScript(step.aliases, lang) ?? step.label ?? step.aliases[0] ?? step.id;
}

/** Phase name in a language: PhaseDef.aliases is ordered zh, en, ja. */
export function phaseName(phase: PhaseDef, lang: Lang): string {
  return phase.aliases[LANGS.indexOf(lang)] ?? phase.name;
}

/**
 * Guess the language from the vocabulary (title, labels, unit column, status words, legend).
 * The source document itself mixes a Japanese legend into a Chinese file, so we count
 * matches instead of trusting any single line. No vocabulary at all: kana → ja, else en.
 */
export function detectLang(text: string, kanaIn: string = text): Lang {
  const score: Record<Lang, number> = { zh: 0, en: 0, ja: 0 };
  const flat = norm(text);
  for (const lang of LANGS) {
    const v = VOCAB[lang];
    const words = [v.titleSuffix, v.lastUpdated, v.currentPhase, v.currentBatch, LEGEND_LABEL[lang], ...Object.values(v.status)];
    for (const w of words) if (flat.includes(norm(w))) score[lang] += w === v.titleSuffix ? 3 : 1;
  }
  const hasKana = KANA.test(kanaIn);
  const best = Math.max(score.zh, score.en, score.ja);
  if (best === 0) return hasKana ? 'ja' : 'en';
  if (score.zh === best && score.ja === best) return hasKana ? 'ja' : 'zh';
  if (score.zh === best) return 'zh';
  if (score.ja === best) return 'ja';
  return 'en';
}
