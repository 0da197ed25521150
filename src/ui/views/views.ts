import type { WorkspaceState } from '../../types.js';
import type { SchedulerSource } from '../../sources/scheduler.js';
import type { AgentsUi } from '../agents/types.js';
import { healthList } from './health-filter.js';
import { operatorOf } from '../store/operator.js';
import { matrixOf, partialItems, planItems, sourceItems, type RedoEntry } from '../store/select.js';
import { healthKey, partialKey, planKey, sourceKey } from '../keys/item-keys.js';
import { lastMapped, perItem } from '../store/list-memo.js';
import type { HistoryUi } from '../history/types.js';
import { historyRows } from '../history/list.js';

// The control room's views, registered in one list: the number keys, Tab
// order, the `:name` commands, the tab bar, the cursors of the initial UI state, the picks,
// each view's list (nav.ts: its length, its keys) and the cursor clamping all come from here.
// A new view is one more row here plus one component in components/Views.tsx.

/** What a view's list is computed from: the workspace and the UI state that filters or extends it. */
export interface ListInput {
  ws: WorkspaceState;
  filter: string;
  skipped: readonly string[];
  redoQueue: readonly RedoEntry[];
  agents: AgentsUi;
  recovery?: { resume: { disagreements: readonly string[] } | null; scheduler?: SchedulerSource | null };
  /** The journal's timeline (the History view); absent: an empty one. */
  history?: HistoryUi;
}

export interface ViewDef {
  id: string;
  /** The number key that opens it. */
  key: string;
  title: string;
  /** The keys of its items, in list order (picked.ts: what identity means per list). */
  list(s: ListInput): string[];
  /** Whether the tab bar shows how many items it holds, unfiltered. */
  counted: boolean;
}

// A list's keys, made once per list and each item's key once per item (the
// store places every view's cursor after each change; at 50k files that was ~20k new key
// strings a change). Lists and items are shared while unchanged (select.ts, list-memo.ts).
const keysOf = <T extends object>(key: (t: T) => string): ((items: readonly T[]) => string[]) => {
  const itemKey = perItem(key);
  const fromLast = lastMapped(itemKey);
  return perItem((items: readonly T[]) => fromLast(items));
};
const partialKeys = keysOf(partialKey);
const planKeys = keysOf(planKey);

export const VIEWS = [
  { id: 'progress', key: '1', title: 'Progress', list: (s) => matrixOf(s.ws, s.filter).keys, counted: false },
  { id: 'partials', key: '2', title: 'Partials', list: (s) => partialKeys(partialItems(s.ws, s.filter, s.skipped)), counted: true },
  { id: 'plan', key: '3', title: 'Plan', list: (s) => planKeys(planItems(operatorOf(s).plan, s.filter, s.redoQueue, operatorOf(s).runs)), counted: true },
  { id: 'sources', key: '4', title: 'Sources', list: (s) => sourceItems(s.ws, s.filter, s.recovery?.resume?.disagreements, s.recovery?.scheduler ?? null).map(sourceKey), counted: true },
  { id: 'health', key: '5', title: 'Health', list: (s) => healthList(operatorOf(s), s.filter).map(healthKey), counted: false },
  { id: 'history', key: '6', title: 'History', list: (s) => historyRows(s.history, s.filter).keys, counted: false },
] as const satisfies readonly ViewDef[];

export type ViewId = (typeof VIEWS)[number]['id'];

export const VIEW_IDS: readonly ViewId[] = VIEWS.map((v) => v.id);

/** A table with one entry per registered view: cursors, picks. */
export const perView = <T>(value: (id: ViewId) => T): Record<ViewId, T> => Object.fromEntries(VIEWS.map((v) => [v.id, value(v.id)])) as Record<ViewId, T>;

export const viewOf = (id: ViewId): ViewDef => VIEWS.find((v) => v.id === id)!;

/** The tab bar's count: the unfiltered list (without RESUME.md's lines), or null for a view that shows none. */
export const tabCount = (v: ViewDef, s: ListInput): number | null => (v.counted ? v.list({ ...s, filter: '', recovery: undefined }).length : null);

// The tab bar asks on every change of the store (a key, a message); at 50k files the Partials
// and Plan lists it counted were ~10k items and keys each time (control room RSS).
// Counts depend only on what a counted list is built from, so they are kept until one changes.
let lastCounts: { of: unknown[]; counts: Record<ViewId, number | null> } | null = null;

/** Every view's tab count (`tabCount`), computed again only when the lists' inputs change. */
export function tabCounts(s: ListInput): Record<ViewId, number | null> {
  const of = [s.ws, s.skipped, s.redoQueue, s.agents];
  if (!lastCounts || lastCounts.of.some((x, i) => x !== of[i])) lastCounts = { of, counts: perView((id) => tabCount(viewOf(id), s)) };
  return lastCounts.counts;
}

/** Every view's cursor at its first row. */
export const initialCursors = (): Record<ViewId, number> => perView(() => 0);

export const nextView = (id: ViewId, step = 1): ViewId => {
  const i = VIEWS.findIndex((v) => v.id === id);
  return VIEWS[(i + step + VIEWS.length) % VIEWS.length].id;
};
