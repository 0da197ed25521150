import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync, spawnSync } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';

// A program in a real terminal (tmux, fixed size) whose output bytes are timestamped as tmux
// reads them: `pipe-pane` copies everything the pane's program writes into a FIFO that this
// process reads, so "the glyph reached the terminal" is an event, not a poll (issue 18 item
// 6). `capture-pane` then confirms what tmux's screen shows, at the cost of one exec per look.

export interface Pane {
  pid: number;
  /** The pane's screen as text. */
  screen(): string;
  keys(...k: string[]): void;
  /** When the first output written after `since` that contains `text` was read (performance.now()). */
  outputAfter(since: number, text: string, timeoutMs?: number): Promise<number>;
  /** Polls the screen until `ok` holds; the time of the first look that saw it, and how many looks. */
  until(ok: (screen: string) => boolean, timeoutMs?: number): { at: number; looks: number; lookMs: number };
  /** Peak and current RSS of the pane's program (MB), from /proc. */
  memory(): { hwmMb: number; rssMb: number };
  /** CPU time (user + system) the pane's program has used so far (ms, in clock ticks of 10 ms). */
  cpuMs(): number;
  close(): void;
}

let panes = 0;

export async function openPane(command: string, cols: number, rows: number): Promise<Pane> {
  const socket = `checkroom-glass-${process.pid}-${panes++}`;
  const tmux = (...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
  const tmp = mkdtempSync(join(tmpdir(), 'checkroom-pane-'));
  const fifo = join(tmp, 'out');
  execFileSync('mkfifo', [fifo]);
  // exec: the pane's process is the program itself, so its /proc entry is the one measured.
  // remain-on-exit: a program that dies leaves its last screen for the error message.
  tmux('new-session', '-d', '-s', 'b', '-x', String(cols), '-y', String(rows), '-e', 'TERM=xterm-256color', '-e', 'LANG=C.UTF-8', `exec ${command}`);
  tmux('set-option', '-t', 'b', 'remain-on-exit', 'on');
  tmux('pipe-pane', '-t', 'b', `exec cat > ${fifo}`);
  const pid = Number(tmux('display-message', '-p', '-t', 'b', '#{pane_pid}').trim());
  const chunks: { at: number; text: string }[] = [];
  const waiters = new Set<() => void>();
  const decoder = new StringDecoder('utf8');
  const stream = createReadStream(fifo, { highWaterMark: 1 << 16 });
  stream.on('data', (b) => {
    chunks.push({ at: performance.now(), text: decoder.write(b as Buffer) });
    // Only the recent output is looked at; an idle room writes nothing, so this stays small.
    if (chunks.length > 4096) chunks.splice(0, 2048);
    for (const w of [...waiters]) w();
  });
  stream.on('error', () => {});

  const outputAfter = (since: number, text: string, timeoutMs = 10_000): Promise<number> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        let seen = '';
        for (const c of chunks) {
          if (c.at < since) continue;
          seen += c.text;
          if (seen.includes(text)) {
            waiters.delete(check);
            clearTimeout(timer);
            return resolve(c.at);
          }
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${JSON.stringify(text)} in the pane's output within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  const screen = (): string => tmux('capture-pane', '-p', '-t', 'b');
  return {
    pid,
    screen,
    keys: (...k) => void tmux('send-keys', '-t', 'b', ...k),
    outputAfter,
    until(ok, timeoutMs = 120_000) {
      const t0 = performance.now();
      let looks = 0;
      let last = '';
      while (performance.now() - t0 < timeoutMs) {
        last = screen();
        looks++;
        if (ok(last)) {
          const at = performance.now();
          return { at, looks, lookMs: (at - t0) / looks };
        }
      }
      throw new Error(`the screen never showed what was waited for; last screen:\n${last}`);
    },
    memory() {
      const s = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? NaN);
      return { hwmMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
    },
    cpuMs() {
      // Fields 14 and 15 of /proc/<pid>/stat, counted after the command's closing parenthesis.
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(f[11]) + Number(f[12])) * 10;
    },
    close() {
      spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
      stream.destroy();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
