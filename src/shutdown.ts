// How an interactive session can end, and the one way it ends: `q`, SIGINT,
// SIGTERM, SIGHUP, a closed terminal (an SSH drop or tmux kill-session hangs up the pty:
// writes fail with EIO, reads see end-of-file) and an uncaught error all lead to the same
// steps, run once, within a deadline. What the steps are is the entry's business
// (ui-entry.ts); this module only turns the causes into one reason and bounds the time.

/** `handover`: another instance asked through the control socket; the runs are left running. */
export type StopReason = 'quit' | 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'terminal-closed' | 'crash' | 'handover';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** A cause that is the terminal going away, not anyone's decision: an SSH link that blinked. */
export const isHangup = (reason: StopReason | string): boolean => reason === 'SIGHUP' || reason === 'terminal-closed';

/**
 * What becomes of the runs in flight: what the operator chose at quit, if
 * anything; else a dropped terminal follows \`on_hangup\` — \`leave\` (the default: every run has
 * its keeper, so hours of agent work do not die with a network blip) or \`stop\`; every other
 * cause cancels them (null).
 */
export const runsOnEnd = (reason: StopReason, chosen: 'cancel' | 'leave' | null, onHangup: 'leave' | 'stop' = 'leave'): 'cancel' | 'leave' | null =>
  chosen ?? (isHangup(reason) && onHangup === 'leave' ? 'leave' : null);

/** The conventional status: 128 + the signal number; a hung-up terminal is SIGHUP's. */
export const exitCodeFor = (reason: StopReason): number =>
  ({ quit: 0, handover: 0, SIGINT: 130, SIGTERM: 143, SIGHUP: 129, 'terminal-closed': 129, crash: 1 })[reason];

interface TermStreams {
  /** The interactive terminal's input; headless callers (checkroom run) leave it out. */
  stdin?: NodeJS.EventEmitter;
  stdout: NodeJS.EventEmitter;
  stderr?: NodeJS.EventEmitter;
}

export interface EndWatch {
  /** The first cause seen (later ones are ignored: one shutdown). */
  readonly first: Promise<{ reason: StopReason; error?: unknown }>;
  /** False once the terminal is known to be gone: nothing more may be written to it. */
  terminalAlive(): boolean;
  /** Stop listening for signals and crashes; terminal error listeners stay (late writes may still fail). */
  off(): void;
}

/**
 * Listen for every cause at once. Listening is also what keeps each cause from killing the
 * process on the spot: a signal with a listener is not fatal, an 'error' with a listener is
 * not thrown, an uncaught exception with a listener does not exit.
 */
export function watchEnd(streams: TermStreams, proc: NodeJS.Process = process): EndWatch {
  let alive = true;
  let settle: (v: { reason: StopReason; error?: unknown }) => void = () => undefined;
  let settled = false;
  const first = new Promise<{ reason: StopReason; error?: unknown }>((resolve) => {
    settle = (v) => {
      if (settled) return;
      settled = true;
      resolve(v);
    };
  });
  const onSignal = (signal: NodeJS.Signals): void => settle({ reason: signal as StopReason });
  // Any error on the terminal's streams means it can no longer be used (EIO after a
  // hang-up, EPIPE, a destroyed stream written again): stop writing, end the session.
  const onTermError = (): void => {
    alive = false;
    settle({ reason: 'terminal-closed' });
  };
  // In raw mode the terminal never ends stdin by itself; end-of-file is a hang-up.
  const onStdinEnd = (): void => {
    alive = false;
    settle({ reason: 'terminal-closed' });
  };
  const onCrash = (error: unknown): void => settle({ reason: 'crash', error });
  for (const s of SIGNALS) proc.on(s, onSignal);
  proc.on('uncaughtException', onCrash);
  proc.on('unhandledRejection', onCrash);
  streams.stdout.on('error', onTermError);
  streams.stderr?.on('error', onTermError);
  streams.stdin?.on('error', onTermError);
  streams.stdin?.on('end', onStdinEnd);
  return {
    first,
    terminalAlive: () => alive,
    off() {
      for (const s of SIGNALS) proc.off(s, onSignal);
      proc.off('uncaughtException', onCrash);
      proc.off('unhandledRejection', onCrash);
      streams.stdin?.off('end', onStdinEnd);
    },
  };
}

// Agents get their grace (SIGTERM, then SIGKILL) inside the deadline; past it, everything is
// killed at once. The rest covers the drain, the journal and the workspace's close. Every
// shutdown (the control room, `checkroom run`) has this bound, whatever a scheduler does.
const DEADLINE_MS = 15_000;
export const deadlineFor = (agents: { graceMs: number }[]): number => DEADLINE_MS + Math.max(0, ...agents.map((a) => a.graceMs));

/**
 * Run `steps` with a deadline: when they have not finished after `ms`, `emergency` runs
 * (synchronous: stop what must not outlive us, release what others wait for) and `exit` is
 * called. A shutdown that hangs on one step must still end.
 */
export async function withDeadline(steps: () => Promise<void>, ms: number, emergency: () => void, exit: () => void): Promise<void> {
  const timer = setTimeout(() => {
    try {
      emergency();
    } finally {
      exit();
    }
  }, ms);
  try {
    await steps();
  } finally {
    clearTimeout(timer);
  }
}

/** `p`, or undefined after `ms`: one step of a shutdown may not take the whole deadline. */
export const bounded = <T>(p: Promise<T>, ms: number): Promise<T | undefined> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
};
