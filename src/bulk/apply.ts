import { randomBytes } from 'node:crypto';
import type { Ledger } from '../run/journal/ledger.js';
import type { NewJournalEvent } from '../run/journal/journal.js';
import { cellKey } from '../types.js';
import type { BulkAction, BulkCellRef, BulkRecord } from './events.js';

// A set action is one journal record, and its undo one more (docs/redrive.md): the API every
// set of cells goes through — a filter's (`:redrive`, `checkroom redrive`) or, after the
// marks, a marked set's. Relaunching is queueing: the launcher takes the queue through the same
// gate as every launch (supervisor's redrive, autopilot's preference), never around it.

/** What recording and undoing need of the journal: the supervisor's JournalPort is one. */
export interface BulkJournal {
  append(e: NewJournalEvent): Promise<void>;
  ledger(): Ledger;
  now(): number;
}

export interface BulkOrder {
  action: BulkAction;
  /** The operator's name; null: `<action>-HHMM`. */
  name: string | null;
  /** The filter as typed, or where the set came from. */
  filter: string;
  cells: readonly BulkCellRef[];
}

export class BulkError extends Error {}

const pad2 = (n: number): string => String(n).padStart(2, '0');
export const defaultName = (action: BulkAction, at: number): string => `${action}-${pad2(new Date(at).getHours())}${pad2(new Date(at).getMinutes())}`;

/** The journal record of an order (not yet appended): its id is fresh, its name the operator's or the clock's. */
export function bulkRecordOf(o: BulkOrder, at: number): Extract<NewJournalEvent, { type: 'bulk_action' }> {
  if (o.cells.length === 0) throw new BulkError('no cell to act on: nothing was recorded');
  const seen = new Set<string>();
  const cells = o.cells.filter((c) => !seen.has(cellKey(c.unit, c.step)) && seen.add(cellKey(c.unit, c.step))).map((c) => ({ unit: c.unit, step: c.step }));
  const id = `bulk-${at.toString(36)}-${randomBytes(3).toString('hex')}`;
  return { type: 'bulk_action', at, id, name: o.name ?? defaultName(o.action, at), action: o.action, filter: o.filter, cells };
}

/** Record the order as one journal line; its record as the ledger folds it. */
export async function recordBulk(j: BulkJournal, o: BulkOrder): Promise<BulkRecord> {
  const e = bulkRecordOf(o, j.now());
  await j.append(e);
  return j.ledger().bulk.actions.find((a) => a.id === e.id)!;
}

export interface UndoPlan {
  record: BulkRecord;
  /** Cells the undo gives back (for a relaunch: those not launched yet). */
  back: string[];
  /** A relaunch's cells that ran already: they stay. */
  ran: string[];
}

/** Which action an undo reverts: the one named (`name` or id), else the last not undone. */
export function undoPlanOf(l: Ledger, which: string | null): UndoPlan {
  const open = l.bulk.actions.filter((a) => a.undoneAt === null);
  const rec = which === null ? open.at(-1) : [...open].reverse().find((a) => a.name === which || a.id === which);
  if (!rec) {
    const done = which !== null && l.bulk.actions.some((a) => a.name === which || a.id === which);
    throw new BulkError(which === null ? 'no set action to undo' : done ? `${which} was undone already` : `no set action named ${which}: the journal's are ${open.map((a) => a.name).join(', ') || '(none)'}`);
  }
  const keys = rec.cells.map((c) => cellKey(c.unit, c.step));
  if (rec.action !== 'relaunch') return { record: rec, back: keys, ran: [] };
  return { record: rec, back: keys.filter((k) => l.bulk.queue[k]?.id === rec.id), ran: [...rec.launched] };
}

/** What an undo did, in words (raw workspace text inside). */
export function undoWords(p: UndoPlan): string {
  const r = p.record;
  const what = { relaunch: 'unqueued, counters back', reset: 'attempts restored', skip: 'unskipped', hold: 'released' }[r.action];
  const ran = p.ran.length ? `; ${p.ran.length} already ran and stay${p.ran.length === 1 ? 's' : ''} (${p.ran.join(' ')})` : '';
  return `undid ${r.name}: ${p.back.length} cell${p.back.length === 1 ? '' : 's'} ${what}${ran}`;
}

/** Undo one named action as one journal record. */
export async function undoBulk(j: BulkJournal, which: string | null): Promise<UndoPlan> {
  const p = undoPlanOf(j.ledger(), which);
  await j.append({ type: 'bulk_undo', at: j.now(), id: p.record.id, name: p.record.name });
  return p;
}
