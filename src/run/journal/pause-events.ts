// The journal's records of drain and pause (docs/drain.md): each pause, resume, drain and
// undrain, and the moment a drain became drained, written once by the driver. The ledger
// folds them (src/run/policy/pause.ts), so the next driver after a quit, a kill -9 or a
// takeover, and every observer, is still paused or draining. Kept apart from journal.ts so
// the seam there is one line.

export interface PauseEvent {
  v: 1;
  at: number;
  type: 'pause';
  /** `drain`: drain (on) or undrain (off); otherwise what is paused (on) or resumed (off). */
  scope: 'drain' | 'all' | 'cell' | 'agent' | 'executor';
  /** The cell (UNIT/STEP), agent or executor; null for `all` and `drain`. */
  target: string | null;
  on: boolean;
  /** Who asked, through what: "root via :drain". */
  by: string;
}

/** The last run in flight ended while draining: announced once. */
export interface DrainedEvent {
  v: 1;
  at: number;
  type: 'drained';
  /** When the drain began. */
  since: number;
}

export const PAUSE_EVENT_FIELDS = {
  pause: { scope: 's', target: 's?', on: 'b', by: 's' },
  drained: { since: 'n' },
} as const;
