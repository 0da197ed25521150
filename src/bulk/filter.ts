import { parseMoment, SinceError } from '../history/filter.js';
import { BUILT_IN_CLASSES } from '../pipeline/failure-classes.js';
import { BULK_ACTIONS, type BulkAction } from './events.js';

// The redrive filter (docs/redrive.md, The filter): `key=value` terms, all of which a cell must
// pass; a term's values are alternatives (`class=RATE_LIMITED,INFRA`). Times are local, read as
// History reads `--since` (history/filter.ts parseMoment). A bad term is an error that says
// what is wrong and what to write.

/** What a cell's state is called in a filter. */
export const BULK_STATUSES = ['failed', 'escalated', 'partial', 'waiting', 'held', 'skipped', 'not_started', 'done', 'running'] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];

/** The statuses a filter with no `status=` selects: cells that stopped short of their marker. */
export const DEFAULT_STATUSES: readonly BulkStatus[] = ['failed', 'escalated', 'partial', 'waiting', 'held'];

export interface UnitRange {
  from: string;
  to: string;
}

export interface CellFilter {
  statuses: ReadonlySet<BulkStatus> | null;
  /** Failure classes (RATE_LIMITED, INFRA, …) of a failed run of the cell. */
  classes: ReadonlySet<string> | null;
  agents: ReadonlySet<string> | null;
  executors: ReadonlySet<string> | null;
  steps: ReadonlySet<string> | null;
  /** Units by name, or ranges in the workspace's unit order (`ch03..ch07`). */
  units: { names: ReadonlySet<string>; ranges: readonly UnitRange[] } | null;
  batches: ReadonlySet<number> | null;
  /** A failed run of the cell ended in [from, to] (epoch ms); each bound may be open. */
  from: number | null;
  to: number | null;
}

export interface RedriveRequest {
  filter: CellFilter;
  action: BulkAction;
  /** The action's name (`name=`), or null: the caller names it. */
  name: string | null;
  /** The filter's own terms, as typed (action= and name= left out): the record keeps it. */
  text: string;
}

export class BulkFilterError extends Error {}

const EXAMPLE = 'class=RATE_LIMITED from=02:00 to=04:00 agent=writer step=draft units=ch03..ch07';
const KEYS = ['status', 'class', 'agent', 'executor', 'step', 'units', 'unit', 'batch', 'from', 'to', 'since', 'action', 'name'] as const;
type Key = (typeof KEYS)[number];
const CLASSES: readonly string[] = [...BUILT_IN_CLASSES.names, 'CANCELLED'];
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const listOf = (key: string, value: string): string[] => {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.some((p) => p === '')) throw new BulkFilterError(`${key}= has an empty value in "${value}": separate values with commas, no spaces (${key}=a,b)`);
  return parts;
};

const statusOf = (v: string): BulkStatus => {
  const s = v.toLowerCase().replace(/-/g, '_');
  const alias: Record<string, BulkStatus> = { needs_human: 'escalated', retrying: 'waiting', pending: 'not_started' };
  const found = (BULK_STATUSES as readonly string[]).includes(s) ? (s as BulkStatus) : alias[s];
  if (!found) throw new BulkFilterError(`status=${v} is not a status: write one of ${BULK_STATUSES.join(', ')}`);
  return found;
};

const classOf = (v: string): string => {
  const c = v.toUpperCase();
  if (!CLASSES.includes(c)) throw new BulkFilterError(`class=${v} is not a failure class: write one of ${CLASSES.join(', ')}`);
  return c;
};

const batchesOf = (v: string): number[] =>
  listOf('batch', v).flatMap((p) => {
    const m = /^(\d+)(?:\.\.(\d+))?$/.exec(p);
    if (!m) throw new BulkFilterError(`batch=${p} is not a batch: write a number or a range (batch=2, batch=2..4)`);
    const [a, b] = [Number(m[1]), Number(m[2] ?? m[1])];
    if (b < a) throw new BulkFilterError(`batch=${p} runs backwards: write the lower batch first (batch=${b}..${a})`);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });

const momentOf = (key: string, v: string, now: number): number => {
  try {
    return parseMoment(v, now);
  } catch (err) {
    if (err instanceof SinceError) throw new BulkFilterError(`${key}=${v}: ${err.message}`);
    throw err;
  }
};

