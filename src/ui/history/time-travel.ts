import { pastCells, pastState } from '../../history/past.js';
import { parseMoment, SinceError } from '../../history/filter.js';
import { clockOf } from '../../history/words.js';
import type { AppState, UiState } from '../store/types.js';
import type { Past } from './types.js';
import type { AgentsUi } from '../agents/types.js';
import type { JournalEvent } from '../../run/journal/journal.js';
import type { LedgerConfig } from '../../run/journal/ledger.js';
import { replayJournal } from '../../run/journal/ledger-fold.js';

// Time travel (docs/history.md, Time travel): the store keeps the moment and the workspace
// rebuilt for it; components read the state through `asShown`, so every view draws the past
// while store actions keep acting on now (and refuse what writes: store-keys.ts).

const shown = new WeakMap<object, object>();

/** The state as the views draw it: the past's workspace while a moment is set. */
export function asShown<S extends { past: Past | null; ws: unknown; agents: unknown }>(s: S): S {
  if (!s.past) return s;
  let v = shown.get(s) as S | undefined;
  if (!v) shown.set(s, (v = { ...s, ws: s.past.ws, ...(s.past.agents ? { agents: s.past.agents } : {}) }));
  return v;
}

/** "the past: 14:05:10 (from the journal)" and what is not from it. */
export const pastWords = (p: Past): string =>
  `the past: ${clockOf(p.at)} (from the journal${p.notJournalled ? `; ${p.notJournalled} cells not journalled, as now` : ''})`;

/** Go to the moment `at`: the workspace rebuilt from the journal's events up to it. */
export function travelTo(s: Pick<AppState, 'ws' | 'history' | 'agents'>, at: number): Partial<UiState> {
  if (!s.history.fold) return { message: { text: 'the journal is still being read; try again in a moment', tone: 'warn' } };
  const { ws, notJournalled } = pastState(s.ws, pastCells(s.history.events, at));
  const agents = s.history.ledger ? pastAgents(s.agents, s.history.events, at, s.history.ledger) : null;
  const past: Past = { at, ws, notJournalled, ...(agents ? { agents } : {}) };
  return { past, message: { text: 'every view shows the pipeline as it was then; actions are off; esc returns to now', tone: 'info' } };
}

/** `:at 14:05` on the command line: the moment it names, or what to type instead. */
export function travelCommand(s: Pick<AppState, 'ws' | 'history' | 'agents'>, text: string, now: number): Partial<UiState> | null {
  const m = /^:?at\s+(.+)$/i.exec(text.trim());
  if (!m) return null;
  try {
    return travelTo(s, parseMoment(m[1], now));
  } catch (err) {
    if (err instanceof SinceError) return { message: { text: `:at ${err.message}`, tone: 'warn' } };
    throw err;
  }
}

/**
 * The supervisor as the views saw it at `at`: its ledger folded from the journal's events up to
 * then (breakers, attempts, escalations, holds, autopilot, spend), nothing in flight (what ran
 * then shows as running in the past's cells), the model's clock at the moment. Null without one.
 */
export function pastAgents(a: AgentsUi, events: readonly JournalEvent[], at: number, cfg: LedgerConfig): AgentsUi | null {
  const snap = a.snap;
  if (!snap) return null;
  const upTo: JournalEvent[] = [];
  for (const e of events) if (e.at <= at) upTo.push(e);
  const ledger = replayJournal(upTo, at, cfg);
  const autopilot = { on: ledger.autopilot?.on ?? false, paused: ledger.paused, reason: ledger.pausedReason ?? ledger.autopilot?.reason ?? '' };
  return {
    ...a,
    at,
    snap: {
      ...snap,
      ledger,
      runs: [],
      waiting: [],
      autopilot,
      launchesThisSession: ledger.launchesThisSession,
      limits: { ...snap.limits, consecutiveFailures: ledger.consecutiveFailures },
    },
  };
}

export const backToNow = (): Partial<UiState> => ({ past: null, message: { text: 'back to now', tone: 'info' } });
