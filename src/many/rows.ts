import type { WorkspaceEntry } from './entries.js';
import { URGENCY_ORDER, type Urgency, type WorkspaceSummary } from './summary.js';

// The overview's model (docs/many.md): one row per workspace, what was last read of it, in
// the order of urgency. Pure: the reads (read-status.ts) and the timers (overview.ts) feed it.

export type RowState =
  | { kind: 'loading' }
  | { kind: 'ok'; summary: WorkspaceSummary; at: number }
  /** The host could not be reached: never an empty pipeline. The last summary read, if any, stays for reference. */
  | { kind: 'unreachable'; reason: string; since: number; last: WorkspaceSummary | null }
  /** Reached, but its checkroom said no (not a workspace, a bad checkroom.yaml). */
  | { kind: 'error'; reason: string };

export interface OverviewRow {
  entry: WorkspaceEntry;
  /** `local`, or the remote host. */
  host: string;
  state: RowState;
}

export const hostOf = (e: WorkspaceEntry): string => (e.kind === 'local' ? 'local' : e.host);

export const urgencyOfRow = (r: OverviewRow): Urgency => {
  switch (r.state.kind) {
    case 'ok':
      return r.state.summary.urgency;
    case 'unreachable':
      return 'unreachable';
    case 'error':
      return 'failing';
    default:
      return 'idle';
  }
};

/** Most urgent first; within one urgency, the order the operator listed them. */
export function sortRows(rows: readonly OverviewRow[]): OverviewRow[] {
  const rank = (r: OverviewRow) => URGENCY_ORDER.indexOf(urgencyOfRow(r));
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i)
    .map((x) => x.r);
}

/** The row after a read: unreachable keeps when it began and the last summary. */
export function nextState(prev: RowState, read: ReadResult, at: number): RowState {
  if (read.kind === 'ok') return { kind: 'ok', summary: read.summary, at };
  if (read.kind === 'error') return { kind: 'error', reason: read.reason };
  if (prev.kind === 'unreachable') return { ...prev, reason: read.reason };
  return { kind: 'unreachable', reason: read.reason, since: at, last: prev.kind === 'ok' ? prev.summary : null };
}

export type ReadResult = { kind: 'ok'; summary: WorkspaceSummary } | { kind: 'unreachable'; reason: string } | { kind: 'error'; reason: string };

/**
 * How long to wait before a read asked for in `wantMs`: never sooner than `gapMs` after the
 * last read ended, so a journal appended to many times a second (a busy pipeline) costs one
 * read per gap, not one per line (a read is ~0.4 s of CPU: a node process and the scan).
 */
export const waitFor = (wantMs: number, now: number, lastEnd: number, gapMs: number): number => Math.max(wantMs, lastEnd + gapMs - now);

/**
 * When to read a workspace again: a local one every `baseMs` (and soon when its files
 * change); a remote one every `baseMs`, doubled per failure in a row up to 8 × `baseMs`, so
 * a host that is down is not hammered and is seen again within a bounded time when it is back.
 */
export const nextDelay = (remote: boolean, baseMs: number, failures: number): number =>
  remote && failures > 0 ? Math.min(baseMs * 2 ** failures, baseMs * 8) : baseMs;