interface Draft {
  terms: string[];
  filter: { -readonly [K in keyof CellFilter]: CellFilter[K] };
  action: BulkAction;
  name: string | null;
  rawTo: string | null;
}

const union = <T>(prev: ReadonlySet<T> | null, add: readonly T[]): ReadonlySet<T> => new Set([...(prev ?? []), ...add]);

function applyTerm(d: Draft, key: Key, value: string, now: number): void {
  const f = d.filter;
  switch (key) {
    case 'status':
      f.statuses = union(f.statuses, listOf(key, value).map(statusOf));
      break;
    case 'class':
      f.classes = union(f.classes, listOf(key, value).map(classOf));
      break;
    case 'agent':
      f.agents = union(f.agents, listOf(key, value));
      break;
    case 'executor':
      f.executors = union(f.executors, listOf(key, value));
      break;
    case 'step':
      f.steps = union(f.steps, listOf(key, value));
      break;
    case 'unit':
    case 'units': {
      const names = new Set(f.units?.names ?? []);
      const ranges = [...(f.units?.ranges ?? [])];
      for (const p of listOf(key, value)) {
        const r = p.split('..');
        if (r.length === 1) names.add(p);
        else if (r.length === 2 && r[0] && r[1]) ranges.push({ from: r[0], to: r[1] });
        else throw new BulkFilterError(`units=${p} is not a unit or a range: write units=ch03 or units=ch03..ch07`);
      }
      f.units = { names, ranges };
      break;
    }
    case 'batch':
      f.batches = union(f.batches, batchesOf(value));
      break;
    case 'from':
    case 'since':
      f.from = momentOf(key, value, now);
      break;
    case 'to':
      f.to = momentOf(key, value, now);
      d.rawTo = value;
      break;
    case 'action':
      if (!(BULK_ACTIONS as readonly string[]).includes(value)) throw new BulkFilterError(`action=${value} is not an action: write action=${BULK_ACTIONS.join('|')}`);
      d.action = value as BulkAction;
      return;
    case 'name':
      if (!NAME.test(value)) throw new BulkFilterError(`name=${value} is not a name: letters, digits, '.', '_' and '-', at most 64 (name=rate-limit-0200)`);
      d.name = value;
      return;
  }
  d.terms.push(`${key}=${value}`);
}

/** `to=04:00` with `from=02:00` means the 04:00 after that 02:00, not the last one before now. */
const windowEnd = (d: Draft): void => {
  const f = d.filter;
  if (f.from === null || f.to === null || f.to >= f.from) return;
  if (d.rawTo && /^\d{1,2}:\d{2}$/.test(d.rawTo.trim()) && f.to + 86_400_000 >= f.from) f.to += 86_400_000;
  else throw new BulkFilterError(`to= is before from=: the window's end must come after its start (from=02:00 to=04:00)`);
};

/**
 * Parse a filter line at `now`. Throws BulkFilterError naming the bad term and what to write;
 * an empty filter is refused (a redrive of everything is not a filter).
 */
export function parseRedrive(text: string, now: number): RedriveRequest {
  const d: Draft = {
    terms: [],
    filter: { statuses: null, classes: null, agents: null, executors: null, steps: null, units: null, batches: null, from: null, to: null },
    action: 'relaunch',
    name: null,
    rawTo: null,
  };
  for (const word of text.trim().split(/\s+/).filter(Boolean)) {
    const eq = word.indexOf('=');
    const key = (eq < 0 ? word : word.slice(0, eq)).toLowerCase();
    if (!(KEYS as readonly string[]).includes(key)) throw new BulkFilterError(`"${word}" is not a filter term: write key=value with key one of ${KEYS.join(', ')} (e.g. ${EXAMPLE})`);
    const value = eq < 0 ? '' : word.slice(eq + 1);
    if (value === '') throw new BulkFilterError(`${key}= has no value: write ${key}=… (e.g. ${EXAMPLE})`);
    applyTerm(d, key as Key, value, now);
  }
  if (d.terms.length === 0) throw new BulkFilterError(`no filter: name the cells to redrive (e.g. ${EXAMPLE})`);
  windowEnd(d);
  return { filter: d.filter, action: d.action, name: d.name, text: d.terms.join(' ') };
}
