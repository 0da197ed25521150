import type { CellStatus, WorkspaceState } from '../types.js';
import { cellKey } from '../types.js';
import { CLAIM_GLYPH } from '../checkpoint/glyphs.js';
import { CLAIM_OF } from '../checkpoint/from-state.js';
import { stopOfState } from '../state/where-words.js';

// The facts a RESUME.md states, computed from the reconciled state. buildResume writes them,
// parseResume reads them back, resumeDrift compares a letter's facts with today's disk: one
// definition for all three, so a round trip is exact.

export interface ResumeTask {
  unit: string;
  step: string;
  status: CellStatus;
  priority: 1 | 2 | 3;
}

export interface ResumeFacts {
  phase: number | null;
  batch: number | null;
  done: string[];
  inProgress: string[];
  notStarted: string[];
  /** Listed tasks (at most UNFINISHED_LIMIT), plan order first. */
  unfinished: ResumeTask[];
  /** How many tasks exist in all (the letter says how many it left out). */
  unfinishedTotal: number;
}

export const UNFINISHED_LIMIT = 30;

/** A status as checkpoint.md would show it. */
export const statusGlyph = (s: CellStatus): string => CLAIM_GLYPH[CLAIM_OF[s]];

const STARTED_UNFINISHED = new Set<CellStatus>(['partial', 'failed', 'needs_human', 'running']);
const DEFAULT_PRIORITY: Record<CellStatus, 1 | 2 | 3> = { failed: 1, needs_human: 1, partial: 2, running: 3, not_started: 3, done: 3 };

/**
 * A chapter is done when every one of its cells up to the current phase is done (in phase 3
 * that is the eight writing steps); in progress when any of its cells has been touched;
 * otherwise not started.
 */
export function unitProgress(state: WorkspaceState): Pick<ResumeFacts, 'done' | 'inProgress' | 'notStarted'> {
  const phaseOf = new Map(state.pipeline.steps.map((s) => [s.id, s.phase]));
  const perUnitPhases = state.pipeline.steps.map((s) => s.phase);
  const lastPhase = Math.max(0, ...state.pipeline.phases.map((p) => p.id));
  const scope = Math.max(state.currentPhase ?? lastPhase, perUnitPhases.length ? Math.min(...perUnitPhases) : 0);
  const scoped = new Map<string, { all: number; done: number; touched: boolean }>();
  for (const c of state.cells) {
    const s = scoped.get(c.unit) ?? { all: 0, done: 0, touched: false };
    if (c.status !== 'not_started') s.touched = true;
    if ((phaseOf.get(c.step) ?? 0) <= scope) {
      s.all++;
      if (c.status === 'done') s.done++;
    }
    scoped.set(c.unit, s);
  }
  const done: string[] = [];
  const inProgress: string[] = [];
  const notStarted: string[] = [];
  for (const u of state.units) {
    const s = scoped.get(u);
    if (s && s.all > 0 && s.done === s.all) done.push(u);
    else if (s?.touched) inProgress.push(u);
    else notStarted.push(u);
  }
  return { done, inProgress, notStarted };
}

/** Started-but-unfinished cells and the plan's cell entries, plan order first. */
export function unfinishedTasks(state: WorkspaceState): ResumeTask[] {
  const byKey = new Map(state.cells.map((c) => [cellKey(c.unit, c.step), c]));
  const seen = new Set<string>();
  const out: ResumeTask[] = [];
  for (const n of state.next) {
    if (!n.unit || !n.step) continue;
    const key = cellKey(n.unit, n.step);
    const c = byKey.get(key);
    if (!c || seen.has(key)) continue;
    seen.add(key);
    out.push({ unit: c.unit, step: c.step, status: c.status, priority: n.priority });
  }
  for (const c of state.cells) {
    const key = cellKey(c.unit, c.step);
    if (!STARTED_UNFINISHED.has(c.status) || seen.has(key)) continue;
    seen.add(key);
    out.push({ unit: c.unit, step: c.step, status: c.status, priority: DEFAULT_PRIORITY[c.status] });
  }
  return out;
}

export function resumeFacts(state: WorkspaceState): ResumeFacts {
  const tasks = unfinishedTasks(state);
  const stop = stopOfState(state);
  return {
    // Where the work stopped: the letter's "current batch" is where the agents
    // were, not the first batch with a lost marker; the lost markers are its known issues.
    phase: stop.phase?.id ?? null,
    batch: stop.batch,
    ...unitProgress(state),
    unfinished: tasks.slice(0, UNFINISHED_LIMIT),
    unfinishedTotal: tasks.length,
  };
}
