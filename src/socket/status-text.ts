import type { WorkspaceState } from '../types.js';
import type { CostLedger } from '../run/journal/costs.js';
import { scanCounts } from '../operator/model.js';
import type { OperatorRun } from '../operator/types.js';
import type { Foresight } from '../foresight/types.js';
import { NO_OPERATOR_PAUSE, type OperatorPause } from '../operator/pause.js';
import { NO_OPERATOR_QUEUES, type OperatorQueues } from '../operator/queues.js';

// The status document a control room answers on its socket, kept by block:
// 50k cells took ~400 ms to serialize whole, and a busy control room has a new state every
// few seconds. The long lists (cells, half-products, suspects, plan) are cut into blocks of
// BLOCK items; a block whose items are the same objects as last time (the live model keeps
// the cells and plan entries of untouched units, live-derive.ts) keeps its text, so an answer
// after one file event serializes one block per list plus the short rest of the document.
// The text is exactly `statusJsonText`'s and checked to be once per control room: if that
// format ever changes, this falls back to it whole (correct, only slower) — see `trusted`.

const LISTS = ['cells', 'partials', 'suspects', 'next'] as const;
type List = (typeof LISTS)[number];
const BLOCK = 256;

interface Block {
  items: readonly unknown[];
  /** The cells' spend entries it was rendered with (the ledger replaces an entry when it changes). */
  spends: readonly unknown[] | null;
  text: Buffer;
}

/** The answer's bytes, in order (written as they are: never joined into one copy). */
export type StatusText = (s: WorkspaceState) => readonly Buffer[];

const hole = (list: List): string => `\n  "${list}": [],\n`;
const SEP = Buffer.from(',\n');
const empties = { cells: [], partials: [], suspects: [], next: [] };

/** A stable number per unit id (FNV-1a): where blocks may end. */
const hashes = new Map<string, number>();
const hashOf = (unit: string | null): number => {
  const u = unit ?? '';
  let h = hashes.get(u);
  if (h === undefined) {
    h = 0x811c9dc5;
    for (let i = 0; i < u.length; i++) h = Math.imul(h ^ u.charCodeAt(i), 16777619) >>> 0;
    hashes.set(u, h);
  }
  return h;
};

/**
 * Where each block starts. Blocks end where the unit changes to one whose hash says so, not
 * at fixed indexes: a half-product or plan entry that goes away (a marker appended) changes
 * its own block, not every block after it.
 */
function cuts(items: readonly { unit: string | null }[], every: number): number[] {
  const out = items.length ? [0] : [];
  for (let i = 1; i < items.length; i++) if (items[i].unit !== items[i - 1].unit && hashOf(items[i].unit) % every === 0) out.push(i);
  return out;
}

/** The `status --json` contract, as the CLI edge defines it (src/cli/json.ts; given by the entry, which may import the CLI). */
export interface StatusFormat {
  /** statusJson: the document as a value. */
  doc(s: WorkspaceState, costs?: CostLedger, runs?: null, foresight?: Foresight | null, pause?: OperatorPause, queues?: OperatorQueues): { cells: unknown[]; partials: unknown[]; suspects: unknown[]; next: unknown[] };
  /** toJson: a value as the document's text. */
  json(value: unknown): string;
  /** statusJsonText: the whole document's text, what a scan prints. */
  whole(s: WorkspaceState, costs?: CostLedger, foresight?: Foresight | null, pause?: OperatorPause, queues?: OperatorQueues): string;
}

/**
 * The whole text with the room's counts in place of the scan's: counts are numbers under
 * ASCII keys, so their compact text is exactly JSON.stringify's, once in the document.
 */
const withRoomCounts = (whole: string, s: WorkspaceState, r: readonly OperatorRun[] | null): string =>
  r ? whole.replace(`"counts":${JSON.stringify(scanCounts(s))}`, `"counts":${JSON.stringify(scanCounts(s, r))}`) : whole;

/**
 * `costs`: the journal's spend now (undefined without a supervisor); `runs`: its runs now, for
 * the counts (null without one); `foresight`, `pause`, `queues`: the room's operator model's
 * (docs/foresight.md, docs/drain.md, docs/redrive.md).
 */
