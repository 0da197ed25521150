import { basename } from 'node:path';
import type { WorkspaceConfig } from '../pipeline/config/types.js';
import type { NewJournalEvent } from '../run/journal/journal.js';
import { readJournal } from '../run/journal/journal.js';
import type { Ledger } from '../run/journal/ledger.js';
import type { SupervisorEvent } from '../run/supervisor/types.js';
import { loadWorkspace } from '../workspace.js';
import { alarmOf, breakerAlarm, progressAlarms } from './alarm-of.js';
import { createSenders } from './senders.js';
import { payloadOf, type AlarmCounts } from './payload.js';
import type { Alarm, NotifyConfig } from './types.js';

// The driver's alarms (docs/notify.md): supervisor events in, notify commands run. Only the
// driver raises them (an observer replays the same events from the journal and must not
// send them twice); each is journalled as `notified` before its commands start, so a restart
// never sends it again; each command has its own storm cap; a command that fails or hangs is
// killed, reported once, and changes nothing else. The decisions are pure (alarm-of.ts,
// storm.ts); this file does the effects.

export interface AlarmHost {
  root: string;
  config: WorkspaceConfig;
  now(): number;
  isDriver(): boolean;
  ledger(): Ledger;
  append(e: NewJournalEvent): Promise<void>;
  emit(e: SupervisorEvent): void;
}

export interface Alarms {
  /** Feed every supervisor event (a subscriber). */
  see(e: SupervisorEvent): void;
  /** Send the summaries still held, then wait for every command in flight (each bounded by its timeout). */
  settle(): Promise<void>;
}

const countsOf = (l: Ledger, scan: { done: number; total: number } | null, suppressed = 0): AlarmCounts => ({
  needsYou: Object.values(l.cells).filter((c) => c.escalation && c.state === 'needs_human').length,
  running: l.liveRuns.length,
  launchesThisSession: l.launchesThisSession,
  done: scan?.done ?? null,
  total: scan?.total ?? null,
  suppressed,
});

export function createAlarms(h: AlarmHost, cfg: NotifyConfig): Alarms {
  const wanted = new Set(cfg.rules.flatMap((r) => r.on));
  const workspace = { name: basename(h.root), root: h.root };
  const senders = createSenders({ root: h.root, now: h.now, emit: h.emit, summary: (reason, held) => payloadOf({ event: 'suppressed', at: h.now(), reason }, { workspace, counts: countsOf(h.ledger(), null, held) }) }, cfg);
  const notOpen = new Map<string, { since: number; timer: NodeJS.Timeout }>();
  let keys: Promise<Set<string>> | null = null;
  let queue: Promise<void> = Promise.resolve();

  // The keys already sent, read once from the journal (a restart, a takeover).
  const sentKeys = (): Promise<Set<string>> =>
    (keys ??= readJournal(h.root).then(
      (r) => new Set(r.events.flatMap((e) => (e.type === 'notified' ? [e.key] : []))),
      () => new Set<string>(),
    ));

  const raise = async (a: Alarm, scan: { done: number; total: number } | null): Promise<void> => {
    const targets = cfg.rules.flatMap((r, i) => (r.on.includes(a.event) ? [i] : []));
    if (targets.length === 0) return;
    const seen = await sentKeys();
    if (seen.has(a.key)) return;
    seen.add(a.key);
    const { go, held } = senders.admit(targets);
    // Written before the commands start: a crash between the two loses an alarm, never repeats one.
    await h.append({ type: 'notified', at: h.now(), key: a.key, event: a.event, sent: go.length, suppressed: held }).catch(() => undefined);
    senders.send(go, payloadOf(a, { workspace, counts: countsOf(h.ledger(), scan) }));
  };

  const enqueue = (work: () => Promise<void>): void => {
    queue = queue.then(work).catch(() => undefined);
  };

  // Cells finished while a scan waits join it: a burst of done events costs one scan, not one each.
  const finished = new Set<string>();
  const progress = (unit: string, step: string): void => {
    if (!wanted.has('batch_complete') && !wanted.has('phase_complete')) return;
    const first = finished.size === 0;
    finished.add(`${unit}\0${h.config.pipeline.steps.find((s) => s.id === step)?.phase ?? ''}`);
    if (!first) return;
    enqueue(async () => {
      const cells = [...finished].map((k) => k.split('\0') as [string, string]);
      finished.clear();
      const ws = await loadWorkspace(h.root, { config: h.config });
      const scan = { done: ws.cells.filter((c) => c.status === 'done').length, total: ws.cells.length };
      for (const [unit, phase] of cells) for (const a of progressAlarms(unit, phase === '' ? null : Number(phase), ws.batches, ws.phases, h.now())) await raise(a, scan);
    });
  };

  const breaker = (agent: string, state: string): void => {
    const was = notOpen.get(agent);
    if (state === 'closed') {
      if (was) clearTimeout(was.timer);
      notOpen.delete(agent);
      return;
    }
    if (was || !wanted.has('breaker_open_long')) return;
    const since = h.now();
    const timer = setTimeout(() => {
      const a = h.ledger().agents[agent]?.view.state !== 'closed' && h.isDriver() ? breakerAlarm(agent, since, h.now(), cfg.breakerOpenMs) : null;
      if (a) enqueue(() => raise(a, null));
    }, cfg.breakerOpenMs);
    timer.unref();
    notOpen.set(agent, { since, timer });
  };

  return {
    see(e) {
      if (cfg.rules.length === 0 || !h.isDriver()) return;
      if (e.type === 'breaker') return breaker(e.agent, e.state);
      if (e.type === 'done') return progress(e.unit, e.step);
      const a = alarmOf(e, h.ledger(), h.config.limits, h.now());
      if (a) enqueue(() => raise(a, null));
    },
    async settle() {
      await queue;
      for (const { timer } of notOpen.values()) clearTimeout(timer);
      await senders.settle();
    },
  };
}
