import { createStore, type StoreApi } from 'zustand/vanilla';
import { clampCursors, sameCursors } from '../views/nav.js';
import { noPicks } from './picked.js';
import { noMarks } from '../marks/marks.js';
import { startMarksFollow } from '../marks/follow.js';
import { initialCursors } from '../views/views.js';
import type { CommandKit } from '../keys/command-handlers.js';
import type { AppState, StoreOptions, UiState } from './types.js';
import { storeKit } from './kit.js';
import { createTriage } from '../triage/slice.js';
import { createAgents, type AgentsActions } from '../agents/slice.js';
import { agentsInitial, startAgentsFeed } from '../agents/feed.js';
import { initialAgents } from '../agents/types.js';
import { createRecovery, type RecoveryActions } from '../recovery/slice.js';
import { initialRecovery } from '../recovery/types.js';
import type { DecisionEvent, NewJournalEvent } from '../../run/journal/journal.js';
import { fromLedger } from '../triage/continuity.js';
import { confirmChecker } from './confirm.js';
import { detailOpener } from './detail.js';
import { keyRouter } from './keys.js';
import { noneHeld } from '../agents/held.js';
import { startHeldFeed } from '../agents/held-feed.js';
import { startDriverSilenceFeed } from '../agents/driver-silence-feed.js';
import { createPager, type PagerActions } from '../pager/slice.js';
import { startHistoryFeed } from '../history/feed.js';
import { initialHistory } from '../history/types.js';
import { readCommandHistory, writeCommandHistory } from '../keys/command-history-file.js';
import { remoteActs } from './remote.js';

// One vanilla zustand store per control room (STYLE.md idiom 2), built here and provided
// to React through context. The live workspace pushes states in; keys come in through
// `feed`; every action reads the current state with get(), never a render's closure.

export type AppStore = StoreApi<AppState>;

const initialUi = (): UiState => ({
  view: 'progress',
  cursors: initialCursors(),
  picked: noPicks(),
  marks: noMarks(),
  cell: { row: 0, col: 0 },
  detail: null,
  help: { open: false, offset: 0 },
  prompt: null,
  commandHistory: [],
  filter: '',
  dialog: null,
  dialogScroll: null,
  message: null,
  redoQueue: [],
  skipped: [],
  undo: [],
  busy: null,
  quit: false,
  pageSize: 10,
  agents: initialAgents(),
  recovery: initialRecovery(),
  held: noneHeld(),
  history: initialHistory(),
  past: null,
  postMortem: null,
  pager: null,
});

