import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createLiveWorkspace } from '../../src/live/live-workspace.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { createSupervisor } from '../../src/run/supervisor/supervisor.js';
import { cellKey } from '../../src/types.js';

// The control room's engine (live workspace + supervisor, as the app holds them) while 8
// agents flood their output at full speed; or, with `bare`, the same 8 agents spawned by a
// bare Node parent that discards their output — the baseline. Prints peak RSS and the
// parent's own CPU time (the agents' CPU is theirs in both modes).

const FLOOD = `
const fs = require('node:fs');
const [out, marker] = process.argv.slice(2);
const big = 'x'.repeat(1 << 20);
let n = 0;
const w = () => {
  while (n < ROUNDS) {
    n++;
    const chunk = n % 5 ? ('line ' + n + ' ' + 'y'.repeat(200) + '\\n').repeat(4000) : big + '\\n';
    if (!process.stdout.write(chunk)) return process.stdout.once('drain', w);
  }
  fs.writeFileSync(out, '# Research\\n\\n' + 'Body of research. '.repeat(40) + '\\n\\n<!-- ' + marker + ' -->\\n');
};
w();
`;

const mode = process.argv[2] ?? 'control-room';
const rounds = Number(process.argv[3] ?? 40);
const dir = mkdtempSync(join(tmpdir(), 'checkroom-agents-'));
writeFileSync(join(dir, 'flood.cjs'), FLOOD.replace('ROUNDS', String(rounds)));
mkdirSync(join(dir, 'research'));
const units = Array.from({ length: 8 }, (_, i) => `ch0${i + 1}`);
let peak = process.memoryUsage().rss;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
const t0 = performance.now();

if (mode === 'bare') {
  await Promise.all(
    units.map(
      (u) =>
        new Promise<void>((resolve) => {
          const c = spawn(process.execPath, [join(dir, 'flood.cjs'), join(dir, `research/${u}-research.md`), 'RESEARCH_COMPLETE'], { stdio: ['ignore', 'pipe', 'pipe'] });
          c.stdout.resume();
          c.on('exit', () => resolve());
        }),
    ),
  );
} else {
  writeFileSync(
    join(dir, 'checkroom.yaml'),
    `units: { list: [${units.join(', ')}] }\nagents:\n  researcher:\n    command: [node, flood.cjs, '{output}', '{marker}']\n    concurrency: 8\n    idle_timeout: 60s\n`,
  );
  const live = await createLiveWorkspace(dir);
  const sup = createSupervisor({ root: dir, config: await loadConfig(dir) });
  await sup.ready;
  // As the control room does (src/ui/agents/feed.ts): a snapshot with the ring buffers at
  // most every 250 ms, running cells into the live model when they change.
  let pending: NodeJS.Timeout | null = null;
  let sig = '';
  let lines = 0;
  sup.subscribe(() => {
    pending ??= setTimeout(() => {
      pending = null;
      const snap = sup.snapshot();
      lines = snap.runs.reduce((n, r) => n + r.lines.length, 0);
      const keys = snap.runs.map((r) => cellKey(r.unit, r.step)).sort();
      if (keys.join() !== sig) {
        sig = keys.join();
        live.setRunning(new Set(keys));
      }
    }, 250);
  });
  const results = await Promise.all(units.map((u) => sup.launch(u, 'research')));
  const done = results.filter((r) => r.outcome === 'done').length;
  if (done !== units.length) throw new Error(`only ${done} of ${units.length} runs succeeded`);
  if (pending) clearTimeout(pending);
  await sup.close();
  await live.close();
  void lines;
}
clearInterval(timer);
const cpu = process.cpuUsage();
process.stdout.write(JSON.stringify({ mode, peakMb: peak / 2 ** 20, cpuMs: (cpu.user + cpu.system) / 1000, seconds: (performance.now() - t0) / 1000, outputMb: (8 * rounds * (0.8 * 4000 * 211 + 0.2 * (1 << 20))) / 2 ** 20 }));
