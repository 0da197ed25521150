import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

// A real terminal for end-to-end tests: a detached tmux session on a private socket
// (`-L`), driven with send-keys and read with capture-pane. Waits poll the screen with a
// generous timeout; nothing asserts on wall-clock time.

export const hasTmux = (): boolean => spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class TmuxSession {
  readonly socket = `checkroom-e2e-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly name = 'cr';

  constructor(
    command: string,
    opts: { cols?: number; rows?: number; cwd?: string; env?: Record<string, string> } = {},
  ) {
    // CI=true as CI has it: ink draws nothing until exit where it sees CI, and the control
    // room must draw anyway (src/ui-load.ts). Every end-to-end run checks that.
    const env = Object.entries({ TERM: 'xterm-256color', LANG: 'C.UTF-8', CI: 'true', ...opts.env }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    this.tmux('new-session', '-d', '-s', this.name, '-x', String(opts.cols ?? 80), '-y', String(opts.rows ?? 24), ...(opts.cwd ? ['-c', opts.cwd] : []), ...env, command);
  }

  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /** tmux key names (`Enter`, `Escape`, `Tab`) or literal text. */
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.name, ...keys);
  }

  /** Every byte the program writes from now on, appended to `file` (tmux pipe-pane): what the terminal was sent, not what it shows. */
  pipeTo(file: string): void {
    this.tmux('pipe-pane', '-t', this.name, '-o', `cat >> '${file}'`);
  }

  capture(): string {
    return this.tmux('capture-pane', '-p', '-t', this.name);
  }

  /** 1 while the program shows the alternate screen. */
  alternateOn(): boolean {
    return this.tmux('display-message', '-p', '-t', this.name, '#{alternate_on}').trim() === '1';
  }

  async waitFor(what: string | RegExp | (() => boolean), timeoutMs = 30_000): Promise<string> {
    const t0 = Date.now();
    for (;;) {
      const screen = this.capture();
      const ok = typeof what === 'function' ? what() : typeof what === 'string' ? screen.includes(what) : what.test(screen);
      if (ok) return screen;
      if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${String(what)}; the screen:\n${screen}`);
      await sleep(100);
    }
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
  }
}
