import type { CellStatus } from '../types.js';
import { LANGS } from '../checkpoint/i18n.js';
import { RESUME_VOCAB } from './vocab.js';
import { GATE_WORDS } from './gate-vocab.js';

// Reading a RESUME.md back: the facts it states, in any of the three languages (a letter
// written by checkroom, or by an orchestrator that followed the source document's template). Tolerant:
// what is not there is null or empty, never an exception.

export interface ParsedResume {
  /** As written, e.g. `2026-11-27 18:40`; null when absent. */
  generatedAt: string | null;
  phase: number | null;
  batch: number | null;
  done: string[];
  inProgress: string[];
  notStarted: string[];
  unfinished: { unit: string; step: string; status: CellStatus }[];
}

type Field = 'generatedAt' | 'phase' | 'batch' | 'done' | 'inProgress' | 'notStarted';
const FIELDS: Field[] = ['generatedAt', 'phase', 'batch', 'done', 'inProgress', 'notStarted'];

const fieldOf = new Map<string, Field>();
const unfinishedHeadings = new Set<string>();
const noneWords = new Set<string>(['—', '-', '']);
for (const lang of LANGS) {
  const v = RESUME_VOCAB[lang];
  for (const f of FIELDS) fieldOf.set(v[f].toLowerCase(), f);
  unfinishedHeadings.add(v.unfinished.toLowerCase());
  noneWords.add(v.none.toLowerCase());
}
// A gate-file workflow's letter names its units workflows (gate-vocab.ts).
for (const f of ['done', 'inProgress', 'notStarted'] as const) fieldOf.set(GATE_WORDS[f].toLowerCase(), f);
// The source template's own wording, in case a letter was written by hand from the template.
fieldOf.set('当前phase', 'phase');
fieldOf.set('已完成章节', 'done');

const STATUSES = 'done|partial|running|failed|needs_human|not_started';
const TASK = new RegExp(`^\\d+[.)]\\s+(\\S+)\\s+(\\S+)\\s+—\\s+[^:：]+[:：]\\s*(?:\\S+\\s+)?(${STATUSES})\\b`);
const FIELD = /^[-*]\s+([^:：]+?)\s*[:：]\s*(.*)$/;
const HEADER = /^([^:：#|-][^:：]*?)\s*[:：]\s*(.+)$/;

const units = (value: string): string[] => {
  const v = value.trim();
  if (noneWords.has(v.toLowerCase())) return [];
  return v
    .split(/\s*[,，、;；]\s*/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && !noneWords.has(s.toLowerCase()));
};

const numberAfter = (word: string, value: string): number | null => {
  const m = new RegExp(`${word}\\s*(\\d+)`, 'i').exec(value) ?? /^(\d+)\b/.exec(value.trim());
  return m ? Number(m[1]) : null;
};

export function parseResume(text: string): ParsedResume {
  const out: ParsedResume = { generatedAt: null, phase: null, batch: null, done: [], inProgress: [], notStarted: [], unfinished: [] };
  let section = '';
  for (const raw of text.replace(/^\uFEFF/, '').split('\n')) {
    const line = raw.replace(/\r$/, '').trim();
    const heading = /^#{2,6}\s+(.*)$/.exec(line);
    if (heading) {
      section = heading[1].trim().toLowerCase();
      continue;
    }
    if (unfinishedHeadings.has(section)) {
      const t = TASK.exec(line);
      if (t) out.unfinished.push({ unit: t[1], step: t[2], status: t[3] as CellStatus });
      continue;
    }
    const m = FIELD.exec(line) ?? (section === '' ? HEADER.exec(line) : null);
    if (!m) continue;
    const field = fieldOf.get(m[1].trim().toLowerCase());
    if (!field) continue;
    const value = m[2].trim();
    if (field === 'generatedAt') out.generatedAt ??= value;
    else if (field === 'phase') out.phase = numberAfter('phase', value);
    else if (field === 'batch') out.batch = numberAfter('batch', value);
    else out[field] = units(value);
  }
  return out;
}
