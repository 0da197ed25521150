import { ACTION_WORDS } from '../../src/plan/action-words.js';
import type { Surfaces } from './gen-surfaces.js';

// Facts parsed from each surface (issue 18 item 2): counts, per-cell status, plan rows,
// breakers with their countdowns, escalations, running versus pending, autopilot, warnings.
// Layout is not compared, only what a line says; a line that does not parse is a failure of
// its own (a surface that stopped saying a fact is a disagreement too).

export interface Counts {
  done: number;
  total: number;
  /** The files the Partials view lists (half-products and suspects): the header's "N partials" (the operator model, issue 18 item 1). */
  partial: number;
  failed: number;
  needsHuman: number;
  running: number;
}

const COUNTS = /(\d+)\/(\d+) done · (\d+) partials? · (\d+) failed · (\d+) needs human · (\d+) running/;

export const countsOf = (text: string, where: string): Counts => {
  const m = COUNTS.exec(text);
  if (!m) throw new Error(`${where}: no counts line in:\n${text.slice(0, 600)}`);
  const [done, total, partial, failed, needsHuman, running] = m.slice(1).map(Number);
  return { done, total, partial, failed, needsHuman, running };
};

interface JsonCounts {
  total: number;
  done: number;
  halfProducts: number;
  suspects: number;
  failed: number;
  needsHuman: number;
  running: number;
}
export const countsOfJson = (c: JsonCounts): Counts => ({ done: c.done, total: c.total, partial: c.halfProducts + c.suspects, failed: c.failed, needsHuman: c.needsHuman, running: c.running });

/** The matrix's glyphs as statuses: the legend line of the same surface says what each glyph means. */
// A blocked cell (issue 18 item 5: drawn apart in the matrix) is a not-started cell with a
// `blockedBy`; the JSON says so in those two fields, so its status is not_started here.
const LEGEND_WORDS: Record<string, string> = { done: 'done', partial: 'partial', failed: 'failed', 'needs human': 'needs_human', running: 'running', blocked: 'not_started', 'not started': 'not_started' };

const legendOf = (text: string): Map<string, string> => {
  // The legend is the line that ends with the not-started glyph's words (the phases line ends with counts).
  const line = text.split('\n').find((l) => /\S+ done\b.*\S+ not started\s*$/.test(l)) ?? '';
  const body = line.replace(/^legend:\s*/, '');
  const map = new Map<string, string>();
  for (const part of body.split(/\s+·\s+|\s{2,}/)) {
    const m = /^(\S+)\s+(.+)$/.exec(part.trim());
    if (m) map.set(m[1], LEGEND_WORDS[m[2].trim()] ?? m[2].trim());
  }
  return map;
};

/** unit/step → status from a matrix (the Progress view or the text `status`), by its column heads. */
export function matrixOf(text: string, where: string): Map<string, string> {
  const lines = text.split('\n');
  const head = lines.findIndex((l) => /\bres\s+dra\s+r1\b/.test(l));
  if (head < 0) throw new Error(`${where}: no matrix in:\n${text.slice(0, 600)}`);
  const cols = lines[head].replace(/^.*?(?=\bres\b)/, '').trim().split(/\s+/);
  const legend = legendOf(text);
  const out = new Map<string, string>();
  const ABBR: Record<string, string> = { res: 'research', dra: 'draft', r1: 'r1', r2: 'r2', r3: 'r3', rev: 'review', pan: 'panel', mem: 'memory', fin: 'final', htm: 'html' };
  for (const l of lines.slice(head + 1)) {
    const m = /^[›>\s]*(ch\d\d)(?:\s+B\d+)?\s+(.*)$/.exec(l);
    // A unit's first row is its matrix row: a later line that starts with it is the status
    // line's message ("ch01 r1: attempt 1 started by the driver"), not the matrix.
    if (!m || out.has(`${m[1]}/${ABBR[cols[0]] ?? cols[0]}`)) continue;
    const glyphs = m[2].replace(/[[\]]/g, ' ').trim().split(/\s+/);
    cols.forEach((c, i) => out.set(`${m[1]}/${ABBR[c] ?? c}`, legend.get(glyphs[i]) ?? `?${glyphs[i]}`));
  }
  return out;
}

