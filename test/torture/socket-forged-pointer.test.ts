import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { basename, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { execa } from 'execa';
import { socketDirPath } from '../../src/socket/where.js';
import { copyDemo, REPO, tempDir } from '../helpers/workspace.js';
import { hasTmux, TmuxSession } from '../helpers/tmux.js';
import { NOBODY } from '../helpers/nobody.js';
import { forgePointer, victimDir } from './evil-workspace.js';

// Issue 16 item 1: `.checkroom/socket.json` ships with a repository like any file. It once
// named the path the client "cleaned as a stale socket" when nothing answered there, so a
// forged one deleted ~/.ssh/id_ed25519 on `checkroom status`. Every entry below is the built
// binary; the victim is a 0700 directory of ours holding a key, as ~/.ssh is.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);
const cli = (args: string[], env: NodeJS.ProcessEnv) => execa(process.execPath, [CLI, ...args], { env, reject: false, timeout: 60_000 });
const runtimeEnv = (): NodeJS.ProcessEnv => ({ ...process.env, XDG_RUNTIME_DIR: tempDir('checkroom-xdg-') });

const sessions: TmuxSession[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});
afterAll(() => sessions.forEach((s) => s.kill()));

/** `status`, `status --json` and `watch --json` on the workspace: none may touch the victim. */
async function headless(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const status = await cli(['status', dir], env);
  expect(status.exitCode, status.stderr).toBe(0);
  const json = await cli(['status', '--json', dir], env);
  expect(json.exitCode, json.stderr).toBe(0);
  expect(JSON.parse(json.stdout).cells.length).toBeGreaterThan(0);
  const watch = await cli(['watch', dir, '--json'], env);
  expect(watch.exitCode).toBe(1);
  expect(watch.stderr).toContain('no control room runs on this workspace');
}

describe('a forged .checkroom/socket.json names nothing checkroom deletes or connects to', () => {
  it('a key file named as the socket survives status, status --json and watch --json', async () => {
    const dir = copyDemo();
    const v = victimDir();
    forgePointer(dir, v.key, v.token);
    await headless(dir, runtimeEnv());
    expect(readFileSync(v.key, 'utf8')).toBe(v.bytes);
    expect(existsSync(v.token)).toBe(true);
  });

  it.skipIf(!hasTmux())('a key file named as the socket survives opening the control room, which then serves at its own path', { timeout: 90_000 }, async () => {
    const dir = copyDemo();
    const v = victimDir();
    forgePointer(dir, v.key, v.token);
    const xdg = tempDir('checkroom-xdg-');
    const t = new TmuxSession(`sh -c 'node ${CLI} ${dir}; sleep 600'`, { env: { XDG_RUNTIME_DIR: xdg } });
    sessions.push(t);
    await t.waitFor(/^auto off · live: /m, 60_000);
    // The control room serves (the pointer rewritten to its own socket) once the frame is up.
    const own = socketDirPath({ XDG_RUNTIME_DIR: xdg });
    const deadline = Date.now() + 30_000;
    while (!readFileSync(join(dir, '.checkroom', 'socket.json'), 'utf8').includes(own) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(readFileSync(v.key, 'utf8')).toBe(v.bytes);
    expect(existsSync(v.token)).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, '.checkroom', 'socket.json'), 'utf8')).socket.startsWith(own + '/')).toBe(true);
    t.kill();
  });

  it('a FIFO, a symlink out, and a path under our runtime directory by `..`: none deleted', async () => {
    const dir = copyDemo();
    const v = victimDir();
    const env = runtimeEnv();
    const fifo = join(v.dir, 'agent.fifo');
    execFileSync('mkfifo', [fifo]);
    const link = join(v.dir, 'link.sock');
    symlinkSync(v.key, link);
    // `<runtime>/checkroom/../../<victim>/id_ed25519`: lexically under our directory, really not.
    const ours = socketDirPath(env);
    mkdirSync(ours, { mode: 0o700, recursive: true });
    const climb = `${ours}/../../${basename(v.dir)}/id_ed25519`;
    expect(readFileSync(climb, 'utf8')).toBe(v.bytes);
    for (const target of [fifo, link, climb]) {
      forgePointer(dir, target, v.token);
      await headless(dir, env);
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readlinkSync(link)).toBe(v.key);
    expect(readFileSync(v.key, 'utf8')).toBe(v.bytes);
    expect(existsSync(v.token)).toBe(true);
  });

  it.skipIf(process.getuid?.() !== 0)("another user's live socket is neither dialled nor deleted", async () => {
    const dir = copyDemo();
    const v = victimDir();
    const path = join(v.dir, 'theirs.sock');
    let dialled = 0;
    const server = createServer((s) => (dialled++, s.destroy()));
    servers.push(server);
    await new Promise<void>((ok) => server.listen(path, ok));
    chownSync(path, NOBODY, NOBODY);
    forgePointer(dir, path, v.token);
    await headless(dir, runtimeEnv());
    expect(dialled).toBe(0);
    expect(lstatSync(path).isSocket()).toBe(true);
    expect(lstatSync(path).uid).toBe(NOBODY);
  });
});
