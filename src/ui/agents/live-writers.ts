import { isAbsolute, relative, sep } from 'node:path';
import type { WorkspaceState } from '../../types.js';
import { cellKey } from '../../types.js';
import { outputOf } from '../../run/process/writers.js';
import type { AgentsUi } from './types.js';
import { operatorOf } from '../store/operator.js';
import { runsOf } from '../../operator/runs.js';

// Live writers are untouchable (docs/decisions/live-writers-untouchable.md). A reviewer still writing its file must not
// be offered "back up" (the agent recreates the file and marks a fragment done) nor "keep"
// (a marker appended mid-write). One pure predicate says whether a cell or a file has a live
// writer, fed by the running set the store already has: this instance's flights (running or
// waiting for a retry), the cells the live workspace shows running, and the runs the journal
// shows started without an end (another instance's, or ones adopted after a restart).

export interface LiveWriter {
  unit: string;
  step: string;
  /** Workspace-relative path it writes, when known. */
  path: string | null;
  pid: number | null;
  /** `here`: a run this control room started; `journal`: one the journal shows alive (the driver's as an observer sees it, or adopted). */
  by: 'here' | 'journal';
  /** In flight but between attempts (backoff, breaker): the next attempt rewrites the file. */
  waiting: boolean;
}

type WriterState = { ws: WorkspaceState; agents: AgentsUi };

const relTo = (root: string, abs: string | null): string | null => {
  if (!abs) return null;
  const rel = isAbsolute(abs) ? relative(root, abs) : abs;
  return rel.startsWith('..') || isAbsolute(rel) ? null : rel.split(sep).join('/');
};

export function liveWriters({ ws, agents }: WriterState): LiveWriter[] {
  // Every view and key check asks, on every state: at 50k cells a map of all cell paths and a
  // key per cell were ~9 MB of garbage a call (control room RSS). The few runs find
  // their cell by a walk that allocates nothing; keys are made for running cells only.
  const path = (unit: string, step: string): string | null =>
    ws.cells.find((c) => c.unit === unit && c.step === step)?.path ?? outputOf(ws.pipeline, unit, step);
  const out = new Map<string, LiveWriter>();
  for (const f of operatorOf({ ws, agents }).runs) out.set(f.key, { unit: f.unit, step: f.step, path: path(f.unit, f.step), pid: f.pid, by: f.origin ? 'journal' : 'here', waiting: f.state === 'waiting' });
  for (const c of ws.cells) {
    if (c.status !== 'running') continue;
    const key = cellKey(c.unit, c.step);
    if (!out.has(key)) out.set(key, { unit: c.unit, step: c.step, path: c.path, pid: null, by: 'here', waiting: false });
  }
  for (const r of agents.snap?.ledger.liveRuns ?? []) {
    const key = cellKey(r.unit, r.step);
    if (!out.has(key)) out.set(key, { unit: r.unit, step: r.step, path: relTo(ws.root, r.outputPath) ?? path(r.unit, r.step), pid: r.pid, by: 'journal', waiting: false });
  }
  return [...out.values()];
}

/** The live writer of this cell or of its file (a shared long-memory file has one for many cells), or null. */
export function writerOf(writers: readonly LiveWriter[], t: { unit: string; step: string; path: string }): LiveWriter | null {
  return writers.find((w) => (w.unit === t.unit && w.step === t.step) || (w.path !== null && w.path === t.path)) ?? null;
}

/**
 * The keys of cells written by a run (this instance's flights, the journal's live runs),
 * without the walk over every cell that finds the ones the workspace shows running: the
 * matrix draws those running anyway, and at 100k files the walk was on every frame.
 */
export function runWritingCells(agents: AgentsUi): ReadonlySet<string> {
  const keys = new Set(runsOf(agents.snap).map((f) => f.key));
  for (const r of agents.snap?.ledger.liveRuns ?? []) keys.add(cellKey(r.unit, r.step));
  return keys;
}

/** How the writer reads in a list row: "being written", "retry pending". */
export const writerWord = (w: LiveWriter): string => (w.waiting ? 'retry pending' : 'being written');

/** Why a triage or relaunch key does nothing (raw text; callers sanitize). What matters comes first: the message line is cut at the terminal's width. */
export function writingWhy(w: LiveWriter, t: { unit: string; step: string; path: string }): string {
  const what = w.waiting ? `${t.path} waits for its next attempt` : `${t.path} is being written`;
  const by = w.unit === t.unit && w.step === t.step ? '' : ` by ${w.unit} ${w.step}`;
  const pid = w.pid !== null ? ` (pid ${w.pid})` : '';
  const origin = w.by === 'journal' ? '; a run this control room did not start' : '';
  return `${what}${by}${pid}: hands off until it stops (no back-up, keep or redo)${origin}`;
}
