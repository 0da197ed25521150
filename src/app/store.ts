import { createStore, type StoreApi } from 'zustand/vanilla';
import { cellKey } from '../types.js';
import { sanitizeLine } from '../sanitize.js';
import { commandById, matchCommand, type CommandId } from './keymap.js';
import type { KeyToken } from './keys.js';
import { clampCursors, isNav, navigate, sameCursors } from './nav.js';
import { noPicks } from './picked.js';
import { initialCursors } from './views.js';
import { parseCommandLine } from './command-line.js';
import { goneUpdate, selectedRow } from './selected.js';
import { handlerOf, type CommandKit } from './command-handlers.js';
import { recheck } from './confirm-guard.js';
import type { AppState, StoreOptions, UiState } from './store-types.js';
import { readWorkspaceTail } from './tail.js';
import { storeKit } from './store-kit.js';
import { createTriage } from './store-triage.js';
import { createAgents, type AgentsActions } from './store-agents.js';
import { agentsInitial, startAgentsFeed } from './agents-feed.js';
import { initialAgents } from './agents-types.js';
import { createRecovery, type RecoveryActions } from './store-recovery.js';
import { initialRecovery } from './recovery-types.js';
import type { DecisionEvent, NewJournalEvent } from '../run/journal.js';
import { fromLedger } from './triage-continuity.js';

// One vanilla zustand store per control room (STYLE.md idiom 2), built here and provided
// to React through context. The live workspace pushes states in; keys come in through
// `feed`; every action reads the current state with get(), never a render's closure.

export type AppStore = StoreApi<AppState>;

const initialUi = (): UiState => ({
  view: 'progress',
  cursors: initialCursors(),
  picked: noPicks(),
  cell: { row: 0, col: 0 },
  detail: null,
  help: { open: false, offset: 0 },
  prompt: null,
  filter: '',
  dialog: null,
  message: null,
  redoQueue: [],
  skipped: [],
  undo: [],
  busy: null,
  quit: false,
  pageSize: 10,
  agents: initialAgents(),
  recovery: initialRecovery(),
});

