import { relative } from 'node:path';
import type { StoreApi } from 'zustand/vanilla';
import type { SupervisorEvent, SupervisorSnapshot } from '../../run/supervisor/supervisor.js';
import { cellKey } from '../../types.js';
import { outputOf } from '../../run/process/writers.js';
import { accountsOf } from '../../run/quota/account.js';
import type { AgentsOptions, AgentsUi } from './types.js';
import { initialAgents } from './types.js';
import { lineKeeper, MAX_RECENT, rememberEnded } from './agents.js';
import { clampCursors } from '../views/nav.js';
import { fromLedger } from '../triage/continuity.js';
import type { AppState, Tone } from '../store/types.js';
import type { LivePort } from './live-port.js';

// Supervisor → store. Output lines and events arrive in bursts; the snapshot (ring buffers,
// ledger) reaches React at most every `flushMs` (STYLE.md idiom 5; process-compose flushes
// its log view every 300 ms). A 1 s tick keeps elapsed times and countdowns moving while
// anything is in flight or a breaker is open. Events become messages: intermediate retries
// stay a "retrying" state in the Plan view, the final failure is said once (with its log).

const TONE: Partial<Record<SupervisorEvent['type'], Tone>> = {
  launch: 'info',
  done: 'ok',
  failed: 'fail',
  cancelled: 'warn',
  breaker: 'warn',
  reaped: 'warn',
  idle: 'info',
  notice: 'info',
  // Drain and pause (docs/drain.md): said on the status line; drained once.
  pause: 'warn',
  drained: 'ok',
};

const OUTCOME: Partial<Record<SupervisorEvent['type'], string>> = { done: 'done', failed: 'failed', cancelled: 'cancelled' };

export function agentsInitial(o: AgentsOptions | undefined, why: string | null): AgentsUi {
  if (!o) return { ...initialAgents(), why: why ?? 'this control room was opened without one' };
  return { ...initialAgents(), enabled: true, snap: o.sup.snapshot(), at: (o.now ?? Date.now)(), limits: o.config.limits, agentNames: Object.keys(o.config.agents), concurrency: Object.fromEntries(Object.entries(o.config.agents).map(([n, a]) => [n, a.concurrency])), accounts: accountsOf(o.config.agents) };
}

/** The final failure, said once and short enough for one row: what, how it ended, where the
 *  log is (the full reason is in the Plan and Health views); any other event says itself. */
const eventText = (e: Exclude<SupervisorEvent, { type: 'output' | 'retry' }>, root: string): string =>
  e.type === 'failed'
    ? `${e.unit} ${e.step}: ${e.escalated ? 'escalated, needs a human' : 'failed'} (${e.class})${e.logPath ? ` · log ${relative(root, e.logPath)}` : ''}`
    : e.message;

const ticking = (s: SupervisorSnapshot | null): boolean =>
  !!s && (s.runs.length > 0 || s.waiting.length > 0 || s.autopilot.on || s.role === 'readonly' || Object.values(s.ledger.agents).some((a) => a.view.state === 'open'));

