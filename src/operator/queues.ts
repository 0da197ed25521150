import { MAX_BULK, type BulkAction, type BulkCellRef } from '../bulk/events.js';
import { holdsCell } from '../bulk/fold.js';
import type { Ledger } from '../run/journal/ledger.js';
import { cellKey } from '../types.js';

// What still waits on the operator's named actions (docs/redrive.md) and on redo
// (docs/redo.md), one derivation for the header, Plan, `status` text and `--json` and the
// socket: from the journal's fold (the ledger's `bulk`, `triage` and cells' holds). A room
// reads its supervisor's snapshot, a scan the journal it folded (cli/scan-journal.ts).

/** One name's open actions: the cells still queued for relaunch, skipped, held by it. */
export interface OperatorRedrive {
  /** The operator's name (the incident): `rate-limit-0200`. Journal text: sanitized where drawn. */
  name: string;
  /** Its actions that still hold a cell, oldest first, each once. */
  actions: BulkAction[];
  queued: BulkCellRef[];
  skipped: BulkCellRef[];
  held: BulkCellRef[];
}

/** A cell a redo queued for relaunch, and the cell the operator redid from (itself for a lone file). */
export interface OperatorRedoCell extends BulkCellRef {
  from: BulkCellRef;
}

export interface OperatorQueues {
  /** By name, the name acted on last first; a name with nothing queued, skipped or held is gone. */
  redrives: OperatorRedrive[];
  /** The redo queue in its order. */
  redo: OperatorRedoCell[];
  /** Over every name. */
  totals: { queued: number; skipped: number; held: number };
  /** The header's words: "redrive rate-limit-0200: 12 queued · 3 skipped · redo from ch03 draft: 4 queued"; null when nothing waits. */
  words: string | null;
  /** The same without the names, for a header too narrow for them: "redrive: 12 queued · 3 skipped · redo: 4 queued". */
  short: string | null;
}

export const NO_OPERATOR_QUEUES: OperatorQueues = { redrives: [], redo: [], totals: { queued: 0, skipped: 0, held: 0 }, words: null, short: null };

type QueueLedger = Pick<Ledger, 'bulk' | 'triage' | 'cells'>;

/** "12 queued · 3 skipped": the counts that are not 0. */
const countWords = (c: { queued: number; skipped: number; held: number }): string =>
  (['queued', 'skipped', 'held'] as const).flatMap((k) => (c[k] ? [`${c[k]} ${k}`] : [])).join(' · ');
const where = (c: BulkCellRef): string => `${c.unit} ${c.step}`;

/** "redrive: 12 queued · 3 skipped" over every name (Plan's summary, the narrow header); null when no name holds a cell. */
export const redriveTally = (q: Pick<OperatorQueues, 'redrives' | 'totals'>): string | null => (q.redrives.length ? `redrive: ${countWords(q.totals)}` : null);

/** A cell named by its key alone: the ledger's cell when it has one (a step id has no '/'). */
const refOf = (l: QueueLedger, key: string): BulkCellRef => {
  const c = l.cells[key];
  const cut = key.lastIndexOf('/');
  return c ? { unit: c.unit, step: c.step } : { unit: key.slice(0, cut), step: key.slice(cut + 1) };
};

/** The open named actions, grouped by name, as the fold leaves them. */
function redrivesOf(l: QueueLedger): OperatorRedrive[] {
  const byName = new Map<string, OperatorRedrive & { last: number }>();
  const group = (name: string, action: BulkAction, at: number) => {
    const g = byName.get(name) ?? { name, actions: [], queued: [], skipped: [], held: [], last: at };
    if (!g.actions.includes(action)) g.actions.push(action);
    g.last = Math.max(g.last, at);
    byName.set(name, g);
    return g;
  };
  for (const rec of l.bulk.actions) {
    if (rec.undoneAt !== null || rec.action === 'reset') continue;
    const waiting = rec.cells.filter((c) => {
      const key = cellKey(c.unit, c.step);
      return rec.action === 'relaunch' ? l.bulk.queue[key]?.id === rec.id : rec.action === 'skip' ? l.bulk.skipped[key]?.id === rec.id : holdsCell(rec, l.cells[key]);
    });
    if (!waiting.length) continue;
    const list = group(rec.name, rec.action, rec.at)[rec.action === 'relaunch' ? 'queued' : rec.action === 'skip' ? 'skipped' : 'held'];
    // One at a time: a spread of 100k cells passes the engine's argument limit.
    for (const c of waiting) list.push(c);
  }
  // Past MAX_BULK the oldest records leave the ledger while their cells may still be queued or
  // skipped (autopilot still reads them): counted under the name the entry keeps. Only then.
  if (l.bulk.actions.length < MAX_BULK) return sorted(byName);
  const kept = new Set(l.bulk.actions.map((a) => a.id));
  for (const [key, q] of Object.entries(l.bulk.queue)) if (!kept.has(q.id)) group(q.name, 'relaunch', 0).queued.push(refOf(l, key));
  for (const [key, q] of Object.entries(l.bulk.skipped)) if (!kept.has(q.id)) group(q.name, 'skip', q.at).skipped.push(refOf(l, key));
  return sorted(byName);
}

/** The name acted on last first. */
function sorted(byName: Map<string, OperatorRedrive & { last: number }>): OperatorRedrive[] {
  return [...byName.values()].sort((a, b) => b.last - a.last).map(({ last: _, ...g }) => g);
}

/** The redo queue with each cell's origin: the redo group that queued it, else the cell itself. */
function redoOf(l: QueueLedger): OperatorRedoCell[] {
  const origin = new Map<string, BulkCellRef>();
  for (const g of l.triage.undo) if (g.redo?.from) for (const c of g.redo.cells) origin.set(cellKey(c.unit, c.step), g.redo.from);
  return l.triage.redoQueue.map((q) => ({ unit: q.unit, step: q.step, from: origin.get(cellKey(q.unit, q.step)) ?? { unit: q.unit, step: q.step } }));
}

