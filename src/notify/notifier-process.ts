import { spawn } from 'node:child_process';
import { sanitizeLine } from '../text/sanitize.js';

// One notify command, run once (docs/notify.md, Commands): an argument array (no shell), the
// payload on its stdin, in its own process group so a timeout kills all it started. It never
// throws and never touches the pipeline: what came of it is a value the caller reports once.

export interface NotifierOutcome {
  ok: boolean;
  /** Why it failed, in words (sanitized), or null. */
  why: string | null;
}

const KILL_GRACE_MS = 1_000;
const STDERR_KEEP = 400;

const killGroup = (pid: number | undefined, signal: NodeJS.Signals): void => {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
};

export function runNotifier(argv: readonly string[], payload: string, o: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<NotifierOutcome> {
  return new Promise((resolve) => {
    let err = '';
    let timedOut = false;
    let done = false;
    const finish = (r: NotifierOutcome): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(grace);
      resolve(r);
    };
    let grace: NodeJS.Timeout | undefined;
    const child = spawn(argv[0], argv.slice(1), { cwd: o.cwd, env: o.env ?? process.env, stdio: ['pipe', 'ignore', 'pipe'], detached: true });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGTERM');
      grace = setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
    }, o.timeoutMs);
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < STDERR_KEEP) err += b.toString('utf8');
    });
    child.stdin.on('error', () => undefined); // a notifier that does not read its stdin is fine
    child.on('error', (e) => finish({ ok: false, why: sanitizeLine(`cannot start ${argv[0]}: ${(e as NodeJS.ErrnoException).code ?? e.message}`) }));
    child.on('exit', (code, signal) => {
      // Anything it left behind in its group goes with it.
      killGroup(child.pid, 'SIGKILL');
      const tail = sanitizeLine(err.trim().split('\n').at(-1)?.slice(0, 200) ?? '');
      if (timedOut) return finish({ ok: false, why: `no exit within ${o.timeoutMs} ms: killed` });
      if (code === 0) return finish({ ok: true, why: null });
      finish({ ok: false, why: `${signal ? `killed by ${signal}` : `exit ${code}`}${tail ? `: ${tail}` : ''}` });
    });
    child.stdin.end(payload);
  });
}
