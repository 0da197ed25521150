import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyDemo, REPO } from './workspace.js';

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
    // room must draw anyway (src/ui/entry/load.ts). Every end-to-end run checks that.
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

// ---- the built control room in tmux: set-up the torture tests shared by copy (issue 19 item 4) ----

/** The built binary, as package.json's `bin` names it. */
export const CLI = join(REPO, (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { bin: { checkroom: string } }).bin.checkroom);

export type TmuxOptions = ConstructorParameters<typeof TmuxSession>[1];

/**
 * Tmux sessions killed after the file (`afterAll`): `room(args)` starts the built binary
 * with `args` in a pane that stays after it exits and says `EXITED-<code>`.
 */
export function tmuxRooms(afterAll: (fn: () => void | Promise<void>) => void): { sessions: TmuxSession[]; room: (args: string, opts?: TmuxOptions) => TmuxSession } {
  const sessions: TmuxSession[] = [];
  afterAll(() => sessions.forEach((s) => s.kill()));
  const room = (args: string, opts?: TmuxOptions): TmuxSession => {
    const t = new TmuxSession(`sh -c 'node ${CLI} ${args}; echo EXITED-$?; sleep 600'`, opts);
    sessions.push(t);
    return t;
  };
  return { sessions, room };
}

/** The same, `open(dir)` with the demo's fake agent slowed so a run is mid-write across a quit or a kill. */
export function roomSessions(afterAll: (fn: () => void | Promise<void>) => void, speed = '0.03'): { sessions: TmuxSession[]; open: (dir: string) => TmuxSession } {
  const { sessions, room } = tmuxRooms(afterAll);
  return { sessions, open: (dir) => room(dir, { env: { CHECKROOM_FAKE_SPEED: speed } }) };
}

/** From the first frame: filter the Plan to `unit`, Enter on its `step` row, confirm; resolves when the cell runs. */
export async function launchByHand(t: TmuxSession, unit: string, step: string): Promise<void> {
  await t.waitFor(/^auto off · live: /m);
  t.keys('/', unit, 'Enter', '3');
  await t.waitFor(new RegExp(`› P1 ${unit} ${step}\\s+retry`));
  t.keys('Enter');
  await t.waitFor(`Confirm: Launch ${unit} ${step}`);
  t.keys('y');
  await t.waitFor(new RegExp(`${unit} ${step}\\s+running`));
}

/** The demo with every fake agent succeeding and an idle watchdog (40 s) longer than the slowed agent's pauses. */
export function slowAgentDemo(): string {
  const dir = copyDemo();
  writeFileSync(join(dir, 'agents', 'faults.json'), '{ "*/*": "ok" }\n');
  const yaml = join(dir, 'checkroom.yaml');
  writeFileSync(yaml, readFileSync(yaml, 'utf8').replaceAll('idle_timeout: 8s', 'idle_timeout: 40s'));
  return dir;
}
