import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent, type LaunchEvent } from '../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor } from '../../src/run/supervisor/supervisor.js';
import { openAgents, type OpenedAgents } from '../../src/ui/agents/open.js';
import type { SupervisorPort } from '../../src/ui/agents/types.js';
import type { LiveWorkspace } from '../../src/live/live-workspace.js';
import { closeStores, openStore, type StoreRoom } from './store.js';
import { slurmForFile, type SlurmCluster } from './slurm.js';
import { slurmWorkspace } from './slurm-ws.js';
import { until as waitUntil } from './until.js';
import { fakeAgentWorkspace, REPO } from './workspace.js';
import { kill9, killChildren, printed, startChild, supervisorScript } from './child-supervisor.js';

export { kill9 };

// Issue 17's matrix: one policy, every entry point × executor × moment, each a row of a table
// (test/matrix-*.test.ts). The pieces every row needs: a workspace for either executor, the
// four entry points (the store's keys, autopilot, the built `checkroom run`, `run --next
// --auto`), a checkroom process to kill -9, and the journal read back.

export type Entry = 'key' | 'autopilot' | 'run' | 'run --next --auto';
export type Exec = 'local' | 'slurm';
export type Moment = 'same session' | 'after quit' | 'after kill -9';
export interface Row {
  entry: Entry;
  executor: Exec;
  moment: Moment;
  /** Why this cell of the matrix has no meaning: rendered as a skipped test that says so. */
  na?: string;
}

export const ENTRIES: Entry[] = ['key', 'autopilot', 'run', 'run --next --auto'];
export const EXECS: Exec[] = ['local', 'slurm'];
export const MOMENTS: Moment[] = ['same session', 'after quit', 'after kill -9'];

/** Every cell of entry × executor × moment, with `na(row)` saying why a cell is meaningless. */
export const matrix = (na: (r: Row) => string | undefined = () => undefined): Row[] =>
  ENTRIES.flatMap((entry) => EXECS.flatMap((executor) => MOMENTS.map((moment) => ({ entry, executor, moment, na: na({ entry, executor, moment }) }))));

/** One `it` per row: skipped with its reason when not applicable, or when Slurm is missing. */
export function rows(policy: string, table: Row[], slurmMissing: string | null, body: (r: Row) => Promise<void>, timeout = 60_000): void {
  for (const r of table) {
    const name = `${policy} × ${r.entry} × ${r.executor} × ${r.moment}`;
    if (r.na) it.skip(`${name} — n/a: ${r.na}`, () => undefined);
    else if (r.executor === 'slurm' && slurmMissing) it.skip(`${name} — skipped: ${slurmMissing}`, () => undefined);
    else it(name, () => body(r), timeout);
  }
}

export interface WsOpts {
  units?: string[];
  faults?: Record<string, string>;
  /** Lines under `limits:` (two-space indented). */
  limits?: string[];
  /** The top-level breaker: mapping (YAML flow). */
  breaker?: string;
  concurrency?: number;
  /** CHECKROOM_FAKE_SPEED (the fake agent's pace: higher is faster). */
  speed?: number;
  /** The agents' idle_timeout: how soon a watcher calls a hanging agent STALLED. */
  idle?: string;
}

/** A book workspace whose agents are the demo's fake agent, run locally or as Slurm jobs. */
export function workspace(executor: Exec, o: WsOpts = {}): string {
  const speed = o.speed ?? 10;
  if (executor === 'slurm') {
    return slurmWorkspace({
      units: o.units,
      faults: o.faults,
      speed,
      concurrency: o.concurrency ?? 4,
      ...(o.idle ? { idle: o.idle } : {}),
      limits: ['  backoff_base: 100ms', '  backoff_max: 500ms', ...(o.limits ?? [])],
      ...(o.breaker ? { breaker: o.breaker } : {}),
    });
  }
  const root = fakeAgentWorkspace('checkroom-matrix-', { units: o.units, faults: o.faults });
  const yaml = join(root, 'checkroom.yaml');
  writeFileSync(
    yaml,
    readFileSync(yaml, 'utf8')
      .replace("CHECKROOM_FAKE_SPEED: '1'", `CHECKROOM_FAKE_SPEED: '${speed}'`)
      .replace('idle_timeout: 20s', `idle_timeout: ${o.idle ?? '20s'}`)
      .replace('    grace: 200ms\n', `    grace: 200ms\n    concurrency: ${o.concurrency ?? 4}\n`),
  );
  appendFileSync(yaml, [...(o.limits ?? []), ...(o.breaker ? [`breaker: ${o.breaker}`] : []), ''].join('\n'));
  return root;
}

/** Tell the fake agent how a cell behaves from its next start on. */
export const setFaults = (root: string, faults: Record<string, string>): void => writeFileSync(join(root, 'faults.json'), JSON.stringify({ ...faults, '*/*': 'ok' }));

// ---- the journal ----

