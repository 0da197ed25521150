import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { median } from './measure.js';
import { goal } from './goals.js';

// Issue 10 item 6: 8 agents streaming 30 MB each at full speed, the control room's engine
// (live workspace + supervisor, ring buffers, the 250 ms snapshots the UI takes) next to a bare
// Node parent that spawns the same agents and discards their output. The parent's own CPU and
// peak RSS; goals: CPU ≤ 3×, RSS ≤ 1.4×.

interface AgentsRun {
  peakMb: number;
  cpuMs: number;
  seconds: number;
  outputMb: number;
}

// One round of the flood writes ~0.88 MB (4,000 lines of 211 B, or one line of 1 MB every
// fifth round): 34 rounds are ~30 MB an agent.
const ROUNDS = 34;

const child = (mode: string): AgentsRun => {
  const r = spawnSync(process.execPath, [join(import.meta.dirname, 'agents-child.js'), mode, String(ROUNDS)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`agents-child ${mode}: ${r.stderr}`);
  return JSON.parse(r.stdout) as AgentsRun;
};


export function agentsBench(lines: string[], repeats = 3): void {
  const ours: AgentsRun[] = [];
  const bare: AgentsRun[] = [];
  // Alternating, so a busy moment of the machine hits both sides alike.
  for (let i = 0; i < repeats; i++) {
    ours.push(child('control-room'));
    bare.push(child('bare'));
  }
  const m = (runs: AgentsRun[], k: keyof AgentsRun): number => median(runs.map((r) => r[k]));
  const cpu = m(ours, 'cpuMs') / m(bare, 'cpuMs');
  const rss = m(ours, 'peakMb') / m(bare, 'peakMb');
  lines.push(`## 8 agents × 30 MB of output at full speed: the control room's engine vs a bare parent (median of ${repeats})`, '');
  lines.push('| figure | bare parent (discards the output) | checkroom engine | ratio | goal |', '|---|---:|---:|---:|---|');
  lines.push(
    `| parent CPU (${m(ours, 'outputMb').toFixed(0)} MB in total) | ${m(bare, 'cpuMs').toFixed(0)} ms | ${m(ours, 'cpuMs').toFixed(0)} ms | ${cpu.toFixed(2)} | ≤ 3×: ${goal('8 agents × 30 MB: parent CPU ÷ bare parent', `${cpu.toFixed(2)}×`, '≤ 3×', cpu, 3)} |`,
  );
  lines.push(`| peak RSS | ${m(bare, 'peakMb').toFixed(0)} MB | ${m(ours, 'peakMb').toFixed(0)} MB | ${rss.toFixed(2)} | ≤ 1.4×: ${goal('8 agents × 30 MB: peak RSS ÷ bare parent', `${rss.toFixed(2)}×`, '≤ 1.4×', rss, 1.4)} |`);
  lines.push(
    `| wall time | ${m(bare, 'seconds').toFixed(1)} s | ${m(ours, 'seconds').toFixed(1)} s | ${(m(ours, 'seconds') / m(bare, 'seconds')).toFixed(2)} | — |`,
    '',
  );
}
