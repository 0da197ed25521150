import type { DrainedEvent, PauseEvent } from './pause-events.js';
import { cellKey } from '../../types.js';
import { sanitizeLine } from '../../text/sanitize.js';
import type { ExitEvent, JournalEvent, LaunchEvent } from './journal.js';
import { quotaWords } from '../quota/gate.js';
import { CLOSED_REASON } from '../supervisor/takeover.js';
import type { SupervisorEvent } from '../supervisor/types.js';

// What a read-only observer announces of the driver's work: the journal
// lines the driver appended since the observer last read, as the supervisor events the driver
// emitted for them — so `watch --json` on an observer's socket carries what the driver's
// would. One mapping from journal event to supervisor event; the facts come from the journal
// (the escalation's own class, the exit's proof), never from replaying the driver's policy.
// Breaker changes are not here: both roles announce them from the ledger (supervisor-journal.ts).
//
// A failed attempt is surfaced once, at the cell's stop (docs/domain.md, Handling agent faults): the driver
// journals `retry_scheduled` after a failed exit it retries, `escalate` when it escalates,
// and nothing more for a plain failure. So a failed exit waits for the cell's next line: a
// retry says nothing, an escalation is `failed` escalated with its class, anything else
// (the cell launched or reset, the session stopped) is `failed` as it was.

const PAUSED = 'paused: ';

export interface JournalNews {
  /** The events these journal lines (appended after every line fed before) announce, in order. */
  feed(lines: readonly JournalEvent[]): SupervisorEvent[];
}

const failedOf = (x: ExitEvent, logPath: string | null, escalated: boolean, cls: string, reason: string): SupervisorEvent => {
  const why = sanitizeLine(reason);
  const what = escalated ? 'escalated to a human' : 'failed';
  return { type: 'failed', unit: x.unit, step: x.step, class: cls as never, escalated, reason: why, logPath, message: sanitizeLine(`${x.unit} ${x.step}: failed (${cls}); ${what}: ${why}`) };
};

/** Drain and pause (docs/drain.md), as the driver announced them. */
const pauseNews = (e: PauseEvent | DrainedEvent): SupervisorEvent =>
  e.type === 'drained'
    ? { type: 'drained', since: e.since, message: 'drained: the last run ended and nothing runs (the driver)' }
    : { type: 'pause', scope: e.scope, target: e.target, on: e.on, by: e.by, message: sanitizeLine(`${e.scope === 'drain' ? (e.on ? 'drain' : 'undrain') : `${e.on ? 'pause' : 'resume'} ${e.scope}${e.target ? ` ${e.target}` : ''}`} (the driver, by ${e.by})`) };

export function journalNews(): JournalNews {
  // The launches seen, until their run ends (its log and attempt for the end's event); failed
  // exits by cell, until their cell's next line.
  const runs = new Map<string, LaunchEvent>();
  const open = new Map<string, ExitEvent>();

  const settle = (key: string, out: SupervisorEvent[]): void => {
    const x = open.get(key);
    if (!x) return;
    open.delete(key);
    out.push(failedOf(x, runs.get(x.runId)?.logPath ?? null, false, x.class, x.error ?? x.errorTail.at(-1) ?? x.class));
    runs.delete(x.runId);
  };

  const one = (e: JournalEvent, out: SupervisorEvent[]): void => {
    switch (e.type) {
      case 'launch': {
        settle(cellKey(e.unit, e.step), out);
        runs.set(e.runId, e);
        const name = sanitizeLine(`${e.unit} ${e.step}`);
        out.push({ type: 'launch', unit: e.unit, step: e.step, runId: e.runId, attempt: e.attempt, agent: e.agent, logPath: e.logPath, message: sanitizeLine(`${name}: attempt ${e.attempt} started by the driver (${e.agent}); log ${e.logPath}`) });
        return;
      }
      case 'exit': {
        const key = cellKey(e.unit, e.step);
        settle(key, out);
        if (e.markerFound) out.push({ type: 'done', unit: e.unit, step: e.step, runId: e.runId, attempt: runs.get(e.runId)?.attempt ?? 0, message: sanitizeLine(`${e.unit} ${e.step}: done — the marker is the last line (the driver's run)`) });
        else if (e.class === 'CANCELLED') out.push({ type: 'cancelled', unit: e.unit, step: e.step, message: sanitizeLine(`${e.unit} ${e.step}: cancelled`) });
        // The account's quota (docs/quota.md): a wait, not a failure, as the driver says it.
        else if (e.quota && typeof e.quota.until === 'number') out.push({ type: 'notice', message: sanitizeLine(`${e.unit} ${e.step}: ${quotaWords({ ...e.quota, at: e.at, agent: e.agent }, e.at)}; not counted as an attempt`) });
        else return void open.set(key, e);
        runs.delete(e.runId);
        return;
      }
      case 'retry_scheduled': {
        const x = open.get(cellKey(e.unit, e.step));
        if (x) runs.delete(x.runId);
        open.delete(cellKey(e.unit, e.step));
        return;
      }
      case 'escalate': {
        const key = cellKey(e.unit, e.step);
        const x = open.get(key);
        open.delete(key);
        const base = x ?? ({ unit: e.unit, step: e.step, runId: '' } as ExitEvent);
        out.push(failedOf(base, x ? (runs.get(x.runId)?.logPath ?? null) : null, true, e.class, e.reason));
        if (x) runs.delete(x.runId);
        return;
      }
      case 'decision':
        if (e.kind === 'reset_cell' && e.unit && e.step) settle(cellKey(e.unit, e.step), out);
        return;
      case 'session':
        if (e.kind === 'stop') for (const key of [...open.keys()]) settle(key, out);
        return;
      case 'reaped': {
        // Only a run launched in the news has its cell here; an older one was the state.
        const r = runs.get(e.runId);
        runs.delete(e.runId);
        if (r) out.push({ type: 'reaped', runId: e.runId, unit: r.unit, step: r.step, outcome: e.outcome, message: sanitizeLine(`${r.unit} ${r.step}: run ${e.runId} ended (${e.outcome}); its output is left for triage`) });
        return;
      }
      case 'autopilot': {
        // A driver that closes journals `off` to say it was on (takeover.ts): it announces nothing.
        if (e.reason === CLOSED_REASON) return;
        const paused = !e.on && e.reason.startsWith(PAUSED);
        const reason = sanitizeLine(paused ? e.reason.slice(PAUSED.length) : e.reason);
        out.push({ type: 'autopilot', on: e.on, paused, reason, message: paused ? `autopilot paused: ${reason}` : `autopilot ${e.on ? 'on' : 'off'} (the driver): ${reason}` });
        return;
      }
      case 'pause':
      case 'drained':
        out.push(pauseNews(e));
        return;
      default:
        return;
    }
  };

  return {
    feed(lines) {
      const out: SupervisorEvent[] = [];
      for (const e of lines) one(e, out);
      return out;
    },
  };
}
