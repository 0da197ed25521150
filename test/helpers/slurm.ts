import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent, type LaunchEvent } from '../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../src/run/supervisor/supervisor.js';
import { tempDir } from './workspace.js';

// A real one-node Slurm for the tests (issue 12): munged, slurmctld -D and slurmd -D in a
// temp dir, with a generated slurm.conf (this host as the node, linuxproc process tracking,
// no task plugin, a job-completion text log) on free ports, so two test files running in
// parallel get two clusters. SLURM_CONF in `env` points the Slurm commands at it. The
// daemons are stopped by their pids.

const BINARIES = ['sbatch', 'squeue', 'scontrol', 'scancel', 'sinfo', 'slurmctld', 'slurmd', 'munged'];
export const which = (b: string): boolean => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', b], { stdio: 'ignore' }).status === 0;

/** Why the Slurm tests cannot run here, or null. */
export const slurmMissing = (): string | null => {
  const missing = BINARIES.filter((b) => !which(b));
  return missing.length ? `Slurm is not installed (missing ${missing.join(', ')}); run .ci/slurm-setup.sh` : null;
};

/** A TCP port free on 127.0.0.1 now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Processes this cluster started that outlived it (a job step, its agent): their
 *  environment names this cluster's slurm.conf. Never this process or its parents. */
const leftovers = (conf: string): number[] => {
  const mine = new Set<number>([process.pid, process.ppid]);
  const needle = Buffer.from(`SLURM_CONF=${conf}\0`);
  return readdirSync('/proc').flatMap((d) => {
    const pid = Number(d);
    if (!Number.isInteger(pid) || mine.has(pid)) return [];
    try {
      return readFileSync(`/proc/${pid}/environ`).includes(needle) ? [pid] : [];
    } catch {
      return [];
    }
  });
};

export interface SlurmCluster {
  dir: string;
  conf: string;
  node: string;
  /** process.env plus SLURM_CONF. */
  env: Record<string, string>;
  /** Stop one daemon by its pid (a controller gone, for the torture tests). */
  kill(daemon: 'slurmctld' | 'slurmd'): Promise<void>;
  /** Start the controller again after kill('slurmctld'); resolves when it answers. */
  restartController(): Promise<void>;
  /** Run a Slurm command against this cluster; stdout. */
  run(argv: string[]): { code: number; out: string; err: string };
  stop(): Promise<void>;
}

/** munge's key for a test cluster in `mungeDir`: the machine's when there is one, else a fixed one; 0600. */
export function writeMungeKey(mungeDir: string): string {
  const key = join(mungeDir, 'munge.key');
  try {
    copyFileSync('/etc/munge/munge.key', key);
  } catch {
    writeFileSync(key, Buffer.from(Array.from({ length: 128 }, (_, i) => (i * 131 + 7) % 256)));
  }
  chmodSync(key, 0o600);
  return key;
}

