import type { JournalEvent } from '../run/journal/journal.js';
import { cellKey } from '../types.js';
import { RunRecordFold, type RunRecord } from './run-records.js';
import { BreakerTrips } from './breaker-trips.js';
import type { BreakerConfig } from '../pipeline/config/types.js';

// The journal as a timeline (docs/history.md): one row per run (at its launch, completed by its
// exit), operator decision, breaker action, escalation, budget event, autopilot change and
// session start/stop. Folded incrementally: the control room feeds only the lines appended
// since its last read, and a run's exit replaces its row in place (O(1) through an index).

export type HistoryKind = 'run' | 'decision' | 'breaker' | 'escalate' | 'budget' | 'session' | 'autopilot';

export interface HistoryRow {
  /** Epoch ms: a run's launch, every other row its event's time. */
  at: number;
  kind: HistoryKind;
  /** `unit/step`, or null for a row of no cell (a session, an agent's breaker). */
  key: string | null;
  agent: string | null;
  /** What happened, in words; raw workspace text inside (callers sanitize for a terminal). */
  text: string;
  /** A run row's record. */
  run?: RunRecord;
}

const cellOf = (unit?: string, step?: string): string | null => (unit !== undefined && step !== undefined ? cellKey(unit, step) : null);

const DECISION_WORDS: Record<string, string> = {
  backup: 'backed up',
  keep: 'kept (marker appended)',
  redo: 'queued for redo',
  restore: 'restored a backup',
  reset_cell: 'reset the cell',
  skip: 'skipped',
  command_shown: 'showed the command',
  hold: 'held the cell',
  release: 'released the cell',
  stop_pending: 'stop pending',
  over_budget: 'launched over budget',
};

/** A row for an event that is not part of a run, or null for events History does not list. */
export function eventRow(e: JournalEvent): HistoryRow | null {
  switch (e.type) {
    case 'decision': {
      const key = cellOf(e.unit, e.step);
      const what = `${DECISION_WORDS[e.kind] ?? e.kind}${e.path ? ` ${e.path}` : ''}${e.note ? ` (${e.note})` : ''}`;
      return { at: e.at, kind: e.kind === 'over_budget' ? 'budget' : 'decision', key, agent: null, text: `operator: ${what}` };
    }
    case 'breaker':
      return { at: e.at, kind: 'breaker', key: null, agent: e.agent, text: `breaker ${e.agent}: ${e.event}${e.summary ? ` (${e.summary})` : ''}` };
    case 'escalate':
      return { at: e.at, kind: 'escalate', key: cellKey(e.unit, e.step), agent: null, text: `escalated as ${e.class}: ${e.reason}` };
    case 'session':
      return {
        at: e.at,
        kind: 'session',
        key: null,
        agent: null,
        text:
          e.kind === 'start'
            ? `session started (pid ${e.pid})`
            : `session ended (pid ${e.pid}${e.reason ? `, ${e.reason}` : ''}${e.left?.length ? `, ${e.left.length} run(s) left running` : ''})`,
      };
    case 'autopilot':
      // A pause for money is a budget event: the operator looks for both under one word.
      return {
        at: e.at,
        kind: /budget|spent|\$/i.test(e.reason) ? 'budget' : 'autopilot',
        key: null,
        agent: null,
        text: `autopilot ${e.on ? 'on' : 'off'}: ${e.reason}`,
      };
    case 'bulk_action': {
      const n = e.cells.length;
      return { at: e.at, kind: 'decision', key: n === 1 ? cellKey(e.cells[0].unit, e.cells[0].step) : null, agent: null, text: `operator: ${e.name}: ${e.action} ${n} cell${n === 1 ? '' : 's'} (${e.filter})` };
    }
    case 'bulk_undo':
      return { at: e.at, kind: 'decision', key: null, agent: null, text: `operator: undid ${e.name}` };
    default:
      return null;
  }
}

/** The timeline, folded one event at a time; `rows` is in journal order (a run at its launch). */
export class HistoryFold {
  readonly rows: HistoryRow[] = [];
  /** Bumped on every change, so a view knows its memo is stale without comparing rows. */
  version = 0;
  /** Events folded. */
  count = 0;
  readonly runs = new RunRecordFold();
  private readonly runRow = new Map<string, number>();
  /** Times of session ends, in order (the digest's "since last"). */
  readonly sessionEnds: number[] = [];
  readonly sessionStarts: number[] = [];
  private readonly trips: BreakerTrips;

  /** `breaker`: the workspace's breaker settings (the defaults when not given), to say when one tripped. */
  constructor(breaker?: BreakerConfig) {
    this.trips = new BreakerTrips(breaker);
  }

  apply(events: Iterable<JournalEvent>): this {
    for (const e of events) this.one(e);
    return this;
  }

  private one(e: JournalEvent): void {
    this.count++;
    if (e.type === 'session') (e.kind === 'stop' ? this.sessionEnds : this.sessionStarts).push(e.at);
    const trip = this.trips.apply(e);
    if (trip) {
      this.rows.push({ at: e.at, kind: 'breaker', key: null, agent: trip.agent, text: trip.text });
      this.version++;
    }
    const r = this.runs.apply(e);
    if (r) {
      const i = this.runRow.get(r.runId);
      if (i === undefined) {
        this.runRow.set(r.runId, this.rows.length);
        this.rows.push({ at: r.launchedAt, kind: 'run', key: r.key, agent: r.agent, text: '', run: r });
      } else this.rows[i] = { ...this.rows[i], run: r };
      this.version++;
      return;
    }
    const row = eventRow(e);
    if (!row) return;
    this.rows.push(row);
    this.version++;
  }
}

export const historyOf = (events: Iterable<JournalEvent>, breaker?: BreakerConfig): HistoryFold => new HistoryFold(breaker).apply(events);
