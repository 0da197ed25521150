import type { Cli } from '../../cli/args.js';
import { createLiveWorkspace } from '../../live/live-workspace.js';
import { createAppStore } from '../store/store.js';
export { disposeStore } from '../store/store.js';
import { openAgents } from '../agents/open.js';
import { loadConfig } from '../../pipeline/config/config.js';
import { sweepAtStart } from '../../cli/sweep-at-start.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { serveControlRoom } from '../../socket/start.js';
import { lastInputAt } from '../keys/input-clock.js';
import { liveStatusText } from '../../socket/status-text.js';
import { runsOf } from '../../operator/runs.js';
import { operatorOf } from '../store/operator.js';
import { statusJsonText } from '../../cli/commands/core-commands.js';
import { statusJson, toJson } from '../../cli/json.js';
import { startTerminalAlarms } from '../../notify/terminal-out.js';
import { needsYouOf } from '../../notify/needs-you.js';

// What the control room holds once the workspace is read (src/ui/entry/entry.ts draws the first
// frame before this module loads, so the first frame waits for nothing here). Its imports — the engine, zod and yaml
// through the config, the views — are what the first frame does not wait for.

export { ControlRoom } from '../../../components/ControlRoom.js';

const otherDriver = (snap: { role: string; holder: unknown } | undefined): boolean => snap?.role === 'readonly' && !!snap.holder;

export type Room = Awaited<ReturnType<typeof openRoom>>;

/** The entry's side of a handover: how to end, leaving the runs running. */
export interface EntryHandover {
  begin(): void;
}

/** The workspace read (the scan), the agents, the store and the control socket, as the control room holds them. */
export async function openRoom(dir: string, cli: Cli, ascii: boolean, entry?: EntryHandover) {
  const live = await createLiveWorkspace(dir, { watch: true });
  // One supervisor per control room (none with --readonly: nothing may be written).
  const agents = await openAgents(live, cli.readonly);
  const store = createAppStore({
    live,
    readonly: cli.readonly,
    ascii,
    fromOverview: cli.fromOverview,
    agents: agents.options,
    agentsWhy: agents.why ?? undefined,
    // An interactive session: the recover report when the last one was interrupted, RESUME.md at milestones and offered on quit.
    // While another checkroom drives, its session is live, not interrupted: no recover report.
    session: { recoverOnStart: !otherDriver(agents.options?.sup.snapshot()), milestones: true, resumeOnQuit: true },
    // History follows the journal; on start it says what changed while you were away (docs/history.md).
    history: { digest: true },
  });
  // A control room that may write sweeps the temp files of killed atomic writes and says so;
  // a read-only one, or one watching another driver, deletes nothing.
  if (!cli.readonly && !otherDriver(agents.options?.sup.snapshot())) {
    try {
      const cfg = agents.options?.config ?? (await loadConfig(live.state.root));
      const swept = await sweepAtStart(live.state.root, cfg, live.state.units);
      if (swept) store.setState({ message: { text: swept, tone: 'warn' } });
    } catch (err) {
      // Sweeping is housekeeping: it must not keep the control room from starting.
      store.setState({ message: { text: `temp-file sweep skipped: ${sanitizeLine((err as Error).message)}`, tone: 'warn' } });
    }
  }
  // Bell, desktop notification and tab title when configured, to a real terminal only (docs/notify.md).
  const term = agents.options?.config.notify?.terminal;
  if (term) startTerminalAlarms({ subscribe: (fn) => store.subscribe(fn), needsYou: () => needsYouOf(store.getState().agents.snap?.ledger), name: live.state.name }, term, process.stdout);
  // Scripts ask this instance instead of scanning: `status --json`, `watch`.
  const sup = agents.options?.sup;
  // Only a driver hands over; its role is asked at each request (an observer may have taken over since).
  const handover = sup && entry ? { role: () => sup.snapshot().role, lastInputAt, begin: entry.begin } : undefined;
  const remote = store.getState().remote;
  const control = await serveControlRoom(live, sup, cli.readonly, liveStatusText({ doc: statusJson, json: toJson, whole: statusJsonText }, () => sup?.snapshot().ledger.costs, () => (sup ? runsOf(store.getState().agents.snap) : null), () => operatorOf(store.getState()).foresight, () => operatorOf(store.getState()).pause, () => operatorOf(store.getState()).queues), handover, {
    ...(sup ? { pause: { pause: (ask) => sup.setPause(ask) } } : {}),
    // `checkroom redrive|redo --yes` from another terminal: applied by this room (docs/redrive.md, docs/redo.md).
    ...(remote ? { act: remote } : {}),
  });
  if (control.notice && !store.getState().message) store.setState({ message: { text: sanitizeLine(control.notice), tone: 'warn' } });
  return { live, agents, store, control };
}