export function liveStatusText(
  format: StatusFormat,
  costs: () => CostLedger | undefined = () => undefined,
  runs: () => readonly OperatorRun[] | null = () => null,
  foresight: (s: WorkspaceState) => Foresight | null = () => null,
  pause: () => OperatorPause = () => NO_OPERATOR_PAUSE,
  queues: () => OperatorQueues = () => NO_OPERATOR_QUEUES,
): StatusText {
  const { doc: statusJson, json: toJson, whole: statusJsonText } = format;
  const kept: Record<List, Map<unknown, Block>> = { cells: new Map(), partials: new Map(), suspects: new Map(), next: new Map() };
  // Units per block, per list, fixed on the first answer (a change would move every cut).
  const every = new Map<List, number>();
  let last: { state: WorkspaceState; costs: CostLedger | undefined; runs: string; foresight: Foresight | null; pause: OperatorPause; queues: OperatorQueues; text: readonly Buffer[] } | null = null;
  let trusted: boolean | null = null;

  const spendsOf = (items: readonly unknown[], l: CostLedger | undefined): unknown[] | null => {
    if (!l?.cells || !Object.keys(l.cells).length) return null;
    return (items as WorkspaceState['cells']).map((c) => l.cells[`${c.unit}/${c.step}`]);
  };
  const same = (b: Block | undefined, items: readonly unknown[], from: number, to: number, spends: readonly unknown[] | null): boolean => {
    if (!b || b.items.length !== to - from || (b.spends === null) !== (spends === null)) return false;
    for (let i = from; i < to; i++) if (b.items[i - from] !== items[i] || (spends && b.spends![i - from] !== spends[i - from])) return false;
    return true;
  };
  /** One block's items as they sit in the document: indented four, no brackets. */
  const render = (s: WorkspaceState, list: List, items: readonly unknown[], l: CostLedger | undefined): Buffer => {
    const text = toJson(statusJson({ ...s, ...empties, [list]: items }, l)[list]);
    return Buffer.from(`  ${text.slice(2, -2).replaceAll('\n', '\n  ')}`);
  };
  const listText = (s: WorkspaceState, list: List, l: CostLedger | undefined): Buffer[] => {
    const items = s[list] as readonly { unit: string | null }[];
    if (!every.has(list)) every.set(list, Math.max(1, Math.round((BLOCK * new Set(items.map((x) => x.unit)).size) / items.length)));
    const at = cuts(items, every.get(list)!);
    const next = new Map<unknown, Block>();
    const out: Buffer[] = [];
    at.forEach((from, k) => {
      const to = at[k + 1] ?? items.length;
      const part = items.slice(from, to);
      const spends = list === 'cells' ? spendsOf(part, l) : null;
      const old = kept[list].get(items[from]);
      const b = same(old, items, from, to, spends) ? old! : { items: part, spends, text: render(s, list, part, l) };
      next.set(items[from], b);
      if (k) out.push(SEP);
      out.push(b.text);
    });
    kept[list] = next;
    return out;
  };

  // The counts are the operator model's, with the room's runs (the header
  // said 1 running where the socket said the running set, cells between attempts included).
  const byBlock = (s: WorkspaceState, l: CostLedger | undefined, r: readonly OperatorRun[] | null = null, f: Foresight | null = null, p: OperatorPause = NO_OPERATOR_PAUSE, q: OperatorQueues = NO_OPERATOR_QUEUES): Buffer[] => {
    let head = toJson({ ...statusJson({ ...s, ...empties }, l, null, f, p, q), counts: scanCounts(s, r) }) + '\n';
    const out: Buffer[] = [];
    for (const list of LISTS) {
      if (!(s[list] as readonly unknown[]).length) continue;
      const at = head.indexOf(hole(list));
      out.push(Buffer.from(`${head.slice(0, at)}\n  "${list}": [\n`), ...listText(s, list, l));
      head = `\n  ],\n${head.slice(at + hole(list).length)}`;
    }
    out.push(Buffer.from(head));
    return out;
  };

  return (s) => {
    const l = costs();
    const r = runs();
    const f = foresight(s);
    const p = pause();
    const q = queues();
    const rk = r ? r.map((x) => `${x.key}:${x.state}`).join(',') : '';
    if (last && last.state === s && last.costs === l && last.runs === rk && last.foresight === f && last.pause === p && last.queues === q) return last.text;
    // Once per control room: the blocks must add up to statusJsonText on a few real items.
    if (trusted === null) {
      const probe = { ...s, cells: s.cells.slice(0, 3), partials: s.partials.slice(0, 2), suspects: s.suspects.slice(0, 2), next: s.next.slice(0, 2) };
      const holes = LISTS.every((list) => toJson(statusJson({ ...s, ...empties }, l)).includes(hole(list)));
      trusted = holes && Buffer.concat(byBlock(probe, l, null, f, p, q)).toString('utf8') === statusJsonText(probe, l, f, p, q);
      for (const list of LISTS) kept[list].clear();
      every.clear();
    }
    last = { state: s, costs: l, runs: rk, foresight: f, pause: p, queues: q, text: trusted ? byBlock(s, l, r, f, p, q) : [Buffer.from(withRoomCounts(statusJsonText(s, l, f, p, q), s, r))] };
    return last.text;
  };
}
