import { afterEach, describe, expect, it, vi } from 'vitest';
import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { startControlServer, type ControlServer, type HandoverPort } from '../../../src/socket/server.js';
import { askHandover, driverLastInput, silenceWords } from '../../../src/socket/handover.js';
import { readToken } from '../../../src/socket/token.js';
import { lockPath } from '../../../src/run/supervisor/lock.js';
import { copyDemo, tempDir } from '../../helpers/workspace.js';
import { NOBODY } from '../../helpers/nobody.js';
import { statusText } from '../../helpers/status-text.js';

// The control socket's `handover` op (issue 17 item 3), real sockets in this process: only
// with the token, only to a driver, never through a socket that is not ours; accepted, the
// answer goes first and the driver's `begin` runs once.

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const runtimeEnv = (): NodeJS.ProcessEnv => ({ ...process.env, XDG_RUNTIME_DIR: tempDir('checkroom-xdg-') });

interface Fake extends HandoverPort {
  begun: number;
  drives: boolean;
}

const fakePort = (drives: boolean, lastInputAt: number | null = null): Fake => {
  const p: Fake = {
    begun: 0,
    drives,
    role: () => (p.drives ? 'driver' : 'readonly'),
    lastInputAt: () => lastInputAt,
    begin: () => void p.begun++,
  };
  return p;
};

async function serve(dir: string, env: NodeJS.ProcessEnv, handover?: HandoverPort): Promise<ControlServer> {
  const live = await createLiveWorkspace(dir, { watch: false });
  const server = await startControlServer(dir, { live, pointer: false, env, ...(handover ? { handover } : {}) }, statusText());
  if (!server) throw new Error('another instance serves');
  cleanup.push(
    () => live.close(),
    () => server.close(),
  );
  return server;
}

/** One raw request line; the first answer line, parsed. */
const raw = (socket: string, line: string): Promise<{ ok: boolean; error?: string }> =>
  new Promise((done, fail) => {
    const s = connect(socket);
    let got = '';
    s.on('connect', () => s.write(line + '\n'));
    s.on('data', (c) => (got += c.toString('utf8')));
    s.on('error', fail);
    s.on('close', () => done(JSON.parse(got.split('\n')[0]!)));
  });

describe('control socket: handover (issue 17 item 3)', () => {
  it('refuses a request without the right token: the driver is not asked', async () => {
    const dir = copyDemo();
    const env = runtimeEnv();
    const port = fakePort(true);
    const server = await serve(dir, env, port);
    expect(await raw(server.paths.socket, JSON.stringify({ token: 'f'.repeat(64), op: 'handover' }))).toEqual({ ok: false, error: 'wrong token' });
    expect(await raw(server.paths.socket, JSON.stringify({ op: 'handover' }))).toMatchObject({ ok: false, error: expect.stringContaining('bad request') });
    expect(port.begun).toBe(0);
    // With the token: accepted, and the driver is told once the answer is out.
    const token = readToken(server.paths.token)!.token;
    expect(await raw(server.paths.socket, JSON.stringify({ token, op: 'handover' }))).toMatchObject({ ok: true, pid: process.pid });
    await vi.waitFor(() => expect(port.begun).toBe(1));
  });

  it('refuses when the instance behind the socket does not drive, or runs no agents', async () => {
    const dir = copyDemo();
    const env = runtimeEnv();
    const port = fakePort(false);
    await serve(dir, env, port);
    const a = await askHandover(dir, { env, waitMs: 0 });
    expect(a).toEqual({ ok: false, why: expect.stringMatching(/refused: this checkroom does not drive this workspace \(it is read-only\)/) });
    expect(port.begun).toBe(0);

    const other = copyDemo();
    await serve(other, env);
    expect(await askHandover(other, { env, waitMs: 0 })).toEqual({ ok: false, why: expect.stringMatching(/refused: this checkroom runs no agents/) });
  });

  it("never dials a socket that is not ours: another user's socket at the name is refused", async () => {
    const dir = copyDemo();
    const env = runtimeEnv();
    const port = fakePort(true);
    const server = await serve(dir, env, port);
    chownSync(server.paths.socket, NOBODY, NOBODY);
    const a = await askHandover(dir, { env, waitMs: 0 });
    expect(a).toEqual({ ok: false, why: 'no control room runs on this workspace' });
    expect(port.begun).toBe(0);
  });

  it("accepted: waits until the driver's lock is no longer its own", async () => {
    const dir = copyDemo();
    const env = runtimeEnv();
    mkdirSync(join(dir, '.checkroom'), { recursive: true });
    // The lock names this process (the fake driver); begin() releases it as the real one does on exit.
    writeFileSync(lockPath(dir), JSON.stringify({ pid: process.pid, procStart: null, host: hostname(), startedAt: 'now' }) + '\n');
    const port = fakePort(true);
    port.begin = () => {
      port.begun++;
      setTimeout(() => writeFileSync(lockPath(dir), JSON.stringify({ pid: 1, procStart: null, host: hostname(), startedAt: 'later' }) + '\n'), 200);
    };
    await serve(dir, env, port);
    expect(await askHandover(dir, { env, waitMs: 10_000 })).toEqual({ ok: true, pid: process.pid, released: true });
    expect(port.begun).toBe(1);
  });

  it("ping says when the driver's terminal last sent a key; the banner's words from it", async () => {
    const dir = copyDemo();
    const env = runtimeEnv();
    await serve(dir, env, fakePort(true, 1_000));
    expect(await driverLastInput(dir, { env })).toBe(1_000);
    expect(silenceWords(0, 59_999)).toBeNull();
    expect(silenceWords(0, 14 * 60_000 + 5)).toBe('silent 14 min');
    expect(silenceWords(0, 3 * 3_600_000)).toBe('silent 3 h');
    const ro = copyDemo();
    await serve(ro, env, fakePort(false, 1_000));
    expect(await driverLastInput(ro, { env })).toBeNull();
  });
});
