import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tempDir } from './workspace.js';
import { freePort, which, writeMungeKey } from './slurm.js';

// Two Slurm "hosts" for real (issue 22 item 1): slurmctld and munged in this network
// namespace, and each slurmd in a network namespace of the test's own (`ip netns add`, a veth
// pair to this namespace, its own address), so the controller reaches n1 and n2 as two
// machines. The namespaces share the filesystem: munge's socket, the spool and the workspace
// are on shared paths, as on a cluster with a shared filesystem. slurmd runs under `nsenter
// --net` (not `ip netns exec`, which remounts /sys and hides the cgroup tree slurmd reads).
//
// With `accounting`, a MariaDB of the test's own (mariadb-install-db into a temp datadir,
// mariadbd on a loopback port) and slurmdbd on it; slurmctld registers the cluster itself.
//
// Determinism: SlurmdTimeout=5 makes a silent node DOWN within about 30 s; jobs are submitted
// --no-requeue by checkroom, so a job on a node that dies ends NODE_FAIL and checkroom's own
// retry (INFRA) runs it again on the node still up. Everything started is stopped by its pid,
// the namespaces deleted and nothing left behind, even when a test fails half way.

const BINARIES = ['sbatch', 'squeue', 'scontrol', 'scancel', 'sinfo', 'slurmctld', 'slurmd', 'munged', 'ip', 'nsenter'];
const ACCOUNTING = ['sacct', 'slurmdbd', 'mariadbd', 'mariadb-install-db'];

/** Why the two-node tests cannot run here, or null. */
export const nodesMissing = (o: { accounting: boolean }): string | null => {
  const missing = [...BINARIES, ...(o.accounting ? ACCOUNTING : [])].filter((b) => !which(b));
  if (missing.length) return `missing ${missing.join(', ')}: run .ci/slurm-setup.sh (it installs slurm-wlm, munge, slurmdbd and mariadb-server)`;
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  const probe = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  return probe.status === 0 ? null : `ip netns does not work here: ${(probe.stderr ?? '').trim()}`;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const sh = (argv: string[]): { code: number; out: string; err: string } => {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status ?? 1, out: r.stdout ?? '', err: r.stderr ?? '' };
};

/** A /16 under 10/8 no interface of this host uses (other tests may have namespaces of their own). */
const freeSubnet = (): number => {
  const used = sh(['ip', '-4', '-o', 'addr']).out;
  for (let i = 0; i < 200; i++) {
    const b = 100 + ((process.pid + i * 7) % 150);
    if (!used.includes(` 10.${b}.`)) return b;
  }
  throw new Error('no free 10.x/16 subnet for the test network');
};

export interface TwoNodes {
  dir: string;
  conf: string;
  nodes: readonly ['n1', 'n2'];
  accounting: boolean;
  env: Record<string, string>;
  run(argv: string[]): { code: number; out: string; err: string };
  /** The node a job runs on (squeue %N), or ''. */
  nodeOf(jobId: string): string;
  /** The node dies: its slurmd, slurmstepd and the job's processes are SIGKILLed (every pid in its namespace). */
  killNode(node: string): number[];
  /** sinfo's state of a node ("idle", "down*"). */
  stateOf(node: string): string;
  stop(): Promise<void>;
}

interface Started {
  procs: ChildProcess[];
  netns: string[];
  dir: string;
  conf: string | null;
  env: Record<string, string>;
}

