import type { PipelineDef } from '../types.js';
import { LANGS, VOCAB, norm } from './i18n.js';
import { unitIdPattern } from '../pipeline/safe-pattern.js';

// Markdown table rows of checkpoint.md. Cells keep their character spans so that a
// one-cell update can rewrite a cell without touching any other byte of the line.

export interface RowCell {
  /** Trimmed cell text. */
  text: string;
  /** Span of the raw cell between its pipes, in UTF-16 offsets of the line. */
  start: number;
  end: number;
}

export const isTableLine = (line: string): boolean => line.trimStart().startsWith('|');

/** Split `| a | b |` into cells; a missing trailing pipe is tolerated. */
export function splitRow(line: string): RowCell[] {
  const first = line.indexOf('|');
  if (first < 0) return [];
  const cells: RowCell[] = [];
  let start = first + 1;
  for (let i = start; i <= line.length; i++) {
    // `\|` is an escaped pipe inside a cell, not a boundary.
    if (i < line.length && (line[i] !== '|' || line[i - 1] === '\\')) continue;
    const raw = line.slice(start, i);
    const atEnd = i >= line.length;
    if (!(atEnd && raw.trim() === '')) cells.push({ text: raw.trim(), start, end: i });
    start = i + 1;
  }
  return cells;
}

export const isSeparatorRow = (cells: RowCell[]): boolean =>
  cells.length > 0 && cells.every((c) => /^:?-+:?$/.test(c.text)) && cells.some((c) => c.text.includes('--'));

/** Strip markdown emphasis and code ticks around a unit id: `**ch03**` → `ch03`. */
export const cleanUnit = (s: string): string => s.replace(/^[*_`\s]+|[*_`\s]+$/g, '');

/** A predicate for unit ids: the configured list when there is one, else the pattern. */
export function unitMatcher(pipeline: PipelineDef): (s: string) => boolean {
  const list = pipeline.units.list;
  if (list && list.length > 0) {
    const set = new Set(list);
    return (s) => set.has(s);
  }
  // A pattern RE2 refuses (a config that skipped validation) must not stop us reading the checkpoint.
  const re = unitIdPattern(pipeline.units.pattern) ?? /^[A-Za-z0-9][\w.-]*$/;
  return (s) => re.test(s);
}

const UNIT_HEADINGS = new Set([...LANGS.map((l) => norm(VOCAB[l].unitColumn)), 'unit', 'id', '单元', 'ユニット']);

export const isUnitHeading = (s: string): boolean => UNIT_HEADINGS.has(norm(s));

/** Heading text → step id, through StepDef.aliases, label and id (case/space-insensitive). */
export function headingIndex(pipeline: PipelineDef): Map<string, string> {
  const index = new Map<string, string>();
  for (const step of pipeline.steps) {
    for (const name of [step.id, step.label, ...step.aliases]) {
      const key = norm(name);
      if (key && !index.has(key)) index.set(key, step.id);
    }
  }
  return index;
}
