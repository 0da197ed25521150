import { execFile } from 'node:child_process';
import { alarmBytes, titleOf, type TerminalPlace } from './terminal.js';
import { needsYouWords, type NeedsYou } from './needs-you.js';
import type { TerminalAlarms } from './types.js';

// Terminal alarms, written (docs/notify.md, Terminal alarms): off unless configured, and only
// to a real terminal — a pipe, a file or cron's mail gets none of these bytes. The count comes
// from the one needs-you model; this only writes what terminal.ts says when it changes.

export interface TerminalAlarmHost {
  /** Called on every change of the store; returns an unsubscribe. */
  subscribe(fn: () => void): () => void;
  needsYou(): NeedsYou;
  /** The workspace's name, for the title and the notification. */
  name: string;
}

/** tmux passes a desktop notification through only when its allow-passthrough says so. */
export const askTmux = (env: NodeJS.ProcessEnv): Promise<TerminalPlace> =>
  !env.TMUX
    ? Promise.resolve({ tmux: false, passthrough: false })
    : new Promise((resolve) =>
        execFile('tmux', ['show', '-gv', 'allow-passthrough'], { timeout: 2000, env }, (err, stdout) => resolve({ tmux: true, passthrough: !err && /^(on|all)\s*$/.test(String(stdout)) })),
      );

export function startTerminalAlarms(h: TerminalAlarmHost, cfg: TerminalAlarms, out: Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): () => void {
  if (!out.isTTY || (!cfg.bell && !cfg.title && cfg.osc === null)) return () => undefined;
  let place: TerminalPlace | null = null;
  // The count at start is the state, not news: the title shows it, nothing rings.
  let before: number | null = null;
  let titled = false;
  const look = (): void => {
    if (!place) return;
    const n = h.needsYou();
    const was = before;
    before = n.count;
    if (was === n.count) return;
    const title = n.count > 0 ? `${needsYouWords(n.count)} - checkroom ${h.name}` : `checkroom ${h.name}`;
    titled ||= cfg.title;
    if (was === null) {
      if (cfg.title && n.count > 0) out.write(titleOf(title));
      return;
    }
    const bytes = alarmBytes(cfg, { before: was, after: n.count, title, heading: `checkroom ${h.name}`, news: `${needsYouWords(n.count)}: ${n.cells.slice(0, 3).join(', ')} escalated` }, place);
    if (bytes) out.write(bytes);
  };
  // A count must not outlive the room in the tab: the title is emptied (the terminal's default) at exit.
  const untitle = (): void => {
    if (titled && before) out.write(titleOf(''));
  };
  process.once('exit', untitle);
  void askTmux(env).then((p) => {
    place = p;
    look();
  });
  const off = h.subscribe(look);
  return () => {
    off();
    process.off('exit', untitle);
    untitle();
  };
}
