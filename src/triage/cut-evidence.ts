import type { JournalEvent } from '../run/journal.js';
import type { OutputStamp } from '../run/output-stamp.js';

// The journal is evidence (issue 17 item 3): a file whose writer checkroom cancelled, killed,
// stopped for silence or time, or reaped at a restart is a half-product cut by that event,
// however cleanly its text happens to end. This fold keeps, per cell, the last run the
// journal launched for it and how that run ended; what the cut means to a file (only while the
// file is unchanged since) is triage's (triage.ts). Pure and small: the ledger's fold is the
// supervisor's; the state of this one is a few fields per cell and is cached on disk
// (cut-read.ts) so a status reads only what the journal gained.

/** How a run was cut off. */
export type CutEvent = 'cancelled' | 'killed' | 'stalled' | 'timed_out' | 'reaped' | 'lost';

/** A cut, as evidence for one cell's output file. */
export interface Cut {
  event: CutEvent;
  /** When the journal recorded the end (epoch ms): a file changed after it is not this cut's. */
  at: number;
  attempt: number;
  /** The output file the run wrote, workspace-relative; null when the launch named none. */
  path: string | null;
  /** That file when the run ended (null: there was none); absent in journals written before it, where the exit's time stands in. */
  file?: OutputStamp | null;
}

/** Cell key → its cut (only cells whose last run was cut). */
export type CutMap = ReadonlyMap<string, Cut>;

interface LastRun {
  runId: string;
  attempt: number;
  path: string | null;
  cut: Cut | null;
}

/** The fold's whole state, plain JSON (cut-read.ts stores it). */
export interface CutFoldState {
  cells: Record<string, LastRun>;
}

/** The exit's cut, or null when the run ended on its own (success or a fault of its own). */
export function cutOf(e: Extract<JournalEvent, { type: 'exit' }>): CutEvent | null {
  if (e.class === 'CANCELLED') return 'cancelled';
  // classify.ts: the idle watchdog and the overall timeout are both STALLED; failure-message.ts says which.
  if (e.class === 'STALLED') return (e.error ?? '').startsWith('stopped at the overall timeout') ? 'timed_out' : 'stalled';
  if (e.class === 'OOM_KILLED' || e.signal === 'SIGKILL') return 'killed';
  return null;
}

/** The journal is validated field by field for what the ledger needs; this optional one is checked here. */
const stampOf = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && Number.isFinite((v as OutputStamp).bytes) && Number.isFinite((v as OutputStamp).mtimeMs);

const keyOf = (unit: string, step: string): string => `${unit}/${step}`;

export class CutFold {
  private readonly byRun = new Map<string, string>();

  /** `rel`: an absolute output path as the workspace-relative path reconcile names files by. */
  constructor(
    private readonly rel: (abs: string) => string | null,
    readonly state: CutFoldState = { cells: {} },
  ) {
    for (const [key, run] of Object.entries(state.cells)) this.byRun.set(run.runId, key);
  }

  apply(events: Iterable<JournalEvent>): this {
    for (const e of events) this.step(e);
    return this;
  }

  private ended(runId: string, at: number, event: CutEvent | null, output: unknown): void {
    const key = this.byRun.get(runId);
    const run = key === undefined ? undefined : this.state.cells[key];
    if (!run || run.runId !== runId) return;
    const file = output === null ? { file: null } : stampOf(output) ? { file: output as OutputStamp } : {};
    run.cut = event ? { event, at, attempt: run.attempt, path: run.path, ...file } : null;
  }

  private step(e: JournalEvent): void {
    switch (e.type) {
      case 'launch': {
        const key = keyOf(e.unit, e.step);
        const old = this.state.cells[key];
        if (old) this.byRun.delete(old.runId);
        this.state.cells[key] = { runId: e.runId, attempt: e.attempt, path: e.outputPath ? this.rel(e.outputPath) : null, cut: null };
        this.byRun.set(e.runId, key);
        break;
      }
      case 'exit':
        this.ended(e.runId, e.at, cutOf(e), e.output);
        break;
      case 'reaped':
        // Settled at a restart (supervisor-restart.ts): stopped then, or found already gone with
        // no end of its own recorded (an SSH drop that took the agents down with checkroom).
        this.ended(e.runId, e.at, e.outcome === 'reaped' ? 'reaped' : 'lost', e.output);
        break;
      case 'decision': {
        // The operator decided about the file since (kept, backed up, restored, reset): the
        // cut no longer speaks for what is there.
        if (e.unit === undefined || e.step === undefined) break;
        if (!['keep', 'backup', 'restore', 'reset_cell', 'redo'].includes(e.kind)) break;
        const run = this.state.cells[keyOf(e.unit, e.step)];
        if (run) run.cut = null;
        break;
      }
    }
  }

  /** The cuts, by cell key. */
  cuts(): Map<string, Cut> {
    const out = new Map<string, Cut>();
    for (const [key, run] of Object.entries(this.state.cells)) if (run.cut) out.set(key, run.cut);
    return out;
  }
}
