import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

// A writer checkroom did not launch (issue 17 item 1): a real `sh` that opens a file (for
// append, or read-only with `mode: 'read'`) and then sits quiet, holding it, until the test
// releases it; on release an appender writes its last bytes through the descriptor it held
// all along, wherever the file's name now points. No sleeps: the test says when.

export interface Writer {
  pid: number;
  /** Write `text` through the held descriptor and exit; resolves when the process has exited. */
  finish(text?: string): Promise<void>;
  kill(): void;
}

const alive: ChildProcess[] = [];

export async function holdOpen(file: string, mode: 'append' | 'read' = 'append', argv0: string[] = ['sh']): Promise<Writer> {
  const open = mode === 'append' ? 'exec 3>>"$F"' : 'exec 3<"$F"';
  const then = mode === 'append' ? `printf '%b' "$T" >&3` : ':';
  const child = spawn(argv0[0], [...argv0.slice(1), '-c', `${open}; echo ready; IFS= read -r T; ${then}`], { env: { ...process.env, F: file }, stdio: ['pipe', 'pipe', 'inherit'] });
  alive.push(child);
  let out = '';
  child.stdout!.setEncoding('utf8');
  while (!out.includes('ready')) {
    const [chunk] = (await Promise.race([once(child.stdout!, 'data'), once(child, 'exit').then(() => [null])])) as [string | null];
    if (chunk === null) throw new Error(`the writer of ${file} exited before it was ready`);
    out += chunk;
  }
  return {
    pid: child.pid!,
    finish: async (text = '') => {
      const exited = once(child, 'exit');
      // `read` takes one line: the text goes without its newlines and printf puts them back.
      child.stdin!.end(`${text.replace(/\n/g, '\\n')}\n`);
      await exited;
    },
    kill: () => child.kill('SIGKILL'),
  };
}

/** For afterEach: no writer outlives its test. */
export function killWriters(): void {
  for (const c of alive.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

// `settle` lives in settle.ts (no processes), so a unit test can age files without this module.
export { settle } from './settle.js';