const stopAll = async (s: Started, run: (argv: string[]) => { code: number }): Promise<void> => {
  if (s.conf) run(['scancel', '--full', '-u', 'root']);
  for (const ns of s.netns) {
    for (const pid of sh(['ip', 'netns', 'pids', ns]).out.split(/\s+/).filter(Boolean).map(Number)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  for (const p of [...s.procs].reverse()) if (p.exitCode === null && p.signalCode === null && p.pid) process.kill(p.pid, 'SIGTERM');
  for (let i = 0; i < 100 && s.procs.some((p) => p.exitCode === null && p.signalCode === null); i++) await sleep(100);
  for (const p of s.procs) if (p.exitCode === null && p.signalCode === null && p.pid) process.kill(p.pid, 'SIGKILL');
  // Deleting the namespace deletes its end of the veth pair, and with it ours.
  for (const ns of s.netns) sh(['ip', 'netns', 'del', ns]);
};

const waitFor = async (ok: () => boolean, tries: number, gapMs: number): Promise<boolean> => {
  for (let i = 0; i < tries; i++) {
    if (ok()) return true;
    await sleep(gapMs);
  }
  return false;
};

const netns = (s: Started, name: string, b: number, i: number): string => {
  const ns = `crn${process.pid}n${i}`;
  const host = `crn${process.pid % 100000}h${i}`;
  const peer = `crn${process.pid % 100000}p${i}`;
  sh(['ip', 'netns', 'del', ns]);
  const steps: string[][] = [
    ['ip', 'netns', 'add', ns],
    ['ip', 'link', 'add', host, 'type', 'veth', 'peer', 'name', peer],
    ['ip', 'link', 'set', peer, 'netns', ns],
    ['ip', 'addr', 'add', `10.${b}.${i}.1/24`, 'dev', host],
    ['ip', 'link', 'set', host, 'up'],
    ['ip', 'netns', 'exec', ns, 'ip', 'addr', 'add', `10.${b}.${i}.2/24`, 'dev', peer],
    ['ip', 'netns', 'exec', ns, 'ip', 'link', 'set', peer, 'up'],
    ['ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up'],
    // The controller listens on 10.b.1.1: n2 reaches it through its own veth, delivered locally.
    ['ip', 'netns', 'exec', ns, 'ip', 'route', 'add', 'default', 'via', `10.${b}.${i}.1`],
  ];
  for (const argv of steps) {
    if (argv[2] === 'add' && argv[1] === 'netns') s.netns.push(ns);
    const r = sh(argv);
    if (r.code !== 0) throw new Error(`${argv.join(' ')}: ${r.err.trim()} (node ${name})`);
  }
  return ns;
};

const mariadb = async (s: Started, dir: string, daemon: (argv: string[], log: string) => ChildProcess): Promise<number> => {
  const data = join(dir, 'db', 'data');
  mkdirSync(join(dir, 'db'), { recursive: true });
  const inst = sh(['mariadb-install-db', '--no-defaults', `--datadir=${data}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db']);
  if (inst.code !== 0) throw new Error(`mariadb-install-db failed: ${inst.err.trim().split('\n').slice(-3).join(' ')}`);
  const port = await freePort();
  daemon(['mariadbd', '--no-defaults', `--datadir=${data}`, '--user=root', `--port=${port}`, '--bind-address=127.0.0.1', `--socket=${join(dir, 'db', 'sock')}`, `--pid-file=${join(dir, 'db', 'pid')}`, '--innodb-buffer-pool-size=16M', `--log-error=${join(dir, 'db', 'err.log')}`], 'mariadbd.out');
  const up = await waitFor(() => existsSync(join(dir, 'db', 'sock')), 300, 100);
  if (!up) throw new Error(`mariadbd did not come up; see ${join(dir, 'db', 'err.log')}`);
  return port;
};

/** `cpus` per node (default 1: two jobs at once run on two nodes); `overSubscribe`: jobs a CPU may share (the arrays bench). */
export async function startTwoNodes(o: { accounting: boolean; cpus?: number; overSubscribe?: number }): Promise<TwoNodes> {
  const dir = tempDir('checkroom-nodes-');
  chmodSync(dir, 0o755);
  const s: Started = { procs: [], netns: [], dir, conf: null, env: {} };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) s.env[k] = v;
  const run = (argv: string[]) => {
    const r = spawnSync(argv[0]!, argv.slice(1), { env: s.env, encoding: 'utf8', timeout: 30_000 });
    return { code: r.status ?? 1, out: r.stdout ?? '', err: r.stderr ?? '' };
  };
  const daemon = (argv: string[], log: string, ns?: string): ChildProcess => {
    const full = ns ? ['nsenter', `--net=/run/netns/${ns}`, ...argv] : argv;
    const p = spawn(full[0]!, full.slice(1), { env: s.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    p.stdout?.on('data', (c: Buffer) => chunks.push(c));
    p.stderr?.on('data', (c: Buffer) => chunks.push(c));
    p.on('exit', () => writeFileSync(join(dir, 'log', log), Buffer.concat(chunks)));
    s.procs.push(p);
    return p;
  };
  try {
    for (const d of ['state', 'spool', 'spool/n1', 'spool/n2', 'log', 'munge']) mkdirSync(join(dir, d), { recursive: true });
    chmodSync(join(dir, 'munge'), 0o711);
    const key = writeMungeKey(join(dir, 'munge'));
    const b = freeSubnet();
    const ns = [netns(s, 'n1', b, 1), netns(s, 'n2', b, 2)];
    const sock = join(dir, 'munge', 'sock');
    const [ctld, slurmd, dbd] = [await freePort(), await freePort(), await freePort()];
    const conf = join(dir, 'slurm.conf');
    const lines = [
      `ClusterName=crn${ctld}`,
      `SlurmctldHost=${hostname()}(10.${b}.1.1)`,
      `SlurmctldPort=${ctld}`,
      `SlurmdPort=${slurmd}`,
      'AuthType=auth/munge',
      `AuthInfo=socket=${sock}`,
      'CredType=cred/munge',
      'SlurmUser=root',
      'SlurmdUser=root',
      `StateSaveLocation=${join(dir, 'state')}`,
      `SlurmdSpoolDir=${join(dir, 'spool', '%n')}`,
      `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${join(dir, 'slurmd-%n.pid')}`,
      `SlurmctldLogFile=${join(dir, 'log', 'slurmctld.log')}`,
      `SlurmdLogFile=${join(dir, 'log', 'slurmd-%n.log')}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'MpiDefault=none',
      // A node that stops answering is DOWN after SlurmdTimeout (about 30 s with the pings);
      // it comes back by itself when its slurmd does (ReturnToService=2).
      'SlurmdTimeout=5',
      'ReturnToService=2',
      'InactiveLimit=0',
      'MinJobAge=300',
      'KillWait=2',
      'Waittime=0',
      ...(o.accounting
        ? ['AccountingStorageType=accounting_storage/slurmdbd', 'AccountingStorageHost=127.0.0.1', `AccountingStoragePort=${dbd}`, `AccountingStoragePass=${sock}`, 'JobAcctGatherType=jobacct_gather/linux', 'JobAcctGatherFrequency=1']
        : []),
      // One CPU each: two jobs at once run on two nodes.
      `NodeName=n1 NodeAddr=10.${b}.1.2 NodeHostname=n1 CPUs=${o.cpus ?? 1} RealMemory=1000 State=UNKNOWN`,
      `NodeName=n2 NodeAddr=10.${b}.2.2 NodeHostname=n2 CPUs=${o.cpus ?? 1} RealMemory=1000 State=UNKNOWN`,
      `PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP${o.overSubscribe ? ` OverSubscribe=FORCE:${o.overSubscribe}` : ''}`,
      '',
    ];
    writeFileSync(conf, lines.join('\n'));
    s.conf = conf;
    s.env.SLURM_CONF = conf;
    daemon(['munged', '-F', '--force', `--socket=${sock}`, `--key-file=${key}`, `--pid-file=${join(dir, 'munge', 'pid')}`, `--log-file=${join(dir, 'munge', 'log')}`, `--seed-file=${join(dir, 'munge', 'seed')}`], 'munged.out');
    if (!(await waitFor(() => existsSync(join(dir, 'munge', 'pid')), 200, 50))) throw new Error('munged did not start');
    if (o.accounting) {
      const dbPort = await mariadb(s, dir, daemon);
      // slurmdbd reads slurmdbd.conf beside SLURM_CONF; it must be private to SlurmUser.
      const dbdConf = join(dir, 'slurmdbd.conf');
      writeFileSync(
        dbdConf,
        [`AuthType=auth/munge`, `AuthInfo=socket=${sock}`, 'DbdHost=localhost', 'DbdAddr=127.0.0.1', `DbdPort=${dbd}`, 'SlurmUser=root', `PidFile=${join(dir, 'slurmdbd.pid')}`, `LogFile=${join(dir, 'log', 'slurmdbd.log')}`, 'StorageType=accounting_storage/mysql', 'StorageHost=127.0.0.1', `StoragePort=${dbPort}`, 'StorageUser=root', 'StorageLoc=slurm_acct_db', ''].join('\n'),
        { mode: 0o600 },
      );
      daemon(['slurmdbd', '-D'], 'slurmdbd.out');
      const dbdUp = await waitFor(() => /slurmdbd version \S+ started/.test(readLog(join(dir, 'log', 'slurmdbd.log'))), 300, 100);
      if (!dbdUp) throw new Error(`slurmdbd did not come up; see ${join(dir, 'log', 'slurmdbd.log')}`);
    }
    daemon(['slurmctld', '-D', '-f', conf], 'slurmctld.out');
    daemon(['slurmd', '-D', '-f', conf, '-N', 'n1'], 'slurmd-n1.out', ns[0]);
    daemon(['slurmd', '-D', '-f', conf, '-N', 'n2'], 'slurmd-n2.out', ns[1]);
    const stateOf = (node: string): string => run(['sinfo', '-h', '-N', '-n', node, '-o', '%T']).out.trim();
    const up = await waitFor(() => ['n1', 'n2'].every((n) => /^(idle|mixed|allocated)$/.test(stateOf(n))), 300, 200);
    if (!up) throw new Error(`the two-node Slurm did not come up (${stateOf('n1')} / ${stateOf('n2')}); logs in ${join(dir, 'log')}`);
    if (o.accounting && !(await waitFor(() => run(['sacctmgr', '-n', 'list', 'cluster', 'format=cluster']).out.includes(`crn${ctld}`), 150, 200))) {
      throw new Error(`slurmctld did not register with slurmdbd; logs in ${join(dir, 'log')}`);
    }
    return {
      dir,
      conf,
      nodes: ['n1', 'n2'],
      accounting: o.accounting,
      env: s.env,
      run,
      nodeOf: (id) => run(['squeue', '-h', '-t', 'all', '-j', id, '-o', '%N']).out.trim(),
      killNode(node) {
        const pids = sh(['ip', 'netns', 'pids', ns[node === 'n1' ? 0 : 1]!]).out.split(/\s+/).filter(Boolean).map(Number);
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone between the listing and the kill
          }
        }
        return pids;
      },
      stateOf,
      stop: () => stopAll(s, run),
    };
  } catch (err) {
    await stopAll(s, run);
    throw err;
  }
}

const readLog = (p: string): string => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};
