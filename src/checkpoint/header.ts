import { LANGS, VOCAB } from './i18n.js';
import { compilePattern, escapePattern } from '../pipeline/safe-pattern.js';

// Header fields of checkpoint.md (`最后更新: 2026-11-28 14:03`). People write them with an
// ASCII or full-width colon, in bold, as list items, with or without spaces in the label;
// any of the three languages' labels is accepted whatever the document's language.

export type HeaderKey = 'lastUpdate' | 'currentPhase' | 'currentBatch';

export interface HeaderMatch {
  key: HeaderKey;
  value: string;
  /** Span of the value in the line (UTF-16 offsets), for in-place edits. */
  start: number;
  end: number;
}

// The header patterns run on RE2: on V8, `\s*(?:\*\*)?\s*` around the lazy
// value backtracked cubically over a line of spaces (1,000 spaces: 1.5 s; 4,000: 93 s), and
// checkpoint.md is workspace text read up to 4 MB. RE2's `\s` is ASCII, so the spaces are
// JavaScript's `\s`, spelled out: a full-width space (U+3000) still separates a label.
const SP = '[\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]';

// "Last updated" also matches "LastUpdated" and "last  updated": spaces are optional anywhere.
const labelPattern = (label: string): string =>
  [...label.replace(/\s+/g, '')].map(escapePattern).join(`${SP}*`);

// Beyond checkroom's own labels, the words people write for the same field
// (a Japanese file says 現在のフェーズ; read as the field, its label is kept when rewritten).
const OTHER_LABELS: Record<HeaderKey, string[]> = {
  lastUpdate: ['最終更新日', '最后更新时间'],
  currentPhase: ['現在のフェーズ', '当前阶段'],
  currentBatch: ['現在の批次', '当前Batch'],
};

const LABELS: Record<HeaderKey, string[]> = {
  lastUpdate: [...LANGS.map((l) => VOCAB[l].lastUpdated), ...OTHER_LABELS.lastUpdate],
  currentPhase: [...LANGS.map((l) => VOCAB[l].currentPhase), ...OTHER_LABELS.currentPhase],
  currentBatch: [...LANGS.map((l) => VOCAB[l].currentBatch), ...OTHER_LABELS.currentBatch],
};

const EMPH = '(?:\\*\\*|__)?';
const PATTERNS = (Object.keys(LABELS) as HeaderKey[]).map((key) => ({
  key,
  re: compilePattern(
    `^(${SP}*(?:[-*+]${SP}+)?${EMPH}${SP}*(?:${LABELS[key].map(labelPattern).join('|')})${SP}*${EMPH}${SP}*[:：]${SP}*${EMPH}${SP}*)(.*?)(${SP}*${EMPH}${SP}*)$`,
    'i',
  ),
}));

export function matchHeader(line: string): HeaderMatch | null {
  for (const { key, re } of PATTERNS) {
    const m = re.exec(line);
    if (!m) continue;
    const [, head = '', value = ''] = m.groups;
    const start = head.length;
    return { key, value, start, end: start + value.length };
  }
  return null;
}

/** A dash or nothing means the field is unset; we write `—` for null. */
export const isBlankValue = (v: string): boolean => /^[\s—–-]*$/.test(v);

/** `3`, `Phase 3`, `Batch 2`, `批次 2` → the number; null when blank; undefined when unreadable. */
export function readNumber(v: string): number | null | undefined {
  if (isBlankValue(v)) return null;
  // One greedy run of letters and spaces: they cannot overlap `#` or a digit, so V8 gives back
  // each at most once (the lazy run before `\s*` was quadratic on a value of spaces).
  const m = /^[\p{L}\s]*#?(\d{1,9})$/u.exec(v.trim());
  return m ? Number(m[1]) : undefined;
}
