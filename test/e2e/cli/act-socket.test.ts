import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../../src/ui/store/store.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { parseJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { startControlServer } from '../../../src/socket/server.js';
import { askAct } from '../../../src/socket/client.js';
import { socketDir, socketPaths } from '../../../src/socket/where.js';
import { readToken } from '../../../src/socket/token.js';
import { viaRoom } from '../../../src/cli/commands/via-room.js';
import { statusText } from '../../helpers/status-text.js';
import { holdOpen } from '../../helpers/writer.js';
import { until } from '../../helpers/until.js';
import { copyDemo, doneFile, pathOf, REPO, tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';
import { exitEv, factsEv, HOUR, launchEv, MIN, writeJournal } from '../../helpers/history-journal.js';

// `checkroom redrive ... --yes` and `checkroom redo ... --yes` from a second terminal while a
// control room drives (docs/redrive.md, docs/redo.md, From another terminal): the room — here
// in this process, its supervisor, store and control socket as the entry wires them — applies
// them with its own functions and journal; the built CLI only prints its answer. Real files,
// real sockets, the real binary.

const BIN = join(REPO, 'dist/bundle/checkroom.js');
const cleanup: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const runtimeEnv = (): NodeJS.ProcessEnv => ({ ...process.env, XDG_RUNTIME_DIR: tempDir('checkroom-xdg-'), NO_COLOR: '1', TZ: 'UTC' });
/** The built CLI, asynchronously: this process serves the socket it asks. */
const cli = (env: NodeJS.ProcessEnv, args: string[]) => execa('node', [BIN, ...args], { env, reject: false, timeout: 120_000, input: '', stripFinalNewline: false });
const journal = (root: string): JournalEvent[] => {
  const p = join(root, '.checkroom', 'journal.jsonl');
  return existsSync(p) ? parseJournal(readFileSync(p, 'utf8')).events : [];
};
const ofType = (root: string, type: string): JournalEvent[] => journal(root).filter((e) => e.type === type);

interface Room {
  sup: Supervisor;
  store: AppStore;
}

/** A control room over `root` serving on `env`'s runtime directory, as src/ui/entry/room.ts wires it. */
async function room(root: string, env: NodeJS.ProcessEnv): Promise<Room> {
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config });
  const live = await createLiveWorkspace(root, { watch: true });
  const store = createAppStore({ live, agents: { sup, config }, history: false });
  const remote = store.getState().remote;
  const server = await startControlServer(root, { live, sup, pointer: false, env, ...(remote ? { act: remote } : {}) }, statusText());
  if (!server) throw new Error('another instance serves');
  cleanup.push(
    () => sup.close({ cancel: true }),
    () => live.close(),
    () => disposeStore(store),
    () => server.close(),
  );
  return { sup, store };
}

const NOW = Date.now();
const UNITS = ['ch01', 'ch02', 'ch03', 'ch04', 'ch05'];
/** Three drafts that failed RATE_LIMITED in the last hours, one of them with its marker since (redrive-cli.test.ts's incident). */
function incident(): string {
  const root = tempDir('checkroom-act-');
  writeFakeAgentWs(root, { units: UNITS, speed: 40, files: Object.fromEntries([...UNITS.map((u) => doneFile(u, 'research')), doneFile('ch04', 'draft')]) });
  const failed = (id: string, unit: string, hoursBack: number) => [
    launchEv(id, NOW - hoursBack * HOUR - MIN, unit, 'draft'),
    exitEv(id, NOW - hoursBack * HOUR, unit, 'draft', 'RATE_LIMITED', MIN),
    factsEv(id, NOW - hoursBack * HOUR, unit, 'draft', 0.25),
  ];
  writeJournal(root, [...failed('a', 'ch01', 5), ...failed('d', 'ch04', 5), ...failed('e', 'ch05', 4.5)]);
  return root;
}

/** Every session record of the journal is this process's: the CLI never drove. */
const onlyOurSessions = (root: string): void => expect(ofType(root, 'session').map((e) => (e as { pid: number }).pid).filter((p) => p !== process.pid)).toEqual([]);