export const journal = async (root: string): Promise<JournalEvent[]> => (await readJournal(root)).events;
type Ev<T extends JournalEvent['type']> = Extract<JournalEvent, { type: T }>;
export const eventsOf = async <T extends JournalEvent['type']>(root: string, t: T): Promise<Ev<T>[]> => (await journal(root)).filter((e): e is Ev<T> => e.type === t);
export const launches = (root: string, cell?: string): Promise<LaunchEvent[]> => eventsOf(root, 'launch').then((l) => l.filter((e) => !cell || `${e.unit}/${e.step}` === cell));

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** A row's bounded wait (test/helpers/until.ts), polling every 50 ms. */
export const until = (what: string, ok: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> => waitUntil(what, ok, ms, 50);
/** How long a row watches for a launch that must not come: well past every backoff and poll of these workspaces. */
export const QUIET_MS = 1500;
export const quiet = (): Promise<void> => sleep(QUIET_MS);

// ---- entry points ----

const supervisors: Supervisor[] = [];
/** A supervisor of this test process (autopilot's entry, and the sessions around the others). */
export async function supervisor(root: string): Promise<Supervisor> {
  const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5 });
  supervisors.push(s);
  return s;
}
/** A clean quit that cancels what runs (the quit dialog's `y`, a signal): a shutdown's cancel. */
export async function quit(s: Supervisor): Promise<void> {
  supervisors.splice(supervisors.indexOf(s), 1);
  await s.close({ cancel: true, reason: 'quit' });
}

export interface KeyRoom extends StoreRoom {
  /** The port the store drives, as the entry hands it over (agents-open.ts). */
  sup: SupervisorPort;
  opened: OpenedAgents;
}
const rooms: KeyRoom[] = [];
/** The control room's store wired to its supervisor exactly as the entry does (agents-open.ts), keys fed through `feed`. */
export async function keyRoom(root: string): Promise<KeyRoom> {
  const opened = await openAgents({ state: { root } } as unknown as Pick<LiveWorkspace, 'state'>, false);
  if (!opened.options) throw new Error(`no supervisor: ${opened.why}`);
  const r = await openStore(root, { agents: { ...opened.options, flushMs: 10 } });
  const room = { ...r, sup: opened.options.sup, opened };
  rooms.push(room);
  return room;
}
/** What the entry does after the store says quit: close the agents in the mode the quit dialog chose. */
export async function quitRoom(r: KeyRoom): Promise<void> {
  rooms.splice(rooms.indexOf(r), 1);
  await r.opened.close(r.s().agents.quitMode, () => undefined, 'quit');
}

const BIN = join(REPO, 'dist/bundle/checkroom.js');
const children: ChildProcess[] = [];
export interface Cli {
  child: ChildProcess;
  out: () => string;
  done: Promise<{ status: number | null; stdout: string; stderr: string }>;
}
/** The built binary, stdin not a terminal (cron's case). */
export function cli(args: string[]): Cli {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
  return { child, out: () => stdout, done };
}
export const run = (root: string, unit: string, step: string, ...flags: string[]): Cli => cli(['run', root, '--yes', ...flags, unit, step]);
export const runNext = (root: string, ...flags: string[]): Cli => cli(['run', root, '--next', '--auto', '--yes', ...flags]);

// ---- a checkroom process to kill -9 ----

let scripts = 0;
/**
 * A checkroom process driving the built supervisor: `body` runs with `s` (the supervisor),
 * `say(line)` (to stdout) and `root` in scope. `say` what the test waits for, then it is killed.
 */
export async function checkroomProcess(root: string, body: string, waitFor: string): Promise<ChildProcess> {
  const script = join(root, `.checkroom-proc-${scripts++}.mjs`);
  writeFileSync(script, supervisorScript(`const say = (l) => process.stdout.write(l + '\\n');\n${body}\nsetInterval(() => {}, 1 << 30);\n`));
  const proc = startChild(script, [root]);
  await printed(proc, waitFor);
  return proc.child;
}

type Hook = (fn: () => Promise<void>, ms: number) => void;

/**
 * A matrix file's set-up: one Slurm cluster for the file (test/helpers/slurm.ts) and, after
 * each row, cleanup() of the workspace the row passed to `track` and its Slurm jobs cancelled.
 */
export function matrixFile(beforeAll: Hook, afterAll: Hook, afterEach: (fn: () => Promise<void>) => void): { missing: string | null; cluster: () => SlurmCluster; track: (ws: string) => string } {
  const { missing, cluster } = slurmForFile(beforeAll, afterAll);
  let root: string | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    cluster()?.run(['scancel', '-u', 'root']);
  });
  return { missing, cluster, track: (ws) => (root = ws) };
}

/** For afterEach: every store, supervisor and process a row opened; agents of every launch killed by group. */
export async function cleanup(root: string | null): Promise<void> {
  for (const r of rooms.splice(0)) await r.opened.close('cancel', () => undefined, 'quit');
  await closeStores();
  for (const s of supervisors.splice(0)) await s.close({ cancel: true });
  for (const c of children.splice(0)) await kill9(c);
  await killChildren();
  if (!root) return;
  for (const l of await launches(root).catch(() => [])) {
    try {
      if (l.pid) process.kill(-l.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
