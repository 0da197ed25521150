import type { JournalEvent } from '../run/journal/journal.js';
import type { OutputStamp } from '../run/attempt/output-stamp.js';

// The journal is evidence: a file whose writer checkroom cancelled, killed,
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

/** A launch with no end yet: what its end will be evidence for. */
interface OpenRun {
  key: string;
  attempt: number;
  path: string | null;
}

/**
 * The fold's whole state, plain JSON (cut-read.ts stores it): the runs not ended yet and the
 * cells whose last run was cut. Both stay small (in flight; cut and not redone), so a status
 * at 50k cells does not parse a record per cell.
 */
export interface CutFoldState {
  open: Record<string, OpenRun>;
  cuts: Record<string, Cut>;
}

export const emptyCutState = (): CutFoldState => ({ open: {}, cuts: {} });

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
  /** Cell key → its newest open run: an older run's late end speaks for nothing. */
  private readonly newest = new Map<string, string>();

  /** `rel`: an absolute output path as the workspace-relative path reconcile names files by. */
  constructor(
    private readonly rel: (abs: string) => string | null,
    readonly state: CutFoldState = emptyCutState(),
  ) {
    for (const [runId, run] of Object.entries(state.open)) this.newest.set(run.key, runId);
  }

  apply(events: Iterable<JournalEvent>): this {
    for (const e of events) this.step(e);
    return this;
  }

  private ended(runId: string, at: number, event: CutEvent | null, output: unknown): void {
    const run = this.state.open[runId];
    if (!run) return;
    delete this.state.open[runId];
    if (this.newest.get(run.key) !== runId) return;
    this.newest.delete(run.key);
    const file = output === null ? { file: null } : stampOf(output) ? { file: output as OutputStamp } : {};
    if (event) this.state.cuts[run.key] = { event, at, attempt: run.attempt, path: run.path, ...file };
  }

  private step(e: JournalEvent): void {
    switch (e.type) {
      case 'launch': {
        const key = keyOf(e.unit, e.step);
        const older = this.newest.get(key);
        if (older !== undefined) delete this.state.open[older];
        delete this.state.cuts[key];
        this.state.open[e.runId] = { key, attempt: e.attempt, path: e.outputPath ? this.rel(e.outputPath) : null };
        this.newest.set(key, e.runId);
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
      case 'decision':
        // The operator decided about the file since (kept, backed up, restored, reset): the
        // cut no longer speaks for what is there.
        if (e.unit !== undefined && e.step !== undefined && ['keep', 'backup', 'restore', 'reset_cell', 'redo'].includes(e.kind)) delete this.state.cuts[keyOf(e.unit, e.step)];
        break;
    }
  }

  /** The cuts, by cell key. */
  cuts(): Map<string, Cut> {
    return new Map(Object.entries(this.state.cuts));
  }
}