export async function startSlurm(o: { cpus?: number } = {}): Promise<SlurmCluster> {
  const dir = tempDir('checkroom-slurm-');
  chmodSync(dir, 0o755);
  for (const d of ['state', 'spool', 'log', 'munge']) mkdirSync(join(dir, d));
  chmodSync(join(dir, 'munge'), 0o711);
  const key = writeMungeKey(join(dir, 'munge'));
  const node = hostname();
  const [ctld, slurmd] = [await freePort(), await freePort()];
  const sock = join(dir, 'munge', 'sock');
  const conf = join(dir, 'slurm.conf');
  const cpus = o.cpus ?? 2;
  writeFileSync(
    conf,
    [
      `ClusterName=cr${ctld}`,
      `SlurmctldHost=${node}`,
      `SlurmctldPort=${ctld}`,
      `SlurmdPort=${slurmd}`,
      'AuthType=auth/munge',
      `AuthInfo=socket=${sock}`,
      'CredType=cred/munge',
      'SlurmUser=root',
      'SlurmdUser=root',
      `StateSaveLocation=${join(dir, 'state')}`,
      `SlurmdSpoolDir=${join(dir, 'spool')}`,
      `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
      `SlurmctldLogFile=${join(dir, 'log', 'slurmctld.log')}`,
      `SlurmdLogFile=${join(dir, 'log', 'slurmd.log')}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'JobCompType=jobcomp/filetxt',
      `JobCompLoc=${join(dir, 'log', 'jobcomp.txt')}`,
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'MpiDefault=none',
      'ReturnToService=2',
      'InactiveLimit=0',
      'MinJobAge=300',
      'KillWait=2',
      'Waittime=0',
      `NodeName=${node} CPUs=${cpus} RealMemory=1000 State=UNKNOWN`,
      `PartitionName=debug Nodes=${node} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4`,
      '',
    ].join('\n'),
  );
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.SLURM_CONF = conf;
  const procs: ChildProcess[] = [];
  const byName = new Map<string, ChildProcess>();
  const daemon = (argv: string[], log: string): ChildProcess => {
    const p = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    p.stdout?.on('data', (c: Buffer) => chunks.push(c));
    p.stderr?.on('data', (c: Buffer) => chunks.push(c));
    p.on('exit', () => writeFileSync(join(dir, 'log', log), Buffer.concat(chunks)));
    procs.push(p);
    byName.set(argv[0]!, p);
    return p;
  };
  daemon(['munged', '-F', '--force', `--socket=${sock}`, `--key-file=${key}`, `--pid-file=${join(dir, 'munge', 'pid')}`, `--log-file=${join(dir, 'munge', 'log')}`, `--seed-file=${join(dir, 'munge', 'seed')}`], 'munged.out');
  for (let i = 0; i < 200; i++) {
    try {
      readFileSync(join(dir, 'munge', 'pid'));
      break;
    } catch {
      await sleep(50);
    }
  }
  daemon(['slurmctld', '-D', '-f', conf], 'slurmctld.out');
  daemon(['slurmd', '-D', '-f', conf, '-N', node], 'slurmd.out');
  const run = (argv: string[]) => {
    const r = spawnSync(argv[0]!, argv.slice(1), { env, encoding: 'utf8', timeout: 30_000 });
    return { code: r.status ?? 1, out: r.stdout ?? '', err: r.stderr ?? '' };
  };
  const stop = async (): Promise<void> => {
    // Jobs first, and wait for them: a slurmstepd whose slurmd is gone lingers forever.
    run(['scancel', '--full', '-u', 'root']);
    for (let i = 0; i < 100 && run(['squeue', '-h', '-t', 'PENDING,RUNNING,COMPLETING,CONFIGURING,SIGNALING', '-o', '%i']).out.trim() !== ''; i++) await sleep(200);
    for (const p of [...procs].reverse()) if (p.exitCode === null && p.pid) process.kill(p.pid, 'SIGTERM');
    for (let i = 0; i < 100 && procs.some((p) => p.exitCode === null && p.signalCode === null); i++) await sleep(100);
    for (const p of procs) if (p.exitCode === null && p.signalCode === null && p.pid) process.kill(p.pid, 'SIGKILL');
    for (const pid of leftovers(conf)) process.kill(pid, 'SIGKILL');
  };
  const kill = async (name: 'slurmctld' | 'slurmd'): Promise<void> => {
    const p = byName.get(name);
    if (!p?.pid || p.exitCode !== null || p.signalCode !== null) return;
    process.kill(p.pid, 'SIGTERM');
    for (let i = 0; i < 100 && p.exitCode === null && p.signalCode === null; i++) await sleep(100);
  };
  const restartController = async (): Promise<void> => {
    daemon(['slurmctld', '-D', '-f', conf], 'slurmctld-2.out');
    for (let i = 0; i < 300 && run(['squeue', '-h', '-o', '%i']).code !== 0; i++) await sleep(200);
  };
  // Up when the node is idle: bounded wait, generous.
  for (let i = 0; i < 300; i++) {
    const r = run(['sinfo', '-h', '-n', node, '-o', '%T']);
    if (r.code === 0 && /idle|mixed|allocated/.test(r.out)) return { dir, conf, node, env, run, stop, kill, restartController };
    await sleep(200);
  }
  await stop();
  throw new Error(`the test Slurm did not come up; logs in ${join(dir, 'log')}`);
}

/**
 * One cluster for a test file: started before its tests, stopped after, SLURM_CONF set for
 * the supervisor. `missing` says why the file skips (Slurm not installed).
 */
export function slurmForFile(beforeAll: (fn: () => Promise<void>, ms: number) => void, afterAll: (fn: () => Promise<void>, ms: number) => void): { missing: string | null; cluster: () => SlurmCluster } {
  const missing = slurmMissing();
  if (missing) console.warn(`skipping the Slurm tests: ${missing}`);
  let cluster: SlurmCluster | null = null;
  beforeAll(async () => {
    if (missing) return;
    cluster = await startSlurm();
    process.env.SLURM_CONF = cluster.conf;
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 120_000);
  return { missing, cluster: () => cluster! };
}

/** A job's state as scontrol shows it, or 'gone'. */
export const jobStateOf = (c: SlurmCluster, id: string): string => /JobState=(\S+)/.exec(c.run(['scontrol', 'show', 'job', '-o', id]).out)?.[1] ?? 'gone';

export { until } from './until.js';

/**
 * `start(root, events?)`: a supervisor of this test process on `root` (autopilot's own
 * jitter fixed), closed with its runs cancelled after each test.
 */
export function supervisorsForEach(afterEach: (fn: () => Promise<void>) => void): (root: string, events?: SupervisorEvent[]) => Promise<Supervisor> {
  const open: Supervisor[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close({ cancel: true });
  });
  return async (root, events = []) => {
    const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5, onEvent: (e) => events.push(e) });
    open.push(s);
    return s;
  };
}

/** The journal's events, and its launches and exits. */
export const journal = async (root: string): Promise<JournalEvent[]> => (await readJournal(root)).events;
export const launches = (ev: JournalEvent[]): LaunchEvent[] => ev.filter((e): e is LaunchEvent => e.type === 'launch');
export const exits = (ev: JournalEvent[]): Extract<JournalEvent, { type: 'exit' }>[] => ev.filter((e): e is Extract<JournalEvent, { type: 'exit' }> => e.type === 'exit');