export function createAppStore(opts: StoreOptions): AppStore {
  const inflight = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>): void => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };

  let agentActions: AgentsActions | null = null;
  let recoveryActions: RecoveryActions | null = null;
  let pagerActions: PagerActions | null = null;
  const store = createStore<AppState>()((set, get) => {
    const sup = opts.agents?.sup;
    const decide = sup ? (e: Omit<DecisionEvent, 'v' | 'at' | 'type'>) => sup.note({ type: 'decision', at: (opts.now?.() ?? new Date()).getTime(), ...e }) : undefined;
    const journal = sup ? (e: NewJournalEvent) => sup.note(e) : undefined;
    const triage = createTriage({ set, get, live: opts.live, now: opts.now ?? (() => new Date()), track, decide, journal });
    const agents = opts.agents ? createAgents({ set, get, opts: opts.agents, track }) : null;
    agentActions = agents;
    const recovery = createRecovery({ set, get, live: opts.live, now: opts.now ?? (() => new Date()), track, session: opts.session ?? {} });
    recoveryActions = recovery;

    const pager = createPager({ set, get, track });
    pagerActions = pager;
    const openDetail = detailOpener({ set, get, track });
    const confirmChecked = confirmChecker({ set, get, track, triage, agents, recovery });
    const kit: CommandKit = { get, set, triage, agents, recovery, pager, note: sup ? (e) => sup.note(e) : null, now: opts.now ?? (() => new Date()), track, openDetail, confirmChecked };
    const { run, feed } = keyRouter(kit);

    return {
      ...initialUi(),
      commandHistory: readCommandHistory(opts.live.state.root),
      // The redo queue, skips and undo stack of earlier sessions, from the journal.
      ...fromLedger(sup?.snapshot().ledger.triage),
      ws: opts.live.state,
      watching: { ...opts.live.watching },
      readonly: !!opts.readonly || opts.agents?.sup.snapshot().role === 'readonly',
      agents: agentsInitial(opts.agents, opts.agentsWhy ?? null),
      ascii: !!opts.ascii,
      fromOverview: !!opts.fromOverview,
      setWorkspace: (ws, watching) => set((st) => ({ ws, watching: watching ? { ...watching } : st.watching, ...clampCursors({ ...st, ws }) })),
      setPageSize: (n) => set({ pageSize: Math.max(1, n) }),
      pagerResize: (rows) => pager.resize(rows),
      // The kit's plain say (store-kit.ts): text from outside goes through sanitizeLine first.
      say: storeKit({ set, get, track }).say,
      remote: sup && opts.agents ? remoteActs({ sup, config: opts.agents.config, get, track, sayClean: storeKit({ set, get, track }).sayClean, redoNow: triage.redoNow }) : null,
      run,
      feed,
      idle: async () => {
        while (inflight.size) await Promise.allSettled([...inflight]);
      },
    };
  });

  const unsubscribe = opts.live.subscribe((ws) => store.getState().setWorkspace(ws, opts.live.watching));
  // Whatever changed a list (the redo queue, a launch event, RESUME.md drift), the cursors
  // follow their picked items before the next key is read.
  const unfollow = store.subscribe((st, prev) => {
    if (st.ws === prev.ws && st.agents === prev.agents && st.filter === prev.filter && st.skipped === prev.skipped && st.redoQueue === prev.redoQueue && st.recovery.resume === prev.recovery.resume) return;
    // The same update already placed the cursors (setWorkspace, the agents feed, a filter).
    if (st.picked !== prev.picked) return;
    const next = clampCursors(st);
    if (!sameCursors(st, next)) store.setState(next);
  });
  // A redo from here queues its cells while autopilot may already run: its order is autopilot's at once (docs/redo.md).
  const unprefer = store.subscribe((st, prev) => {
    if (st.redoQueue !== prev.redoQueue) opts.agents?.sup.prefer(st.redoQueue);
  });
  // The `:` lines typed are kept for the next session, unless nothing may be written.
  const unkeep = store.subscribe((st, prev) => {
    if (st.commandHistory !== prev.commandHistory && !st.readonly) track(writeCommandHistory(st.ws.root, st.commandHistory));
  });
  const stopFeed = opts.agents ? startAgentsFeed(store, opts.agents, opts.live, () => agentActions?.launchQueued()) : null;
  const stopRecovery = recoveryActions!.attach(store);
  const stopHeld = startHeldFeed(store);
  const stopMarks = startMarksFollow(store);
  const stopSilence = opts.agents ? startDriverSilenceFeed(store) : null;
  const stopHistory = opts.history === false ? null : startHistoryFeed(store, { ...opts.history, ...(opts.agents ? { ledger: { breaker: opts.agents.config.breaker, limits: opts.agents.config.limits } } : {}) });
  // Keep the unsubscribe reachable for the entry's cleanup.
  (store as AppStore & { dispose?: () => void }).dispose = () => {
    unsubscribe();
    unfollow();
    unkeep();
    unprefer();
    stopFeed?.();
    stopRecovery();
    stopHeld();
    stopMarks();
    stopSilence?.();
    stopHistory?.();
    pagerActions?.dispose();
  };
  return store;
}

export const disposeStore = (store: AppStore): void => (store as AppStore & { dispose?: () => void }).dispose?.();
