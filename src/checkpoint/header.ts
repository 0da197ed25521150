import { LANGS, VOCAB } from './i18n.js';

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

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// "Last updated" also matches "LastUpdated" and "last  updated": spaces are optional anywhere.
const labelPattern = (label: string): string =>
  [...label.replace(/\s+/g, '')].map(escape).join('\\s*');

// Beyond checkroom's own labels, the words people write for the same field (issue 17 item 2:
// a Japanese file says 現在のフェーズ; read as the field, its label is kept when rewritten).
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
  re: new RegExp(
    `^(\\s*(?:[-*+]\\s+)?${EMPH}\\s*(?:${LABELS[key].map(labelPattern).join('|')})\\s*${EMPH}\\s*[:：]\\s*${EMPH}\\s*)(.*?)(\\s*${EMPH}\\s*)$`,
    'i',
  ),
}));

export function matchHeader(line: string): HeaderMatch | null {
  for (const { key, re } of PATTERNS) {
    const m = re.exec(line);
    if (!m) continue;
    const start = m[1].length;
    return { key, value: m[2], start, end: start + m[2].length };
  }
  return null;
}

/** A dash or nothing means the field is unset; we write `—` for null. */
export const isBlankValue = (v: string): boolean => /^[\s—–-]*$/.test(v);

/** `3`, `Phase 3`, `Batch 2`, `批次 2` → the number; null when blank; undefined when unreadable. */
export function readNumber(v: string): number | null | undefined {
  if (isBlankValue(v)) return null;
  const m = /^(?:[\p{L}\s]*?)\s*#?(\d{1,9})\s*$/u.exec(v.trim());
  return m ? Number(m[1]) : undefined;
}
