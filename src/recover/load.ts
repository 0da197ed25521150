import type { WorkspaceState } from '../types.js';
import { readSources, stateOf, type Sources } from '../workspace.js';
import { readJournal, type DecisionEvent } from '../run/journal/journal.js';
import { replayJournal } from '../run/journal/ledger-fold.js';
import { jobOf } from '../run/executors/types.js';
import { lastSessionEnd, type LastSession } from './session-end.js';

// Everything recovery reads, in the order of the recovery flow (docs/recovery.md, `checkroom recover`):
// the three sources (checkpoint.md, the todo table, the filesystem) reconciled into one
// state with the long-memory rebuild planned, plus what the journal remembers (decisions,
// breakers, runs that never reported back). Read-only.

export interface JournalFacts {
  events: number;
  decisions: DecisionEvent[];
  breakers: { agent: string; detail: string }[];
  /** Cells (`unit/step`) of launches with no exit whose process is still alive. */
  live: Set<string>;
  /** Launches with no exit whose process is gone: a session died mid-step. */
  orphans: { unit: string; step: string; pid: number | null }[];
  warnings: string[];
  /** How the session before this process ended (a clean quit is no interruption). */
  lastSession: LastSession;
}

const alive = (pid: number | null): boolean => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export async function readJournalFacts(root: string, src: Sources, now: number): Promise<JournalFacts> {
  const j = await readJournal(root);
  const decisions = j.events.filter((e): e is DecisionEvent => e.type === 'decision');
  const ledger = replayJournal(j.events, now, { breaker: src.config.breaker, limits: src.config.limits });
  const breakers = Object.values(ledger.agents)
    .filter((a) => a.view.state !== 'closed')
    .map((a) => ({
      agent: a.agent,
      detail: `${a.view.state.replace('_', '-')} after ${a.view.consecutiveFailures} consecutive failures${a.view.openedBy.length ? ` (${a.view.openedBy[0]})` : ''}`,
    }));
  const live = new Set<string>();
  const orphans: JournalFacts['orphans'] = [];
  for (const r of ledger.liveRuns) {
    // A cluster job outlives its checkroom; the next one adopts it, and the
    // scheduler source says whether it still runs.
    if (alive(r.pid) || jobOf(r)) live.add(`${r.unit}/${r.step}`);
    else orphans.push({ unit: r.unit, step: r.step, pid: r.pid });
  }
  return { events: j.events.length, decisions, breakers, live, orphans, warnings: j.warnings, lastSession: lastSessionEnd(j.events, process.pid) };
}

export interface RecoveryState {
  sources: Sources;
  state: WorkspaceState;
  journal: JournalFacts;
}

/**
 * The workspace as already read, for recovery to use instead of reading it again: a control
 * room's live model (src/live), whose sources and state are what a fresh read gives (control room RSS at 50k ≤ 150 MB; the recover report read and derived all 50k files a
 * second time, +95 MB at peak).
 */
export interface WorkspaceRead {
  sources: Sources;
  /** The state of `sources` with these cells running: `stateOf(sources, running)`. */
  stateFor(running: ReadonlySet<string>): WorkspaceState;
}

/**
 * The reconciled state as recovery sees it: long-memory rebuilds planned, level 2 filled, live
 * runs from the journal. `read`: the workspace as already read, else it is read from disk.
 */
export async function loadRecoveryState(dir: string, now = Date.now(), read?: WorkspaceRead): Promise<RecoveryState> {
  const src = read?.sources ?? (await readSources(dir));
  const journal = await readJournalFacts(src.root, src, now);
  // The everyday state (long-memory rebuilds planned, level 2 filled), with the journal's live runs.
  return { sources: src, state: read ? read.stateFor(journal.live) : stateOf(src, journal.live), journal };
}
