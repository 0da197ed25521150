import { appendJournal, readJournal, type JournalEvent, type NewJournalEvent } from '../journal/journal.js';
import type { Ledger, LedgerConfig } from '../journal/ledger.js';
import { LedgerFold } from '../journal/ledger-fold.js';
import { sleepFor, type Flight } from './cell.js';
import { breakerMessage } from './words.js';
import type { Gate } from '../policy/breaker-gate.js';
import type { SupervisorEvent } from './types.js';

// The supervisor's journal: the events in memory, appends to the file, the ledger folded
// from them, and the breakers that ledger shows — changes announced, launches held until a
// breaker lets them through. Every count and breaker state the supervisor acts on comes
// from here (docs/decisions/journal-and-ledger-fold.md).

export interface SupervisorJournal {
  /** Read the journal file again (at start; read-only instances follow the driver's writes). Its warnings. */
  load(): Promise<string[]>;
  /**
   * The lines read since the last call: an observer announces them as the
   * driver did. The opening read (an empty journal too) and a journal replaced (read shorter)
   * are the state, not news: what comes after them is.
   */
  fresh(): readonly JournalEvent[];
  /** The events read and appended so far (the logs' disk budget reads its launches). */
  events(): readonly JournalEvent[];
  /** Append one event, then say which breakers changed state. */
  append(e: NewJournalEvent): Promise<void>;
  ledger(): Ledger;
  /** Emit a `breaker` event for each breaker whose state changed since last seen. */
  noteBreakers(): void;
  /** Take the current breaker states as seen, without emitting. */
  seeBreakers(): void;
  /** Wait until `pass` (the agent's breaker, its probe claimed: breaker-gate.ts) lets a launch through; a reason when it never will. */
  waitForBreaker(flight: Flight, agent: string, pass: () => Gate): Promise<string | null>;
  /** No more cooldown timers. */
  stop(): void;
}

export interface JournalOptions {
  root: string;
  now: () => number;
  ledgerCfg: LedgerConfig;
  emit: (e: SupervisorEvent) => void;
  /** A cooldown ended: a breaker is half-open by the clock. */
  onCooldownEnd: () => void;
  isClosed: () => boolean;
}

/** How many lines fresh() handed out; null until the opening read, whose lines are the state. */
function newsCursor() {
  let told: number | null = null;
  return {
    read(length: number, shorter: boolean): void {
      if (told === null || shorter) told = length;
    },
    take<T>(all: readonly T[]): readonly T[] {
      const from = told ?? all.length;
      told = all.length;
      return all.slice(from);
    },
  };
}

export function createSupervisorJournal(o: JournalOptions): SupervisorJournal {
  let events: JournalEvent[] = [];
  const breakerSeen = new Map<string, string>();
  let breakerTimer: NodeJS.Timeout | null = null;
  const news = newsCursor();

  // Replaying the whole journal after every appended event made a long session O(n²): the
  // fold applies only the events appended since it last looked (a re-read journal starts a
  // new fold). A view is reused while no event was appended and the clock has not moved past
  // the same 100 ms (breaker countdowns stay exact enough).
  let fold = { of: events, f: new LedgerFold(o.ledgerCfg) };
  let memo: { n: number; bucket: number; l: Ledger } | null = null;
  const ledger = (): Ledger => {
    const t = o.now();
    const bucket = Math.floor(t / 100);
    if (fold.of !== events) {
      fold = { of: events, f: new LedgerFold(o.ledgerCfg) };
      memo = null;
    }
    if (memo && memo.n === events.length && memo.bucket === bucket) return memo.l;
    const l = fold.f.apply(events.slice(fold.f.count)).at(t);
    memo = { n: events.length, bucket, l };
    return l;
  };

  const noteBreakers = (): void => {
    const l = ledger();
    let soonest: number | null = null;
    for (const a of Object.values(l.agents)) {
      const state = a.view.state;
      if (breakerSeen.get(a.agent) !== state) {
        if (breakerSeen.has(a.agent) || state !== 'closed') o.emit({ type: 'breaker', agent: a.agent, state, deadline: state === 'open' ? a.breaker.until : null, message: breakerMessage(a, o.ledgerCfg.breaker) });
        breakerSeen.set(a.agent, state);
      }
      if (state === 'open') soonest = Math.min(soonest ?? Infinity, a.view.remainingMs);
    }
    // An account's quota reset is a deadline too (docs/quota.md): autopilot looks again then.
    for (const w of Object.values(l.quotaWaits)) soonest = Math.min(soonest ?? Infinity, Math.max(0, w.until - o.now()));
    if (breakerTimer) clearTimeout(breakerTimer);
    breakerTimer = null;
    if (soonest !== null && !o.isClosed()) {
      // Half-open happens by the clock, not by an event: look again when a cooldown ends.
      breakerTimer = setTimeout(() => {
        noteBreakers();
        o.onCooldownEnd();
      }, soonest + 20);
      breakerTimer.unref();
    }
  };

  return {
    async load() {
      const read = await readJournal(o.root);
      // The journal is append-only: a longer read continues the fold (a read-only instance
      // refreshes every second); only a shorter one (a journal replaced) starts anew.
      const shorter = read.events.length < events.length;
      if (read.events.length >= events.length && events.length > 0) events.push(...read.events.slice(events.length));
      else events = read.events;
      news.read(events.length, shorter);
      return read.warnings;
    },
    async append(e) {
      events.push({ ...e, v: 1 } as JournalEvent);
      await appendJournal(o.root, e);
      noteBreakers();
    },
    fresh: () => news.take(events),
    events: () => events,
    ledger,
    noteBreakers,
    seeBreakers() {
      for (const a of Object.values(ledger().agents)) breakerSeen.set(a.agent, a.view.state);
    },
    async waitForBreaker(flight, agent, pass) {
      for (;;) {
        if (flight.cancelled) return null;
        if (o.isClosed()) return 'the supervisor closed';
        const g = pass();
        if (g.go) return null;
        if (!g.wait) return `breaker ${agent} is held by the operator`;
        const a = ledger().agents[agent];
        const why = a?.view.state === 'open' ? `waiting for breaker ${agent} (open, ${Math.ceil(a.view.remainingMs / 1000)} s left)` : `waiting for breaker ${agent}'s probe`;
        if (!(await sleepFor(flight, g.ms, null, why))) return null;
        noteBreakers();
      }
    },
    stop() {
      if (breakerTimer) clearTimeout(breakerTimer);
    },
  };
}