describe('checkroom redrive --yes while a control room drives', () => {
  it('hold, undo, drain: applied by the room (one record each, its session), the CLI prints its answer', async () => {
    const root = incident();
    const env = runtimeEnv();
    const r = await room(root, env);
    const hold = await cli(env, ['redrive', root, 'class=RATE_LIMITED', '--action', 'hold', '--name', 'night', '--yes']);
    expect(hold.stderr).toBe('');
    expect(hold.exitCode).toBe(0);
    expect(hold.stdout).toBe(`night: hold 2 cells, one journal record (undo: checkroom redrive --undo night --yes) (applied by the control room, pid ${process.pid})\n`);
    expect(ofType(root, 'bulk_action')).toMatchObject([{ name: 'night', action: 'hold', cells: [{ unit: 'ch01' }, { unit: 'ch05' }] }]);
    expect(r.sup.snapshot().ledger.bulk.actions.map((a) => a.name)).toEqual(['night']);
    // The operator at the screen sees who did what.
    expect(r.store.getState().message).toMatchObject({ text: expect.stringMatching(/ via checkroom redrive: night: hold 2 cells$/), tone: 'ok' });

    const undo = await cli(env, ['redrive', root, '--undo', 'night', '--yes', '--json']);
    expect(undo.exitCode).toBe(0);
    expect(JSON.parse(undo.stdout)).toEqual({ version: 1, undone: { id: expect.any(String), name: 'night', action: 'hold' }, back: ['ch01/draft', 'ch05/draft'], ran: [], appliedBy: { pid: process.pid } });
    expect(ofType(root, 'bulk_undo')).toHaveLength(1);
    expect(r.store.getState().message?.text).toMatch(/ via checkroom redrive: undid night: 2 cells released$/);

    const drain = await cli(env, ['redrive', root, '--drain', '--yes']);
    expect(drain.stdout).toBe(`relaunch queue: 0 started, now empty (applied by the control room, pid ${process.pid})\n`);
    // The room's refusal is the answer, never applied behind its back.
    const again = await cli(env, ['redrive', root, '--undo', 'night', '--yes']);
    expect(again.exitCode).toBe(1);
    expect(again.stdout).toBe('not done: the control room refused: night was undone already\n');
    expect(r.store.getState().message).toMatchObject({ text: expect.stringMatching(/ via checkroom redrive: not done: night was undone already$/), tone: 'warn' });
    onlyOurSessions(root);
  });

  it('relaunch: the room reads the filter against its view and runs the cells; the CLI does not wait for them', async () => {
    const root = incident();
    const env = runtimeEnv();
    const r = await room(root, env);
    const res = await cli(env, ['redrive', root, 'class=RATE_LIMITED', '--name', 'rl', '--yes', '--json']);
    expect(res.exitCode).toBe(0);
    const doc = JSON.parse(res.stdout) as { version: number; done: boolean; preview: { count: number; excluded: { unit: string; why: string }[] }; record: { name: string }; refused: unknown[]; queued: string[]; appliedBy: { pid: number } };
    expect(doc).toMatchObject({ version: 1, done: true, record: { name: 'rl' }, refused: [], appliedBy: { pid: process.pid } });
    expect(doc.preview.count).toBe(2);
    expect(doc.preview.excluded).toEqual([{ unit: 'ch04', step: 'draft', status: 'done', why: 'has its marker: never redone' }]);
    expect(ofType(root, 'bulk_action')).toHaveLength(1);
    // The driver's runs, to their markers.
    const marked = (u: string): boolean => existsSync(join(root, pathOf(u, 'draft'))) && /<!-- DRAFT_COMPLETE -->\s*$/.test(readFileSync(join(root, pathOf(u, 'draft')), 'utf8'));
    await until('both drafts relaunched to their marker', () => marked('ch01') && marked('ch05'));
    await until('the queue empty', () => Object.keys(r.sup.snapshot().ledger.bulk.queue).length === 0);
    onlyOurSessions(root);
    // No cell passes: said, nothing recorded.
    const none = await cli(env, ['redrive', root, 'class=INFRA', '--yes']);
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toBe(`redrive class=INFRA: no cell to relaunch (applied by the control room, pid ${process.pid})\n`);
    expect(ofType(root, 'bulk_action')).toHaveLength(1);
  });

  it('no terminal control in the answer reaches either screen; JSON escapes it', async () => {
    const root = incident();
    const env = runtimeEnv();
    const r = await room(root, env);
    // A name is checked before it is recorded; what is not (the name an undo asks for) comes back in the refusal.
    const name = 'x\u001b]0;pwned\u0007\u009b2J';
    const res = await cli(env, ['redrive', root, '--undo', name, '--yes']);
    expect(res.exitCode).toBe(1);
    expect(res.stdout).toContain('not done: the control room refused: no set action named x');
    expect(res.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(r.store.getState().message?.text).toContain('not done: no set action named x');
    expect(r.store.getState().message?.text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    const json = await cli(env, ['redrive', root, '--undo', name, '--yes', '--json']);
    expect(json.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect((JSON.parse(json.stdout) as { error: string }).error).toContain(`no set action named ${name}`);
  });
});

describe('checkroom redo --yes while a control room drives', () => {
  it('the room backs up and queues (its journal, its queue); a file being written or an unknown cell is refused, nothing touched', async () => {
    const root = copyDemo();
    const env = runtimeEnv();
    const r = await room(root, env);
    const res = await cli(env, ['redo', root, 'ch03', 'draft', '--yes']);
    expect(res.stderr).toBe('');
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toContain('Redo from ch03 draft: 9 cells, 4 files');
    expect(res.stdout).toContain(`done: redo from ch03 draft: 4 backed up, 9 queued in the Plan view (u undoes it) (applied by the control room, pid ${process.pid})`);
    expect(existsSync(join(root, 'drafts/ch03-draft.md'))).toBe(false);
    expect(ofType(root, 'redo_applied')).toHaveLength(1);
    // The room's queue and undo stack, as after D and y: autopilot takes them in this order.
    expect(r.store.getState().redoQueue.map((q) => `${q.unit}/${q.step}`)).toEqual(['ch03/draft', 'ch03/r1', 'ch03/r2', 'ch03/r3', 'ch03/review', 'ch03/panel', 'ch03/memory', 'ch03/final', 'ch03/html']);
    expect(r.store.getState().undo.at(-1)?.redo?.cells).toHaveLength(9);
    expect(r.store.getState().message?.text).toMatch(/ via checkroom redo: redo from ch03 draft: 4 backed up, 9 queued/);
    onlyOurSessions(root);

    // A process writes ch05's draft: the room refuses, as D would.
    const draft = join(root, 'drafts/ch05-draft.md');
    const before = readFileSync(draft);
    const w = await holdOpen(draft);
    cleanup.push(() => w.kill());
    const held = await cli(env, ['redo', root, 'ch05', 'draft', '--yes', '--json']);
    expect(held.exitCode).toBe(1);
    expect((JSON.parse(held.stdout) as { error: string }).error).toMatch(/^the control room refused: .*being written.*nothing was touched$/);
    expect(readFileSync(draft)).toEqual(before);
    expect(ofType(root, 'redo_applied')).toHaveLength(1);
    expect(r.store.getState().redoQueue).toHaveLength(9);

    // A cell the room does not have (the CLI checks its own scan first; a peer may not).
    const unknown = await askAct(root, 'redo', { redo: { unit: 'ch99', step: 'draft', agent: null, prompt: null, by: 'peer' } }, { env });
    expect(unknown).toEqual({ ok: false, final: true, why: 'the control room refused: no cell ch99 draft in this workspace; nothing was touched' });
    expect(r.store.getState().message?.text).toBe('peer: not done: no cell ch99 draft in this workspace; nothing was touched');
    expect(ofType(root, 'redo_applied')).toHaveLength(1);
  });
});

/** One raw request line to the room's socket; its first answer line, parsed. */
async function raw(root: string, env: NodeJS.ProcessEnv, line: (token: string) => string): Promise<{ ok: boolean; error?: string }> {
  const paths = socketPaths(root, socketDir(env));
  const token = readToken(paths.token)!.token;
  return new Promise((done, fail) => {
    const sock = connect(paths.socket);
    let got = '';
    sock.on('data', (c: Buffer) => (got += c.toString('utf8')));
    sock.on('error', fail);
    sock.on('close', () => done(JSON.parse(got.split('\n')[0]!) as { ok: boolean; error?: string }));
    sock.write(line(token));
  });
}

describe('the socket refuses what it must not apply', () => {
  it('a malformed, wrong-typed, oversized or unauthenticated body: refused, nothing done', async () => {
    const root = incident();
    const env = runtimeEnv();
    await room(root, env);
    const bad = [
      (t: string) => `${JSON.stringify({ token: t, op: 'redrive', redrive: { kind: 'apply', text: 5, by: 'x' } })}\n`,
      (t: string) => `${JSON.stringify({ token: t, op: 'redrive', redrive: { kind: 'everything', by: 'x' } })}\n`,
      (t: string) => `${JSON.stringify({ token: t, op: 'redo', redo: { unit: 'ch01', step: ['draft'], agent: null, prompt: null, by: 'x' } })}\n`,
      (t: string) => `${JSON.stringify({ token: t, op: 'redo' })}\n`,
      (t: string) => `{"token": "${t}", "op": "redrive", "redrive": {"kind": "apply", "text": "class=RATE_LIMITED", "by": "x"}\n`,
    ];
    for (const b of bad) expect(await raw(root, env, b)).toEqual({ ok: false, error: expect.stringMatching(/^bad request: one JSON line/) });
    const long = await raw(root, env, (t) => `${JSON.stringify({ token: t, op: 'redrive', redrive: { kind: 'apply', text: `class=RATE_LIMITED unit=${'x'.repeat(5000)}`, by: 'x' } })}\n`);
    expect(long).toEqual({ ok: false, error: 'request longer than 4096 bytes' });
    expect(await raw(root, env, () => `${JSON.stringify({ token: 'f'.repeat(64), op: 'redrive', redrive: { kind: 'apply', text: 'class=RATE_LIMITED', by: 'x' } })}\n`)).toEqual({ ok: false, error: 'wrong token' });
    expect(ofType(root, 'bulk_action')).toEqual([]);

    // The CLI knows before it sends: too long for the room's socket, refused with what to do; with no room, applied here.
    const text = `class=RATE_LIMITED unit=${'x'.repeat(5000)}`;
    const tooLong = await cli(env, ['redrive', root, ...text.split(' '), '--action', 'hold', '--yes']);
    expect(tooLong.exitCode).toBe(1);
    expect(tooLong.stdout).toMatch(/^not done: the request is \d+ bytes; a control room's socket takes at most 4096: name fewer cells in the filter/);
    expect(await viaRoom(root, 'redrive', { redrive: { kind: 'apply', text, by: 'x' } }, runtimeEnv(), 'shorten it')).toEqual({ kind: 'none' });
    expect(await viaRoom(root, 'redrive', { redrive: { kind: 'drain', by: 'x' } }, { ...env, CHECKROOM_SOCKET: 'off' }, 'shorten it')).toEqual({ kind: 'none' });
    expect(ofType(root, 'bulk_action')).toEqual([]);
  });

  it("a read-only instance's socket refuses: it does not drive", async () => {
    const root = copyDemo();
    const config = await loadConfig(root);
    const driver = await openSupervisor({ root, config });
    cleanup.push(() => driver.close({ cancel: true }));
    expect(driver.snapshot().role).toBe('driver');
    // The driver serves no socket (a `checkroom run`): the command cannot reach it and says what to do.
    const alone = await cli(runtimeEnv(), ['redrive', root, 'step=draft', '--action', 'hold', '--yes']);
    expect(alone.exitCode).toBe(1);
    expect(alone.stdout).toMatch(/^not done: .*; no control socket answered to apply this \(a `checkroom run` serves none; CHECKROOM_SOCKET=off asks none\): stop it, or type :redrive in its terminal\n$/);
    // An observer's room does serve one.
    const env = runtimeEnv();
    const observer = await room(root, env);
    expect(observer.sup.snapshot().role).toBe('readonly');
    const res = await cli(env, ['redrive', root, 'step=draft', '--action', 'hold', '--yes']);
    expect(res.exitCode).toBe(1);
    expect(res.stdout).toMatch(/^not done: the control room refused: read-only: cannot redrive; /);
    const redo = await cli(env, ['redo', root, 'ch03', 'draft', '--yes']);
    expect(redo.exitCode).toBe(1);
    expect(redo.stdout).toMatch(/refused: the control room refused: read-only: cannot redo; .*\(nothing was touched here\)/);
    expect(existsSync(join(root, 'drafts/ch03-draft.md'))).toBe(true);
    expect(journal(root).filter((e) => e.type === 'bulk_action' || e.type === 'redo_applied')).toEqual([]);
  });
});