/** `live`: where the cells in flight go and a finished run's files are re-read (the store's one port). */
export function startAgentsFeed(store: StoreApi<AppState>, o: AgentsOptions, live: Pick<LivePort, 'setRunning' | 'touch'>, onQueue: () => void): () => void {
  const flushMs = o.flushMs ?? 250;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const outcomes = new Map<string, string>();
  const heard = lineKeeper();
  // Runs launched since the last flush: one that starts and ends between two flushes never
  // shows in a snapshot, yet its log pane must still appear.
  const launched = new Map<string, { key: string; logPath: string }>();

  const push = (): void => {
    timer = null;
    if (stopped) return;
    const snap = o.sup.snapshot();
    const keys = [...snap.runs.map((r) => cellKey(r.unit, r.step)), ...snap.waiting.map((w) => cellKey(w.unit, w.step))];
    const writers = [...new Set(snap.runs.map((r) => cellKey(r.unit, r.step)))].sort();
    store.setState((st) => {
      let recent = rememberEnded(st.agents, snap, heard.get);
      const live = new Set(snap.runs.map((r) => r.runId));
      for (const [runId, l] of launched) {
        if (live.has(runId)) continue;
        launched.delete(runId);
        if (!recent.some((r) => r.runId === runId)) recent = [{ key: l.key, runId, logPath: l.logPath, lines: [...(heard.get(runId) ?? [])], outcome: null }, ...recent.filter((x) => x.key !== l.key)].slice(0, MAX_RECENT);
      }
      if (outcomes.size) {
        recent = recent.map((r) => (r.outcome === null && outcomes.has(r.key) ? { ...r, outcome: outcomes.get(r.key)! } : r));
        for (const r of recent) if (r.outcome !== null) outcomes.delete(r.key);
      }
      const same = writers.length === st.agents.writers.length && writers.every((k, i) => k === st.agents.writers[i]);
      const agents = { ...st.agents, snap, at: (o.now ?? Date.now)(), recent, writers: same ? st.agents.writers : writers };
      // An observer that took over the stale lock drives now: its keys act.
      // The redo queue, skips and undo stack are the journal's as the driver left them
      // (a handover keeps the queue); an observer could not change them.
      const took = st.readonly && snap.role === 'driver' ? { readonly: false, ...fromLedger(snap.ledger.triage) } : {};
      return { agents, ...took, ...clampCursors({ ...st, ...took, agents }) };
    });
    live.setRunning(new Set(keys));
    if (snap.autopilot.on) onQueue();
  };
  const schedule = (): void => {
    if (!timer && !stopped) timer = setTimeout(push, flushMs);
  };

  const pathsOf = (unit: string, step: string): string[] => {
    const out = outputOf(o.config.pipeline, unit, step);
    return [o.config.sources.checkpoint, ...(out === null ? [] : [out])];
  };

  const off = o.sup.subscribe((e) => {
    schedule();
    if (e.type === 'output') return heard.add(e.runId, e.line);
    if (e.type === 'retry') return;
    if (e.type === 'launch') {
      launched.set(e.runId, { key: cellKey(e.unit, e.step), logPath: e.logPath });
      // Launched (by Enter or by autopilot): no longer waiting in the redo queue.
      store.setState((st) => {
        const redoQueue = st.redoQueue.filter((r) => r.unit !== e.unit || r.step !== e.step);
        return redoQueue.length === st.redoQueue.length ? {} : { redoQueue };
      });
    }
    if (e.type === 'done' || e.type === 'failed' || e.type === 'cancelled') {
      outcomes.set(cellKey(e.unit, e.step), e.type === 'failed' && e.escalated ? 'escalated' : OUTCOME[e.type]!);
      live.touch(pathsOf(e.unit, e.step));
    }
    const tone: Tone | undefined = e.type === 'autopilot' ? (e.paused ? 'warn' : 'info') : TONE[e.type];
    if (tone) store.setState({ message: { text: eventText(e, o.sup.root), tone } });
  });

  // Elapsed times and countdowns; a read-only instance re-reads the driver's journal.
  const tick = setInterval(() => {
    const s = store.getState().agents.snap;
    if (!ticking(s)) return;
    if (s?.role === 'readonly') void o.sup.refresh().then(schedule, () => undefined);
    else schedule();
  }, 1000);
  tick.unref();
  schedule();
  // Said before this feed subscribed (took over the lock, adopted, reaped): said now, once,
  // newest first — what happened to the runs matters more than whose lock it was.
  const early = o.sup.snapshot().notices ?? [];
  if (early.length) store.setState({ message: { text: [...early].reverse().join(' · '), tone: 'warn' } });

  return () => {
    stopped = true;
    off();
    if (timer) clearTimeout(timer);
    clearInterval(tick);
  };
}
