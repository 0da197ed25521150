import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readdir, readFile } from 'node:fs/promises';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { readJournal } from '../../src/run/journal/journal.js';
import { openSupervisor } from '../../src/run/supervisor/supervisor.js';
import { startSlurm } from '../helpers/slurm.js';
import { nodesMissing, startTwoNodes } from '../helpers/slurm-nodes.js';
import { tempDir } from '../helpers/workspace.js';

// Issue 22 item 3: N cells (2,000 unless CHECKROOM_BENCH_ARRAY_CELLS says) of one step through
// the real one-node Slurm of test/helpers/slurm.ts, as job arrays and as one job per attempt,
// in the same run: submissions, scheduler calls per minute, checkroom's CPU, and the time a
// checkroom started after a kill -9 takes to adopt what runs. The agent is a tiny shell script
// that writes its output and marker. Only when named: CHECKROOM_BENCH_ONLY=arrays.

const DIST_SRC = resolve(import.meta.dirname, '..', '..', 'src');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Slurm's commands behind shims that count every call. */
const shims = (): { path: string; calls: () => Record<string, number> } => {
  const dir = tempDir('checkroom-bench-shims-');
  const log = join(dir, 'calls.txt');
  writeFileSync(log, '');
  mkdirSync(join(dir, 'bin'));
  for (const cmd of ['sbatch', 'squeue', 'scontrol', 'scancel', 'sacct']) {
    const real = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', cmd], { encoding: 'utf8' }).stdout.trim();
    // scontrol's verb too (show, update, requeue): which of them a mode leans on.
    const said = cmd === 'scontrol' ? `${cmd} $1` : cmd;
    writeFileSync(join(dir, 'bin', cmd), `#!/bin/sh\necho "${said}" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(real)} "$@"\n`);
    chmodSync(join(dir, 'bin', cmd), 0o755);
  }
  return {
    path: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
    calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).reduce<Record<string, number>>((m, c) => ({ ...m, [c]: (m[c] ?? 0) + 1 }), {}),
  };
};

const workspace = (n: number, arrays: boolean): string => {
  const root = tempDir('checkroom-bench-arrays-');
  const units = Array.from({ length: n }, (_, i) => `u${String(i + 1).padStart(4, '0')}`);
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'replace: true',
      'phases: [{ id: 1, name: Cells }]',
      "steps: [{ id: cell, agent: tiny, path: 'out/{unit}.md', marker: CELL_DONE, phase: 1, min_chars: 1 }]",
      `units: { pattern: 'u\\d{4}', list: [${units.join(', ')}] }`,
      'executor: slurm',
      `slurm: { poll: 1s, arrays: ${arrays}, array_max: 1000 }`,
      'agents:',
      '  tiny:',
      `    command: [sh, -c, 'mkdir -p "$(dirname "$1")" && printf "done\\n<!-- %s -->\\n" "$2" > "$1"', sh, '{output}', '{marker}']`,
      '    concurrency: 8',
      '    timeout: 10m',
      'limits: { max_launches: 100000, backoff_base: 100ms, backoff_max: 500ms }',
      '',
    ].join('\n'),
  );
  return root;
};

/** utime + stime of a process, seconds. */
const cpuOf = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

/**
 * Cells done, by their marker (the only proof): a task the killed checkroom submitted and never
 * journalled still writes its output, and the restarted one leaves it done rather than run it
 * again, so its cell has no journalled SUCCESS (a 2,000-cell run counted 1,926 and waited).
 */
const successes = async (root: string): Promise<number> => {
  let done = 0;
  for (const f of await readdir(join(root, 'out')).catch(() => [] as string[])) {
    const text = await readFile(join(root, 'out', f), 'utf8').catch(() => '');
    if (text.trimEnd().endsWith('<!-- CELL_DONE -->')) done++;
  }
  return done;
};
const launched = async (root: string): Promise<number> => (await readJournal(root)).events.filter((e) => e.type === 'launch').length;

interface Figures {
  sbatch: number;
  calls: number;
  byCommand: string;
  perMinute: number;
  cpu: number;
  adoptMs: number;
  adopted: number;
  wallS: number;
}

