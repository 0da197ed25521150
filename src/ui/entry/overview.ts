import { createElement } from 'react';
import { render } from 'ink';
import { execa } from 'execa';
import os from 'node:os';
import type { Cli } from '../../cli/args.js';
import type { WorkspaceEntry } from '../../many/entries.js';
import { createOverview } from '../../many/overview.js';
import { readStatus, overviewSettings } from '../../many/read-status.js';
import type { OverviewRow } from '../../many/rows.js';
import { themeFor } from '../../text/theme.js';
import { ThemeContext } from '../../../hooks/use-theme.js';
import { Overview } from '../../../components/Overview.js';

// The overview's entry (docs/many.md): the rows live while it is on screen; Enter on a local
// workspace hands the terminal to `checkroom DIR` — the same program, so it takes the
// workspace's driver lock as a single `checkroom DIR` would, or watches read-only when
// another checkroom drives — and the overview comes back when that control room ends (Esc
// there, `--from-overview`, leaves its runs running and returns here).

const ENTER_ALT = '\u001b[?1049h';
const LEAVE_ALT = '\u001b[?1049l';
const SHOW_CURSOR = '\u001b[?25h';

type Choice = { kind: 'open'; row: OverviewRow } | { kind: 'quit' };

/** The flags a control room opened from here keeps from the overview's command line. */
const roomFlags = (cli: Cli): string[] => [...(cli.readonly ? ['--readonly'] : []), ...(cli.ascii ? ['--ascii'] : []), '--from-overview'];

export async function runOverview(entries: readonly WorkspaceEntry[], cli: Cli, ascii: boolean, bin: string): Promise<number> {
  const { read, poll } = overviewSettings(process.env, bin);
  const model = createOverview(entries, { read: (e) => readStatus(e, read), now: Date.now, localMs: poll.localMs, remoteMs: poll.remoteMs, gapMs: poll.gapMs });
  const theme = themeFor(process.env);
  // Our own sequences, not text: nothing to escape.
  // eslint-disable-next-line no-restricted-syntax -- the terminal's modes, as entry.ts writes them
  const restore = (): boolean => process.stdout.write(LEAVE_ALT + SHOW_CURSOR);
  // A control room opened from here ends by its own path first (its agents stopped or left, the
  // stop journalled): a terminal's SIGHUP and SIGINT reach it with us (one process group), a
  // SIGTERM sent to us alone is passed on. Then the terminal is restored and we exit 128+N.
  let room: ReturnType<typeof execa> | null = null;
  let ending: NodeJS.Signals | null = null;
  const onSignal = (sig: NodeJS.Signals): void => {
    ending = sig;
    if (room) {
      if (sig === 'SIGTERM') room.kill(sig);
      return;
    }
    restore();
    process.exit(128 + (os.constants.signals[sig] ?? 1));
  };
  for (const s of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) process.on(s, onSignal);
  let picked: string | null = null;
  try {
    for (;;) {
      // eslint-disable-next-line no-restricted-syntax -- the terminal's modes, as entry.ts writes them
      process.stdout.write(ENTER_ALT);
      let choose: (c: Choice) => void = () => undefined;
      const chosen = new Promise<Choice>((r) => (choose = r));
      const app = render(
        createElement(ThemeContext.Provider, { value: theme }, createElement(Overview, { model, ascii, picked, onOpen: (row) => choose({ kind: 'open', row }), onQuit: () => choose({ kind: 'quit' }) })),
        { exitOnCtrlC: false, patchConsole: false },
      );
      const choice = await chosen;
      app.unmount();
      await app.waitUntilExit();
      if (choice.kind === 'quit') return 0;
      picked = choice.row.entry.label;
      if (choice.row.entry.kind !== 'local') continue;
      // The control room owns the terminal until it ends; our stdin reads nothing meanwhile.
      process.stdin.pause();
      model.pause();
      room = execa(process.execPath, [bin, ...roomFlags(cli), choice.row.entry.dir], { stdio: 'inherit', reject: false });
      await room;
      room = null;
      if (ending) return 128 + (os.constants.signals[ending] ?? 1);
      model.resume();
    }
  } finally {
    model.close();
    restore();
    for (const s of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) process.off(s, onSignal);
  }
}
