import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exitCodeFor, runsOnEnd, watchEnd, withDeadline } from '../../src/shutdown.js';
import { REPO, tempDir } from '../helpers/workspace.js';

// Issue 8 item 4: every cause ends a session through one path — the first cause wins, the
// steps run once, a hung step is cut off by the deadline. Signals and crashes on real
// processes (the built module), terminal loss on stream events.

const BUILT = join(REPO, 'dist', 'src', 'shutdown.js');

let dir: string;
beforeEach(() => {
  dir = tempDir('checkroom-shutdown-');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// A session: listens, says ready, then on its end runs the steps (or hangs in them).
const session = (how: 'steps' | 'hang' | 'crash'): string => {
  const file = join(dir, 'session.mjs');
  writeFileSync(
    file,
    `
import { exitCodeFor, watchEnd, withDeadline } from ${JSON.stringify(BUILT)};
const ends = watchEnd({ stdin: process.stdin, stdout: process.stdout });
const hang = ${how === 'hang'};
let runs = 0;
ends.first.then(async ({ reason, error }) => {
  await withDeadline(async () => {
    runs++;
    if (hang) await new Promise(() => setInterval(() => {}, 1000));
    console.log('steps ran for ' + reason + (error ? ': ' + error.message : '') + ' x' + runs);
  }, 500, () => console.log('emergency for ' + reason), () => process.exit(exitCodeFor(reason)));
  process.exit(exitCodeFor(reason));
});
console.log('ready');
${how === 'crash' ? "setTimeout(() => { throw new Error('boom'); }, 50);" : ''}
setInterval(() => {}, 1000);
`,
  );
  return file;
};

const run = (file: string, signals: NodeJS.Signals[]): Promise<{ code: number | null; out: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.startsWith('ready\n') && signals.length > 0) for (const s of signals.splice(0)) child.kill(s);
    });
    child.on('exit', (code) => resolve({ code, out }));
  });

describe('one shutdown path', () => {
  it('the built module exists (npm run build)', () => expect(existsSync(BUILT)).toBe(true));

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal}: the steps run once, then the conventional status`, async () => {
      // The same signal twice: still one shutdown.
      const r = await run(session('steps'), [signal, signal]);
      expect(r.out).toContain(`steps ran for ${signal} x1`);
      expect(r.out).not.toContain('x2');
      expect(r.code).toBe(exitCodeFor(signal));
    });
  }

  it('an uncaught error ends the session through the same steps', async () => {
    const r = await run(session('crash'), []);
    expect(r.out).toContain('steps ran for crash: boom x1');
    expect(r.code).toBe(1);
  });

  it('steps that hang are cut off by the deadline: the emergency runs, then the exit', async () => {
    const r = await run(session('hang'), ['SIGTERM']);
    expect(r.out).toContain('emergency for SIGTERM');
    expect(r.out).not.toContain('steps ran');
    expect(r.code).toBe(143);
  });

  it('a terminal that errors (EIO after a hang-up) or ends is closed: nothing more is written to it', async () => {
    for (const cause of ['error', 'end'] as const) {
      const stdin = new EventEmitter();
      const stdout = new EventEmitter();
      const proc = new EventEmitter() as unknown as NodeJS.Process;
      const ends = watchEnd({ stdin, stdout }, proc);
      expect(ends.terminalAlive()).toBe(true);
      if (cause === 'error') stdout.emit('error', Object.assign(new Error('write EIO'), { code: 'EIO' }));
      else stdin.emit('end');
      expect(ends.terminalAlive()).toBe(false);
      expect(await ends.first).toEqual({ reason: 'terminal-closed' });
      // A later signal does not start a second shutdown.
      (proc as unknown as EventEmitter).emit('SIGTERM', 'SIGTERM');
      expect(await ends.first).toEqual({ reason: 'terminal-closed' });
      ends.off();
    }
  });

  it('withDeadline clears its timer when the steps finish in time', async () => {
    let emergency = 0;
    await withDeadline(async () => undefined, 50, () => emergency++, () => emergency++);
    await new Promise((r) => setTimeout(r, 120));
    expect(emergency).toBe(0);
  });
});

// Issue 17 item 3: a dropped terminal follows on_hangup; the operator's choice at quit wins.
describe('runsOnEnd', () => {
  it('a hang-up leaves the runs by default and cancels them with on_hangup: stop', () => {
    for (const reason of ['SIGHUP', 'terminal-closed'] as const) {
      expect(runsOnEnd(reason, null)).toBe('leave');
      expect(runsOnEnd(reason, null, 'leave')).toBe('leave');
      expect(runsOnEnd(reason, null, 'stop')).toBeNull();
    }
  });

  it('every other cause cancels; what the operator chose at quit is kept', () => {
    for (const reason of ['quit', 'SIGINT', 'SIGTERM', 'crash'] as const) expect(runsOnEnd(reason, null, 'leave')).toBeNull();
    expect(runsOnEnd('quit', 'leave', 'stop')).toBe('leave');
    expect(runsOnEnd('SIGHUP', 'cancel', 'leave')).toBe('cancel');
  });
});
