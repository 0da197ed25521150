import type { StoreApi } from 'zustand/vanilla';
import type { JournalEvent } from '../../run/journal/journal.js';
import { JournalTail } from '../../history/journal-tail.js';
import { HistoryFold } from '../../history/timeline.js';
import { digestLines, digestOf, lastSessionEnd, needsFirst } from '../../history/digest.js';
import { actionWord } from '../../plan/action-words.js';
import type { PlanAction } from '../../types.js';
import { formatMinute } from '../../text/local-time.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { operatorOf } from '../store/operator.js';
import type { AppState } from '../store/types.js';
import type { HistoryFeedOptions } from './types.js';

// Journal → History (docs/history.md, Performance): the journal is read once, then every
// `intervalMs` only what was appended, folded into the same timeline; the store hears of it
// only when a row was added or changed. With `digest`, the first read also says what changed
// while the operator was away (since the last session ended) on the status line.

/** The digest's status line, or null when nothing happened since the last session ended (or none ended). */
export function awayMessage(s: AppState, events: readonly JournalEvent[]): { text: string; tone: 'info' | 'warn' } | null {
  const end = lastSessionEnd(events);
  if (end === null) return null;
  const d = digestOf(events, end, formatMinute(new Date(end)));
  if (d.launches === 0 && d.escalated.length === 0) return null;
  const m = operatorOf(s);
  const needs = needsFirst(m, (a) => actionWord(a as PlanAction));
  const [first] = digestLines(d, null);
  return {
    text: sanitizeLine(`while you were away: ${first.replace(/^since /, 'since ')}${needs ? ` · first: ${needs}` : ''} · 6: History`),
    tone: d.failed.length || d.escalated.length ? 'warn' : 'info',
  };
}

export function startHistoryFeed(store: StoreApi<AppState>, o: HistoryFeedOptions = {}): () => void {
  const tail = new JournalTail(store.getState().ws.root);
  let fold = new HistoryFold(o.ledger?.breaker);
  let events: JournalEvent[] = [];
  let gen = 0;
  let first = true;
  let busy = false;
  let stopped = false;
  const tick = async (): Promise<void> => {
    if (busy || stopped) return;
    busy = true;
    try {
      const r = await tail.read();
      if (stopped) return;
      if (r.restarted) {
        fold = new HistoryFold(o.ledger?.breaker);
        events = [];
      }
      if (r.events.length || r.restarted || first) {
        for (const e of r.events) events.push(e);
        fold.apply(r.events);
        store.setState({ history: { fold, events, version: ++gen, ledger: o.ledger ?? null } });
      }
      if (first && o.digest) {
        const said = awayMessage(store.getState(), events);
        if (said) store.setState({ message: said });
      }
      first = false;
    } catch {
      // An unreadable journal leaves History as it was; the Health view says why (its warnings).
    } finally {
      busy = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), o.intervalMs ?? 1000);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