// eslint-disable-next-line max-lines-per-function -- the factory wires every slice into one store; it shrinks with the slices and the command table of issue 9 items 2 and 3
export function createAppStore(opts: StoreOptions): AppStore {
  const inflight = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>): void => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };

  let agentActions: AgentsActions | null = null;
  let recoveryActions: RecoveryActions | null = null;
  // eslint-disable-next-line max-lines-per-function -- the store's body, see createAppStore above
  const store = createStore<AppState>()((set, get) => {
    const sup = opts.agents?.sup;
    const decide = sup ? (e: Omit<DecisionEvent, 'v' | 'at' | 'type'>) => sup.note({ type: 'decision', at: (opts.now?.() ?? new Date()).getTime(), ...e }) : undefined;
    const journal = sup ? (e: NewJournalEvent) => sup.note(e) : undefined;
    const triage = createTriage({ set, get, live: opts.live, now: opts.now ?? (() => new Date()), track, decide, journal });
    const agents = opts.agents ? createAgents({ set, get, opts: opts.agents, track }) : null;
    agentActions = agents;
    const recovery = createRecovery({ set, get, live: opts.live, now: opts.now ?? (() => new Date()), track, session: opts.session ?? {} });
    recoveryActions = recovery;

    const openDetail = (): void => {
      const s = get();
      const picked = selectedRow(s);
      if (picked && 'gone' in picked) return set(goneUpdate(s, 'progress', picked.gone));
      const cell = picked?.item.cells[s.cell.col];
      if (!cell) return set({ message: { text: 'no cell here (the filter hides every row?)', tone: 'warn' } });
      const want = cellKey(cell.unit, cell.step);
      set({ detail: { unit: cell.unit, step: cell.step, tail: null, note: null, loading: cell.exists } });
      if (!cell.exists) return set((st) => (st.detail ? { detail: { ...st.detail, note: 'no file on disk', loading: false } } : {}));
      track(
        readWorkspaceTail(s.ws.root, cell.path, s.ws.pipeline.outsideRoots).then(({ tail, note }) =>
          set((st) => (st.detail && cellKey(st.detail.unit, st.detail.step) === want ? { detail: { ...st.detail, tail, note, loading: false } } : {})),
        ),
      );
    };

    const dispatchConfirm = (): void => {
      const t = get().dialog?.pending.type;
      return t === 'agents' ? agents?.confirm() : t === 'recovery' ? recovery.confirm() : triage.confirm();
    };
    /**
     * A dialog that recorded its files runs only if none of them changed or got a live writer
     * since it was shown (issue 8 item 1); otherwise it refuses and says why. While the files
     * are looked at, the dialog is closed and `busy` holds every other writing key back.
     */
    const confirmChecked = (): void => {
      const d = get().dialog;
      if (!d) return;
      if (!d.seen?.length) return dispatchConfirm();
      set({ dialog: null, busy: 'checking that the files did not change since the dialog was shown' });
      track(
        recheck(get(), d.seen).then(
          (why) => {
            set({ busy: null });
            if (why) return set({ message: { text: sanitizeLine(`not done: ${why}`), tone: 'warn' } });
            if (get().dialog) return set({ message: { text: 'not done: another dialog opened meanwhile; confirm again', tone: 'warn' } });
            set({ dialog: d });
            dispatchConfirm();
          },
          (err: Error) => set({ busy: null, message: { text: sanitizeLine(`not done: ${err.message}`), tone: 'fail' } }),
        ),
      );
    };

    const kit: CommandKit = { get, set, triage, agents, recovery, note: sup ? (e) => sup.note(e) : null, now: opts.now ?? (() => new Date()), track, openDetail, confirmChecked };
    const run = (id: CommandId): void => {
      const s = get();
      if (s.quit) return;
      const c = commandById(id);
      if ((c.dangerous || c.runs) && s.readonly) {
        // Read-only by choice (--readonly) or because another checkroom drives: say which.
        const snap = s.agents.snap;
        const why = snap?.role === 'readonly' && snap.holder ? `pid ${snap.holder.pid}@${snap.holder.host} drives this workspace` : 'started with --readonly';
        return set({ message: { text: sanitizeLine(`read-only mode: "${c.hint}" is disabled (${why})`), tone: 'warn' } });
      }
      if (c.dangerous && s.busy) return set({ message: { text: `busy: ${s.busy}; try again when it is done`, tone: 'warn' } });
      if (isNav(id) || id.startsWith('view.')) {
        set((st) => navigate({ ...st }, id));
        if (get().detail && isNav(id)) openDetail();
        if (id.startsWith('view.')) set({ detail: null });
        return;
      }
      handlerOf(id)?.(kit, s, id);
    };

    const feedPrompt = (t: KeyToken): void => {
      const p = get().prompt!;
      const c = matchCommand(t, 'prompt', get().view);
      if (c?.id === 'prompt.cancel') {
        return set((st) => (p.kind === 'filter' ? { prompt: null, filter: '', ...clampCursors({ ...st, filter: '' }, true) } : { prompt: null }));
      }
      if (c?.id === 'prompt.submit') {
        set({ prompt: null });
        if (p.kind === 'filter') return set({ message: p.text ? { text: `filter: ${p.text}`, tone: 'info' } : null });
        const r = parseCommandLine(p.text);
        return 'error' in r ? set({ message: { text: r.error, tone: 'warn' } }) : run(r.id);
      }
      let text = p.text;
      if (t.name === 'backspace' || t.name === 'delete') text = [...text].slice(0, -1).join('');
      else if (t.name === null && !t.ctrl && t.ch) text += t.ch;
      else return;
      // The filter applies as you type.
      set((st) => (p.kind === 'filter' ? { prompt: { ...p, text }, filter: text, ...clampCursors({ ...st, filter: text }, 'filter') } : { prompt: { ...p, text } }));
    };

    return {
      ...initialUi(),
      // The redo queue, skips and undo stack of earlier sessions, from the journal.
      ...fromLedger(sup?.snapshot().ledger.triage),
      ws: opts.live.state,
      watching: { ...opts.live.watching },
      readonly: !!opts.readonly || opts.agents?.sup.snapshot().role === 'readonly',
      agents: agentsInitial(opts.agents, opts.agentsWhy ?? null),
      ascii: !!opts.ascii,
      setWorkspace: (ws, watching) => set((st) => ({ ws, watching: watching ? { ...watching } : st.watching, ...clampCursors({ ...st, ws }) })),
      setPageSize: (n) => set({ pageSize: Math.max(1, n) }),
      // The kit's plain say (store-kit.ts): text from outside goes through sanitizeLine first.
      say: storeKit({ set, get, track }).say,
      run,
      feed: (t) => {
        const s = get();
        if (s.quit) return;
        // ctrl-c always quits, whatever is open: no surprise (k9s issues).
        if (t.ctrl && t.ch === 'c') return agents?.requestQuit(true) ? undefined : set({ quit: true });
        if (s.dialog) {
          const c = matchCommand(t, 'dialog', s.view);
          return c ? run(c.id) : undefined;
        }
        if (s.prompt) return feedPrompt(t);
        if (recovery.feed(t)) return;
        const c = matchCommand(t, 'main', s.view);
        if (!c) return;
        // The help overlay takes movement (scrolling), esc/? (close) and q; other keys close it first.
        if (s.help.open && !isNav(c.id) && c.id !== 'back' && c.id !== 'help' && c.id !== 'quit') set({ help: { open: false, offset: 0 } });
        run(c.id);
      },
      idle: async () => {
        while (inflight.size) await Promise.allSettled([...inflight]);
      },
    };
  });

  const unsubscribe = opts.live.subscribe((ws) => store.getState().setWorkspace(ws, opts.live.watching));
  // Whatever changed a list (the redo queue, a launch event, RESUME.md drift), the cursors
  // follow their picked items before the next key is read (issue 8 item 2).
  const unfollow = store.subscribe((st, prev) => {
    if (st.ws === prev.ws && st.agents === prev.agents && st.filter === prev.filter && st.skipped === prev.skipped && st.redoQueue === prev.redoQueue && st.recovery.resume === prev.recovery.resume) return;
    // The same update already placed the cursors (setWorkspace, the agents feed, a filter).
    if (st.picked !== prev.picked) return;
    const next = clampCursors(st);
    if (!sameCursors(st, next)) store.setState(next);
  });
  const stopFeed = opts.agents ? startAgentsFeed(store, opts.agents, () => agentActions?.launchQueued()) : null;
  const stopRecovery = recoveryActions!.attach(store);
  // Keep the unsubscribe reachable for the entry's cleanup.
  (store as AppStore & { dispose?: () => void }).dispose = () => {
    unsubscribe();
    unfollow();
    stopFeed?.();
    stopRecovery();
  };
  return store;
}

export const disposeStore = (store: AppStore): void => (store as AppStore & { dispose?: () => void }).dispose?.();
