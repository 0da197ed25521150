import { createElement } from 'react';
import { render } from 'ink';
import type { Cli } from './cli/args.js';
import { UsageError } from './cli/args.js';
import type { TextOptions } from './app/layout.js';
import { createLiveWorkspace } from './live/live-workspace.js';
import { createAppStore, disposeStore } from './app/store.js';
import { themeFor } from './app/theme.js';
import { ControlRoom } from '../components/ControlRoom.js';
import { openAgents } from './app/agents-open.js';
import { anchoredStdout } from './app/anchored-stdout.js';
import { loadConfig } from './pipeline/config.js';
import { sweepAtStart } from './cli/sweep-at-start.js';
import { sanitizeLine } from './sanitize.js';
import { serveControlRoom } from './socket/start.js';
import { statusJsonText } from './cli/core-commands.js';
import { bounded, exitCodeFor, watchEnd, withDeadline, type StopReason } from './shutdown.js';

// The interactive entry (cli.ts decided we have a terminal). It owns the terminal for the
// session: the alternate screen while the control room runs. Every way out — `q`, SIGINT,
// SIGTERM, SIGHUP, a closed terminal, an uncaught error — takes the one path below, once and
// within a deadline (issue 8 item 4): Ink unmounted, the terminal restored (alternate screen
// off, cursor shown, raw mode off) unless it is gone, the workspace closed, then the agents
// stopped (whole process groups and escaped descendants) or — the operator's choice at quit —
// left running, the session stop journaled with its reason, the driver lock released.
// ctrl-c is handled by the control room itself (exitOnCtrlC: false) so this path runs.

const ENTER_ALT = '\u001b[?1049h';
const LEAVE_ALT = '\u001b[?1049l';
const SHOW_CURSOR = '\u001b[?25h';

// Agents get their grace (SIGTERM, then SIGKILL) inside the deadline; past it, everything is
// killed at once. The rest covers the drain, the journal and the workspace's close.
const DEADLINE_MS = 15_000;
const deadlineFor = (agents: { graceMs: number }[]): number => DEADLINE_MS + Math.max(0, ...agents.map((a) => a.graceMs));

const otherDriver = (snap: { role: string; holder: unknown } | undefined): boolean => snap?.role === 'readonly' && !!snap.holder;

export async function runControlRoom(cli: Cli, o: TextOptions): Promise<number> {
  if (cli.positionals.length > 1) throw new UsageError(`unexpected argument "${cli.positionals[1]}"`);
  const dir = cli.positionals[0] ?? '.';
  const live = await createLiveWorkspace(dir, { watch: true });
  // One supervisor per control room (none with --readonly: nothing may be written).
  const agents = await openAgents(live, cli.readonly);
  const store = createAppStore({ live, readonly: cli.readonly, ascii: o.ascii, agents: agents.options, agentsWhy: agents.why ?? undefined,
    // An interactive session: the recover report when the last one was interrupted, RESUME.md at milestones and offered on quit.
    // While another checkroom drives, its session is live, not interrupted: no recover report.
    session: { recoverOnStart: !otherDriver(agents.options?.sup.snapshot()), milestones: true, resumeOnQuit: true } });
  // A control room that may write sweeps the temp files of killed atomic writes and says so
  // (issue 8 item 7); a read-only one, or one watching another driver, deletes nothing.
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
  // Scripts ask this instance instead of scanning (issue 10 item 4): `status --json`, `watch`.
  const control = await serveControlRoom(live, agents.options?.sup, cli.readonly, (s) => statusJsonText(s, agents.options?.sup.snapshot().ledger.costs));
  if (control.notice && !store.getState().message) store.setState({ message: { text: sanitizeLine(control.notice), tone: 'warn' } });
  const { stdin, stdout, stderr } = process;
  // Listening before anything is drawn: from here no signal, terminal error or crash can end
  // the process except through the path below.
  const ends = watchEnd({ stdin, stdout, stderr });
  const write = (text: string): void => {
    if (ends.terminalAlive()) stdout.write(text);
  };
  let restored = false;
  const restore = (): void => {
    if (restored || !ends.terminalAlive()) return;
    restored = true;
    try {
      if (stdin.isTTY) stdin.setRawMode(false);
    } catch {
      // a terminal that cannot change mode is gone: nothing else to restore
    }
    stdout.write(LEAVE_ALT + SHOW_CURSOR);
  };
  process.once('exit', restore);
  write(ENTER_ALT);
  const app = render(createElement(ControlRoom, { store, theme: themeFor(process.env) }), {
    stdout: anchoredStdout(stdout),
    exitOnCtrlC: false,
    patchConsole: true,
    // Only the lines that changed are written (issue 10: one marker turning a cell done rewrote
    // all 24 rows, 2.3 KB; now the 5 changed lines, ~0.6 KB: test/bench/paint-child.ts).
    incrementalRendering: true,
  });
  const end = await Promise.race([
    app.waitUntilExit().then(
      () => ({ reason: 'quit' as StopReason, error: undefined as unknown }),
      (error: unknown) => ({ reason: 'crash' as StopReason, error }),
    ),
    ends.first,
  ]);
  // Runs in flight: cancelled (q then y, a signal, a closed terminal, a crash), or left
  // running (l in the quit offer, or ctrl-c twice).
  const mode = (): 'cancel' | 'leave' | null => store.getState().agents.quitMode;
  await withDeadline(
    async () => {
      store.setState({ quit: true });
      // A backup or a checkpoint write in flight finishes before we leave (bounded).
      await bounded(store.getState().idle(), 5000);
      try {
        app.unmount();
        app.cleanup();
      } catch {
        // Ink on a terminal that is gone: the steps after this one matter more
      }
      restore();
      disposeStore(store);
      await bounded(control.server?.close() ?? Promise.resolve(), 1000);
      await bounded(live.close(), 3000);
      await agents.close(mode(), (line) => write(`${line}\n`), end.reason);
    },
    deadlineFor(Object.values(agents.options?.config.agents ?? {})),
    () => {
      restore();
      control.server?.closeNow();
      agents.closeNow(mode(), 'deadline');
    },
    () => process.exit(exitCodeFor(end.reason)),
  );
  ends.off();
  process.off('exit', restore);
  // Whatever still holds the event loop (a stuck handle of a dead terminal) must not keep a
  // finished session alive.
  setTimeout(() => process.exit(exitCodeFor(end.reason)), 1000).unref();
  if (end.reason === 'crash') throw end.error instanceof Error ? end.error : new Error(String(end.error));
  return exitCodeFor(end.reason);
}
