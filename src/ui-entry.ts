import { createElement } from 'react';
import { render } from 'ink';
import type { Cli } from './cli/args.js';
import { UsageError } from './cli/args.js';
import type { TextOptions } from './cli/text.js';
import { createLiveWorkspace } from './live/live-workspace.js';
import { createAppStore, disposeStore } from './app/store.js';
import { themeFor } from './app/theme.js';
import { ControlRoom } from '../components/ControlRoom.js';
import { openAgents } from './app/agents-open.js';

// The interactive entry (cli.ts decided we have a terminal). It owns the terminal for the
// session: the alternate screen while the control room runs, and on the way out — `q`,
// ctrl-c, SIGTERM or a crash — Ink's unmount (cursor, raw mode) and the main screen back.
// ctrl-c is handled by the control room itself (exitOnCtrlC: false) so this cleanup runs.

const ENTER_ALT = '\u001b[?1049h';
const LEAVE_ALT = '\u001b[?1049l';

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
  const stdout = process.stdout;
  let restored = false;
  const restore = (): void => {
    if (restored) return;
    restored = true;
    stdout.write(LEAVE_ALT);
  };
  // `on`, not `once`, and kept until the cleanup below has run: Ink's signal-exit re-raises
  // a signal (default action: die on the spot, alternate screen still on, lock left behind)
  // when it finds no other listener for it — which a `once` listener no longer is.
  const onSignal = (): void => store.setState({ quit: true });
  process.once('exit', restore);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  stdout.write(ENTER_ALT);
  const app = render(createElement(ControlRoom, { store, theme: themeFor(process.env) }), {
    exitOnCtrlC: false,
    patchConsole: true,
    // Only the lines that changed are written (issue 10: one marker turning a cell done rewrote
    // all 24 rows, 2.3 KB; now the 5 changed lines, ~0.6 KB: test/bench/paint-child.ts).
    incrementalRendering: true,
  });
  try {
    await app.waitUntilExit();
    // A backup or a checkpoint write in flight finishes before we leave.
    await store.getState().idle();
  } finally {
    app.unmount();
    app.cleanup();
    restore();
    process.off('exit', restore);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    disposeStore(store);
    await live.close();
    // Runs in flight: cancelled (q, then y; or a signal), or left running (l, or ctrl-c twice).
    await agents.close(store.getState().agents.quitMode, (line) => stdout.write(`${line}\n`));
  }
  return 0;
}