async function one(cluster: { env: Record<string, string> }, n: number, arrays: boolean): Promise<Figures> {
  const root = workspace(n, arrays);
  const sh = shims();
  const env = { ...cluster.env, PATH: sh.path };
  const script = join(root, '.bench-proc.mjs');
  writeFileSync(
    script,
    `import { openSupervisor } from ${JSON.stringify(join(DIST_SRC, 'run', 'supervisor', 'supervisor.js'))};
import { loadConfig } from ${JSON.stringify(join(DIST_SRC, 'pipeline', 'config', 'config.js'))};
const root = process.argv[2];
const s = await openSupervisor({ root, config: await loadConfig(root) });
await s.setAutopilot(true);
`,
  );
  const t0 = performance.now();
  const child = spawn(process.execPath, [script, root], { stdio: 'ignore', env });
  // Killed mid-run: once a tenth of the cells is done and work is in flight.
  for (;;) {
    await sleep(500);
    const done = await successes(root);
    if (done >= n / 10 && (await launched(root)) > done) break;
  }
  const cpuChild = cpuOf(child.pid!);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const saved = process.env.PATH;
  process.env.PATH = sh.path;
  const cpu0 = process.cpuUsage();
  const a0 = performance.now();
  const s = await openSupervisor({ root, config: await loadConfig(root) });
  const adoptMs = performance.now() - a0;
  const adopted = s.snapshot().runs.length;
  await s.setAutopilot(true);
  // Bounded: a bench that stops making progress says so instead of waiting forever.
  for (let last = -1, still = 0; ; await sleep(1000)) {
    const done = await successes(root);
    if (done >= n) break;
    still = done === last ? still + 1 : 0;
    last = done;
    if (still > 180) throw new Error(`arrays bench: stuck at ${done}/${n} cells done; the workspace is ${root}`);
  }
  await s.close({ cancel: true });
  const used = process.cpuUsage(cpu0);
  process.env.PATH = saved;
  const wallS = (performance.now() - t0) / 1000;
  const c = sh.calls();
  const calls = Object.values(c).reduce((a, b) => a + b, 0);
  const byCommand = Object.entries(c).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ');
  return { sbatch: c.sbatch ?? 0, calls, byCommand, perMinute: calls / (wallS / 60), cpu: cpuChild + (used.user + used.system) / 1e6, adoptMs, adopted, wallS };
}

export async function arraysBench(lines: string[]): Promise<void> {
  const n = Number(process.env.CHECKROOM_BENCH_ARRAY_CELLS ?? 2000);
  // The two-node cluster (slurmd in two network namespaces) where it can run, as the issue's
  // simulation asks; CHECKROOM_BENCH_ARRAY_NODES=1, or no root / netns, takes the one-node one.
  const two = process.env.CHECKROOM_BENCH_ARRAY_NODES !== '1' && nodesMissing({ accounting: false }) === null;
  const cluster = two ? await startTwoNodes({ accounting: false, cpus: 2, overSubscribe: 4 }) : await startSlurm({ cpus: 2 });
  // The restarted checkroom runs in this process: its Slurm commands must find the cluster.
  const savedConf = process.env.SLURM_CONF;
  process.env.SLURM_CONF = cluster.conf;
  try {
    const arr = await one(cluster, n, true);
    const single = await one(cluster, n, false);
    const ratio = (a: number, b: number) => (b === 0 ? '—' : (a / b).toFixed(2));
    lines.push(`## Slurm job arrays: ${n} cells, ${two ? 'two-node cluster (slurmd n1, n2 in network namespaces, 2 CPUs each)' : 'one-node cluster (2 CPUs)'}, concurrency 8`, '');
    lines.push('| what | one job per attempt | arrays | arrays / single |', '|---|---:|---:|---:|');
    lines.push(`| sbatch submissions | ${single.sbatch} | ${arr.sbatch} | ${ratio(arr.sbatch, single.sbatch)} |`);
    lines.push(`| scheduler calls (sbatch+squeue+scontrol+scancel+sacct) | ${single.calls} | ${arr.calls} | ${ratio(arr.calls, single.calls)} |`);
    lines.push(`| the calls by command | ${single.byCommand} | ${arr.byCommand} | |`);
    lines.push(`| scheduler calls per minute | ${single.perMinute.toFixed(0)} | ${arr.perMinute.toFixed(0)} | ${ratio(arr.perMinute, single.perMinute)} |`);
    lines.push(`| checkroom CPU, s (both processes) | ${single.cpu.toFixed(1)} | ${arr.cpu.toFixed(1)} | ${ratio(arr.cpu, single.cpu)} |`);
    lines.push(`| adopt after kill -9, ms (runs adopted) | ${single.adoptMs.toFixed(0)} (${single.adopted}) | ${arr.adoptMs.toFixed(0)} (${arr.adopted}) | ${ratio(arr.adoptMs, single.adoptMs)} |`);
    lines.push(`| wall, s | ${single.wallS.toFixed(0)} | ${arr.wallS.toFixed(0)} | ${ratio(arr.wallS, single.wallS)} |`, '');
  } finally {
    if (savedConf === undefined) delete process.env.SLURM_CONF;
    else process.env.SLURM_CONF = savedConf;
    await cluster.stop();
  }
}
