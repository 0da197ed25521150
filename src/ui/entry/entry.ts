import { basename, resolve } from 'node:path';
import { createElement } from 'react';
import { render, type Instance } from 'ink';
import type { Cli } from '../../cli/args.js';
import { UsageError } from '../../cli/args.js';
import type { TextOptions } from '../../text/layout.js';
import { themeFor, type Theme } from '../../text/theme.js';
import { anchoredStdout } from '../term/anchored-stdout.js';
import { countFiles } from '../views/quick-listing.js';
import type { Room } from './room.js';
import { Starting } from '../../../components/Starting.js';
import { bounded, deadlineFor, exitCodeFor, runsOnEnd, watchEnd, withDeadline, type StopReason } from '../../shutdown.js';
import { escapeOutput, stderrOut } from '../../cli/text-out.js';
import { outputCharset, toCharsetInPlace } from '../../text/charset.js';

// The interactive entry (cli.ts decided we have a terminal). It owns the terminal for the
// session: the alternate screen while the control room runs. Every way out — `q`, SIGINT,
// SIGTERM, SIGHUP, a closed terminal, an uncaught error — takes the one path below, once and
// within a deadline: Ink unmounted, the terminal restored (alternate screen
// off, cursor shown, raw mode off) unless it is gone, the workspace closed, then the agents
// stopped (whole process groups and escaped descendants) or left running (the operator's
// choice at quit, or a dropped terminal under \`on_hangup: leave\`), the session stop journaled with its reason, the driver lock released.
// ctrl-c is handled by the control room itself (exitOnCtrlC: false) so this path runs.

const ENTER_ALT = '\u001b[?1049h';
const LEAVE_ALT = '\u001b[?1049l';
const SHOW_CURSOR = '\u001b[?25h';

/** Waits for Ink's next frame: it paints at most every ~33 ms, and the scan holds the event loop. */
const painted = (): Promise<void> => new Promise((r) => setTimeout(r, 40));
// Below this many files the scan is over in well under a tenth of a second: the count is not
// worth a frame (nor the wait for it).
const COUNT_WORTH_A_FRAME = 5000;

/**
 * The first frame, before the scan (18× node's start-up at 50k files when it
 * waited for the scan): the header, and a progress line from a directory listing. `listed`
 * settles once the count is on screen.
 */
function drawFirstFrame(dir: string, theme: Theme, ascii: boolean): Instance & { listed: Promise<void> } {
  const starting = (files: number | null) =>
    createElement(Starting, { name: basename(resolve(dir)), files, theme, width: process.stdout.columns || 80, ascii });
  // Every string a view draws is in the terminal's charset already (components/Styled.tsx);
  // what Ink adds itself (the `…` of a cut line) is put in it here, cell for cell.
  const cs = outputCharset();
  const app = render(starting(null), {
    stdout: anchoredStdout(process.stdout, cs === 'unicode' ? undefined : (text) => toCharsetInPlace(text, cs)),
    exitOnCtrlC: false,
    patchConsole: true,
    // Only the cells that changed are written (one marker turning a cell done
    // rewrote all 24 rows, 2.3 KB; now ~0.1 KB: src/ui/term/anchored-stdout.ts, test/e2e/tmux/paint-diff.test.ts).
    incrementalRendering: true,
  });
  // Keys pressed while the scan runs are kept for the room, not echoed over the frame.
  try {
    if (process.stdin.isTTY) process.stdin.setRawMode(true);
  } catch {
    // a terminal that cannot change mode: the room finds out when it reads
  }
  const files = countFiles(dir);
  if (files === null || files < COUNT_WORTH_A_FRAME) return Object.assign(app, { listed: Promise.resolve() });
  app.rerender(starting(files));
  return Object.assign(app, { listed: painted() });
}

/**
 * The end of a session stopped before its room was up: the first frame unmounted, the
 * terminal restored, then exit. No agent, lock or socket is in play yet that must be waited
 * for, and the scan still under way must not keep the process (or open a room) after it.
 */
