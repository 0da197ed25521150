import stringWidth from 'string-width';
import type { NextStep, PartialFile, PlanAction, WorkspaceState } from '../types.js';
import { glyphsFor, STATUS_WORD } from '../glyphs.js';
import { sanitizeLine } from '../sanitize.js';
import { counts } from './json.js';
import type { Paint } from './paint.js';

// Human output of the headless commands: one screen, workspace text sanitized, state
// readable from glyphs and words without colour.

export interface TextOptions {
  paint: Paint;
  ascii: boolean;
  width: number;
}

export const pad = (s: string, w: number): string => s + ' '.repeat(Math.max(0, w - stringWidth(s)));

export const fit = (s: string, w: number): string => {
  if (stringWidth(s) <= w) return s;
  let out = '';
  for (const ch of s) {
    if (stringWidth(out + ch) > w - 1) break;
    out += ch;
  }
  return `${out}…`;
};

/** A column's width from its content: the widest text, kept within [min, max]. Callers
 *  put one space after the column, so neighbours never run together. */
export const columnWidth = (texts: Iterable<string>, min: number, max: number): number => {
  let w = min;
  for (const t of texts) w = Math.max(w, stringWidth(t));
  return Math.min(w, Math.max(min, max));
};

export const bar = (done: number, total: number, width: number, ascii: boolean): string => {
  const filled = total === 0 ? 0 : Math.round((done / total) * width);
  return ascii ? `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]` : `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
};

const P_TOKEN = { 1: 'fail', 2: 'warn', 3: 'accent' } as const;

/** Three-character column headings, unique where the ids allow: `research` → `res`; when two
 *  ids share a prefix (gate steps `s04` and `s04.5`) the longer one shows its end (`4.5`). */
export function columnLabels(ids: readonly string[], width = 3): string[] {
  const first = ids.map((id) => id.slice(0, width));
  return ids.map((id, i) => (id.length > width && first.some((f, j) => j !== i && f === first[i]) ? id.slice(-width) : first[i]));
}

// Every plan action, so the action column fits the longest one (`rebuild_memory`) on every
// line of a table: a column padded to a shorter width shifts the reasons of that line.
const PLAN_ACTIONS: Record<PlanAction, true> = { retry: true, human_review: true, backup_redo: true, decide: true, run: true, complete_phase: true, rebuild_memory: true };
export const ACTION_W = columnWidth(Object.keys(PLAN_ACTIONS), 0, 40);

export const whereOf = (n: NextStep): string => (n.unit ? `${sanitizeLine(n.unit)} ${sanitizeLine(n.step ?? '')}` : 'workspace');

/** The `where` column of a plan table, from its entries: at least 13 (`ch01 research`). */
export const whereWidth = (next: readonly NextStep[]): number => columnWidth(next.map(whereOf), 13, 28);

/** One plan entry: `P1 where action reason`. Without `whereW` (see whereWidth) the place is
 *  padded to 13 and never cut, so a longer one shifts only its own line. */
export function nextLine(n: NextStep, o: TextOptions, width: number, whereW?: number): string {
  const where = whereW === undefined ? pad(whereOf(n), 13) : pad(fit(whereOf(n), whereW), whereW);
  const head = `${where} ${pad(n.action, ACTION_W)} `;
  return `${o.paint(P_TOKEN[n.priority], `P${n.priority}`)} ${fit(head + sanitizeLine(n.reason), width - 3)}`;
}

export function partialLine(p: PartialFile, o: TextOptions): string[] {
  const tok = p.verdict === 'maybe_complete' ? 'warn' : 'fail';
  return [
    `${o.paint(tok, pad(p.verdict, 24))} ${pad(String(p.chars), 7)} ${fit(sanitizeLine(p.path), o.width - 33)}`,
    o.paint('muted', `  ${fit(sanitizeLine(p.reason), o.width - 2)}`),
  ];
}

export function renderStatus(s: WorkspaceState, o: TextOptions): string {
  const { paint } = o;
  const c = counts(s);
  const g = glyphsFor(o.ascii);
  const out: string[] = [];
  const phase = s.phases.find((p) => p.id === s.currentPhase);
  out.push(paint('title', `checkroom · ${sanitizeLine(s.name)}`) + paint('muted', ` (${s.pipeline.name})`));
  out.push(
    `${phase ? `Phase ${phase.id} ${phase.name}` : 'All phases done'}${s.currentBatch !== null ? ` · Batch ${s.currentBatch}` : ''}` +
      paint('muted', ` · checkpoint ${s.checkpoint.exists ? `updated ${sanitizeLine(s.checkpoint.lastUpdate ?? '?')}` : 'missing'}`),
  );
  const tally =
    `${c.done}/${c.total} done · ` +
    [
      paint(c.partial ? 'warn' : 'muted', `${c.partial} partial`),
      paint(c.failed ? 'fail' : 'muted', `${c.failed} failed`),
      paint(c.needsHuman ? 'fail' : 'muted', `${c.needsHuman} needs human`),
      paint('muted', `${c.running} running`),
    ].join(' · ');
  // The bar gives way so the line fits the terminal (80 columns over SSH).
  out.push(`${bar(c.done, c.total, Math.max(8, Math.min(24, o.width - stringWidth(tally) - 1)), o.ascii)} ${tally}`);
  out.push('');
  const phases = s.phases.map((p) => `${p.id} ${p.name} ${p.status === 'done' ? paint('ok', p.status) : p.status === 'in_progress' ? paint('warn', 'in progress') : paint('muted', 'not started')} ${p.done}/${p.total}`);
  out.push(...wrapItems('Phases   ', phases, o.width));
  if (s.batches.length) out.push(...wrapItems('Batches  ', s.batches.map((b) => `${b.id === null ? 'unbatched' : `B${b.id}`} ${b.done}/${b.total}`), o.width));
  out.push('');
  // The matrix: one row per unit, one glyph per step.
  const steps = s.pipeline.steps.map((st) => st.id);
  const colW = 4;
  const unitW = Math.min(20, Math.max(5, ...s.units.map((u) => sanitizeLine(u).length))) + 1;
  const perRow = Math.max(1, Math.floor((o.width - unitW) / colW));
  const labels = columnLabels(steps);
  out.push(paint('muted', `${pad('', unitW)}${labels.slice(0, perRow).map((l) => pad(l, colW)).join('')}`));
  const byUnit = new Map<string, Map<string, string>>();
  for (const cell of s.cells) byUnit.set(cell.unit, (byUnit.get(cell.unit) ?? new Map()).set(cell.step, cell.status));
  const maxRows = 10;
  for (const u of s.units.slice(0, maxRows)) {
    const row = byUnit.get(u)!;
    out.push(`${pad(fit(sanitizeLine(u), unitW - 1), unitW)}${steps.slice(0, perRow).map((st) => pad(g[row.get(st) as keyof typeof g], colW)).join('')}`);
  }
  if (s.units.length > maxRows) out.push(paint('muted', `… ${s.units.length - maxRows} more units (checkroom status --json for all)`));
  out.push(...wrapItems('legend: ', Object.entries(g).map(([k, v]) => `${v.trim()} ${STATUS_WORD[k as keyof typeof g]}`), o.width).map((l) => paint('muted', l)));
  out.push('');
  out.push(`${c.partial} half-products · ${c.suspects} suspicious · ${c.discrepancies} checkpoint/disk discrepancies · ${s.warnings.length} warnings`);
  out.push(paint('title', 'Next'));
  const shown = s.next.slice(0, 5);
  for (const n of shown) out.push(`  ${nextLine(n, o, o.width - 2, whereWidth(shown))}`);
  if (s.next.length > 5) out.push(paint('muted', `  … ${s.next.length - 5} more (checkroom plan)`));
  if (s.next.length === 0) out.push(s.units.length === 0 ? paint('warn', `  ${fit(noUnitsWhy(s), o.width - 2)}`) : paint('muted', '  nothing to do'));
  return out.join('\n');
}

/** Why an empty plan is not "all done": no chapter was found at all, and what the scan saw instead. */
export const noUnitsWhy = (s: Pick<WorkspaceState, 'warnings'>): string => {
  const w = s.warnings.find((x) => x.source === 'checkroom.yaml' && /units\.pattern/.test(x.message));
  return `no chapters found${w ? `: ${sanitizeLine(w.message)}` : ' (no checkpoint.md row and no step output names one)'}`;
};

/** `label item · item · …`, wrapped to `width` columns with continuation lines under the first item. */
export function wrapItems(label: string, items: readonly string[], width: number): string[] {
  const indent = ' '.repeat(stringWidth(label));
  const lines: string[] = [];
  let line = label;
  let empty = true;
  for (const item of items) {
    const piece = empty ? item : ` · ${item}`;
    if (!empty && stringWidth(line) + stringWidth(piece) > width) {
      lines.push(line);
      line = indent + item;
    } else line += piece;
    empty = false;
  }
  lines.push(line);
  return lines;
}