function derive(l: QueueLedger): OperatorQueues {
  const redrives = redrivesOf(l);
  const redo = redoOf(l);
  if (redrives.length === 0 && redo.length === 0) return NO_OPERATOR_QUEUES;
  const totals = { queued: 0, skipped: 0, held: 0 };
  const long: string[] = [];
  for (const g of redrives) {
    totals.queued += g.queued.length;
    totals.skipped += g.skipped.length;
    totals.held += g.held.length;
    long.push(`redrive ${g.name}: ${countWords({ queued: g.queued.length, skipped: g.skipped.length, held: g.held.length })}`);
  }
  const tally = redriveTally({ redrives, totals });
  const short = tally ? [tally] : [];
  if (redo.length) {
    const origins = new Set(redo.map((c) => cellKey(c.from.unit, c.from.step)));
    long.push(`redo${origins.size === 1 ? ` from ${where(redo[0].from)}` : ''}: ${redo.length} queued`);
    short.push(`redo: ${redo.length} queued`);
  }
  return { redrives, redo, totals, words: long.join(' · '), short: short.join(' · ') };
}

let last: { bulk: Ledger['bulk']; triage: Ledger['triage']; cells: Ledger['cells'] | null; value: OperatorQueues } | null = null;

/**
 * From the ledger (null: no journal); the same object while its parts are the same objects
 * (the fold replaces what changes). The cells matter only while a hold is open: every exit
 * makes a new cells record, and a relaunch of 50k cells is not counted again for it.
 */
export function queuesOf(l: QueueLedger | null): OperatorQueues {
  if (!l) return NO_OPERATOR_QUEUES;
  const cells = l.bulk.actions.some((a) => a.action === 'hold' && a.undoneAt === null) ? l.cells : null;
  if (last && last.bulk === l.bulk && last.triage === l.triage && last.cells === cells) return last.value;
  const value = derive(l);
  last = { bulk: l.bulk, triage: l.triage, cells, value };
  return value;
}

const ref = (c: BulkCellRef): BulkCellRef => ({ unit: c.unit, step: c.step });

/** `status --json`'s `queues`: null when nothing waits (docs/status-json.md). */
export const queuesJson = (q: OperatorQueues) =>
  q.words === null
    ? null
    : {
        words: q.words,
        queued: q.totals.queued,
        skipped: q.totals.skipped,
        held: q.totals.held,
        redrives: q.redrives.map((g) => ({ name: g.name, actions: g.actions, queued: g.queued.length, skipped: g.skipped.length, held: g.held.length, cells: { queued: g.queued.map(ref), skipped: g.skipped.map(ref), held: g.held.map(ref) } })),
        redo: { queued: q.redo.length, cells: q.redo.map((c) => ({ ...ref(c), from: ref(c.from) })) },
      };

/** At most `n` cells named, then how many more. */
const named = (cells: readonly BulkCellRef[], n = 4): string => `${cells.slice(0, n).map(where).join(', ')}${cells.length > n ? ` and ${cells.length - n} more` : ''}`;

/** `status`'s lines: the header's words, then per name what waits and how to undo it, then the redo queue. */
export function queuesLines(q: OperatorQueues): string[] {
  if (q.words === null) return [];
  const out = [q.words];
  for (const g of q.redrives) {
    const what = [g.queued.length ? `queued ${named(g.queued)}` : '', g.skipped.length ? `skipped ${named(g.skipped)}` : '', g.held.length ? `held ${named(g.held)}` : ''].filter(Boolean).join('; ');
    out.push(`  ${g.name}: ${what}`, `    undo: checkroom redrive --undo ${g.name} --yes (in the room :redrive undo ${g.name})`);
  }
  if (q.redo.length) out.push(`  redo: ${named(q.redo)} queued; autopilot takes them first, enter in Plan launches one`);
  return out;
}

/** What a cell waits on: a name's queue, skip or hold, or the redo queue. */
export type CellWait = { name: string; state: 'queued' | 'skipped' | 'held' } | { name: null; state: 'redo'; from: BulkCellRef };

// Built on first ask per queues object (a relaunch of 50k cells pays for it when a view asks, not per change).
const index = new WeakMap<OperatorQueues, Map<string, CellWait>>();

/** What this cell waits on, or undefined; the name acted on last wins, the redo queue over both. */
export function cellWait(q: OperatorQueues, key: string): CellWait | undefined {
  if (q.words === null) return undefined;
  let byCell = index.get(q);
  if (!byCell) {
    index.set(q, (byCell = new Map()));
    for (const g of [...q.redrives].reverse()) for (const state of ['queued', 'skipped', 'held'] as const) for (const c of g[state]) byCell.set(cellKey(c.unit, c.step), { name: g.name, state });
    for (const c of q.redo) byCell.set(cellKey(c.unit, c.step), { name: null, state: 'redo', from: c.from });
  }
  return byCell.get(key);
}

/** Plan's and Health's mark on a cell a named action or a redo still holds: "skipped by night: …"; null when none. */
export function cellQueueMark(q: OperatorQueues, unit: string, step: string): string | null {
  const w = cellWait(q, cellKey(unit, step));
  if (!w) return null;
  if (w.state === 'redo') return `queued redo from ${where(w.from)}: autopilot takes it first`;
  if (w.state === 'queued') return `queued by redrive ${w.name}: launched as slots free`;
  if (w.state === 'skipped') return `skipped by ${w.name}: autopilot and run --next leave it alone`;
  return `held by ${w.name}: nothing starts it until released`;
}