function stopWhileOpening(end: { reason: StopReason; error?: unknown }, s: { app: Instance; restore: () => void; ends: { off(): void } }): never {
  try {
    s.app.unmount();
  } catch {
    // Ink on a terminal that is gone: restoring it matters more
  }
  s.restore();
  s.ends.off();
  if (end.reason === 'crash') stderrOut.write(`checkroom: ${end.error instanceof Error ? end.error.message : String(end.error)}\n`);
  process.exit(exitCodeFor(end.reason));
}

/** A handover asked on the control socket: the session ends by the same path as `q`, its runs left running. */
function handoverEnd(): { begin(): void; asked: Promise<{ reason: StopReason; error?: unknown }> } {
  let begin: () => void = () => undefined;
  const asked = new Promise<{ reason: StopReason; error?: unknown }>((r) => (begin = () => r({ reason: 'handover' })));
  return { begin: () => begin(), asked };
}

export async function runControlRoom(cli: Cli, o: TextOptions): Promise<number> {
  if (cli.positionals.length > 1) throw new UsageError(`unexpected argument "${cli.positionals[1]}"`);
  const dir = cli.positionals[0] ?? '.';
  const { stdin, stdout, stderr } = process;
  // Listening before anything is drawn: from here no signal, terminal error or crash can end
  // the process except through the path below.
  const ends = watchEnd({ stdin, stdout, stderr });
  // `raw`: our own sequences; else the lines after the room (runs left or stopped), escaped and in the terminal's charset.
  const write = (text: string, raw = false): void => {
    if (ends.terminalAlive()) stdout.write(raw ? text : escapeOutput(text, false));
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
  const handover = handoverEnd();
  write(ENTER_ALT, true);
  const theme = themeFor(process.env);
  const app = drawFirstFrame(dir, theme, o.ascii);
  let room: typeof import('./room.js');
  let opened: Room;
  try {
    await app.listed;
    // The rest of the UI and the engine load after the first frame is on screen.
    room = await import('./room.js');
    const opening = room.openRoom(dir, cli, o.ascii, handover);
    // Told to stop while the workspace is read (the scan yields, so the
    // signal is heard): nothing runs yet, so the terminal comes back and the process ends at
    // once, instead of after a scan of 50k files and a room drawn only to be closed.
    const early = await Promise.race([opening.then(() => null), ends.first]);
    if (early) return stopWhileOpening(early, { app, restore, ends });
    opened = await opening;
  } catch (err) {
    // Not a workspace, a bad checkroom.yaml: the terminal back as it was, then the message.
    app.unmount();
    restore();
    ends.off();
    process.off('exit', restore);
    throw err;
  }
  const { live, agents, store, control } = opened;
  app.rerender(createElement(room.ControlRoom, { store, theme }));
  const end = await Promise.race([
    app.waitUntilExit().then(
      () => ({ reason: 'quit' as StopReason, error: undefined as unknown }),
      (error: unknown) => ({ reason: 'crash' as StopReason, error }),
    ),
    ends.first,
    handover.asked,
  ]);
  // Runs in flight: cancelled (q then y, SIGINT, SIGTERM, a crash), or left running (l in
  // the quit offer, ctrl-c twice, a handover asked on the control socket, or
  // a dropped terminal, unless \`on_hangup: stop\`).
  const mode = (): 'cancel' | 'leave' | null =>
    end.reason === 'handover' ? 'leave' : runsOnEnd(end.reason, store.getState().agents.quitMode, agents.options?.config.onHangup);
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
      room.disposeStore(store);
      await bounded(control.close(), 1000);
      await bounded(live.close(), 3000);
      await agents.close(mode(), (line) => write(`${line}\n`), end.reason);
    },
    deadlineFor(Object.values(agents.options?.config.agents ?? {})),
    () => {
      restore();
      control.closeNow();
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