export interface PlanRow {
  unit: string;
  step: string;
  /** `P1`…`P3`, or `flight` for a cell in flight. */
  kind: string;
  action: string;
  reason: string;
}

/** The Plan view's rows (the frame) or `plan`'s numbered lines (the text), for chapter cells. */
// The action column is drawn in the operator's words (src/plan/action-words.ts, several of
// them two words long): read them back to the machine names the JSON carries.
const WORD_ACTION = new Map(Object.entries(ACTION_WORDS).map(([action, words]) => [words, action]));
const ACTION_RE = [...WORD_ACTION.keys(), 'queued redo'].sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\&]/g, '\\$&')).join('|');
const PLAN_ROW = new RegExp(`^(?:[›>\\s]\\s|\\s*\\d+\\.\\s)(⏳|P[123]\\s|Q\\s)(ch\\d\\d)\\s(\\S+)\\s+(${ACTION_RE}|\\S+)\\s+(.*)$`);

export function planRowsOf(text: string): PlanRow[] {
  const rows: PlanRow[] = [];
  for (const l of text.split('\n')) {
    const m = PLAN_ROW.exec(l);
    if (!m) continue;
    rows.push({ kind: m[1].trim() === '⏳' ? 'flight' : m[1].trim(), unit: m[2], step: m[3], action: WORD_ACTION.get(m[4]) ?? m[4], reason: m[5].trim() });
  }
  return rows;
}

export interface Breaker {
  state: 'open' | 'half-open' | 'held' | 'closed';
  /** Seconds left on an open breaker's cooldown, as drawn. */
  left: number | null;
}

/** "open 40 s left", "open 1 m 05 s left", "half-open (…", "held by the operator", "closed". */
export const breakerOf = (words: string): Breaker | null => {
  const open = /open (?:(\d+) h (\d+) m|(?:(\d+) m )?(\d+) s) left/.exec(words);
  if (open && !/half-open/.test(words.slice(0, open.index + 4))) {
    const left = open[1] !== undefined ? Number(open[1]) * 3600 + Number(open[2]) * 60 : Number(open[3] ?? 0) * 60 + Number(open[4]);
    return { state: 'open', left };
  }
  if (/half-open/.test(words)) return { state: 'half-open', left: null };
  if (/held/.test(words)) return { state: 'held', left: null };
  if (/closed/.test(words)) return { state: 'closed', left: null };
  return null;
};

export interface HealthFacts {
  agents: Map<string, { words: string; breaker: Breaker | null }>;
  cells: Map<string, { state: string; rest: string }>;
  autopilot: string | null;
}

export function healthOf(frame: string): HealthFacts {
  const agents = new Map<string, { words: string; breaker: Breaker | null }>();
  const cells = new Map<string, { state: string; rest: string }>();
  let autopilot: string | null = null;
  for (const l of frame.split('\n')) {
    const a = /^[›>\s]\s?agent (\S+)\s+(.+?)\s+(trips \d.*)$/.exec(l);
    if (a) agents.set(a[1], { words: a[2], breaker: breakerOf(a[2]) });
    const c = /^[›>\s]\s?(ch\d\d) (\S+)\s+(.+?)\s+(\d+ att\b.*)$/.exec(l);
    if (c) cells.set(`${c[1]}/${c[2]}`, { state: c[3].trim(), rest: c[4] });
    const p = /· autopilot (on|off|paused|PAUSED)/.exec(l);
    if (p && autopilot === null) autopilot = p[1].toLowerCase();
  }
  return { agents, cells, autopilot };
}

/** The header's autopilot badge: on, off, paused, or null when it shows none. */
export const headerAutopilotOf = (frame: string): string | null => {
  const m = /\bauto (on|off|PAUSED|paused)\b/.exec(frame.split('\n').slice(0, 4).join('\n'));
  return m ? m[1].toLowerCase() : null;
};

export const planAutopilotOf = (frame: string): string | null => {
  const m = /in flight · autopilot (on|off|paused)/.exec(frame);
  return m ? m[1] : null;
};

/** `Partials (N)` on the tab bar. */
export const tabCountOf = (frame: string, title: string): number | null => {
  const m = new RegExp(`${title} \\((\\d+)\\)`).exec(frame);
  return m ? Number(m[1]) : null;
};

export type { Surfaces };
