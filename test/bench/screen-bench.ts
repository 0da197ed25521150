import { appendFileSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { spawnSync } from 'node:child_process';
import { generateWorkspace } from './generate.js';
import { goal } from './goals.js';
import { median, pct } from './measure.js';
import { openPane, sleep, type Pane } from './screen-pane.js';
import { visibleTargets, type Target } from './screen-targets.js';

// Issue 18 item 6: marker → *screen*, end to end. The built control room runs in tmux
// (120×40) on a generated workspace; a marker is appended to a half-product whose cell is
// on screen, and the clock stops when the done glyph reaches the terminal (the pane's output,
// timestamped by a FIFO read: screen-pane.ts); capture-pane then confirms the row shows it.
// The file is put back (the cell turns 🚧 again) before the next marker, so the same visible
// cells serve every repetition. Beside it: the engine alone (marker → state, live-child.js,
// the same cells, same run) and a bare fs.watch printer in the same terminal (the floor).

const REPO = resolve(import.meta.dirname, '..', '..', '..');
const CLI = process.env.CHECKROOM_BENCH_CLI ?? join(REPO, 'dist/bundle/checkroom.js');
/** Another build of the bin (an earlier commit's), measured in the same run for a before/after row. */
const BEFORE = process.env.CHECKROOM_BENCH_BEFORE_CLI;
const COLS = 120;
const ROWS = 40;
const REPS = Number(process.env.CHECKROOM_BENCH_SCREEN_REPS ?? 30);
/** Quiet between two markers: the room has drawn the put-back and nothing is pending. */
const GAP_MS = 150;
const DONE = '✅';

interface Figures {
  p50: number;
  p95: number;
  n: number;
}

const figures = (xs: number[]): Figures => ({ p50: pct(xs, 50), p95: pct(xs, 95), n: xs.length });

const doneIn = (screen: string, unit: string): number => {
  const row = screen.split('\n').find((l) => new RegExp(`^[ ›>]${unit}\\b`).test(l));
  return row === undefined ? -1 : row.split(DONE).length - 1;
};

/** The control room, opened on `dir` and shown its matrix (the recover report closed). */
async function openRoom(cli: string, dir: string, first: string): Promise<{ pane: Pane; readyMs: number }> {
  const t0 = performance.now();
  // The bin itself, as an operator starts it: its shebang's V8 flags (the young generation's size) apply.
  const pane = await openPane(`${cli} ${dir} --readonly`, COLS, ROWS);
  // A session without a journal was interrupted, so the room opens the recover report by
  // itself once its checks are read (seconds after the matrix on a loaded machine): wait for
  // it and close it, so no marker is measured under it.
  pane.until((s) => /\d+\/\d+ done/.test(s) && (/checkroom recover/.test(s) || doneIn(s, first) >= 0));
  const readyMs = performance.now() - t0;
  const t1 = performance.now();
  while (!/checkroom recover/.test(pane.screen()) && performance.now() - t1 < 60_000) await sleep(100);
  pane.keys('Escape');
  pane.until((s) => !/checkroom recover/.test(s) && doneIn(s, first) >= 0, 30_000);
  await sleep(1000);
  return { pane, readyMs };
}

interface ScreenRun {
  screen: Figures;
  /** The same markers, when capture-pane first showed the row changed. */
  captured: Figures;
  lookMs: number;
  /** The room's CPU per change (each marker and each put-back), whatever the machine's load. */
  cpuMs: number;
  hwmMb: number;
  rssMb: number;
  readyMs: number;
}

async function markOnScreen(cli: string, dir: string, targets: Target[]): Promise<ScreenRun> {
  const { pane, readyMs } = await openRoom(cli, dir, targets[0].unit);
  const lat: number[] = [];
  const cap: number[] = [];
  const looks: number[] = [];
  let marked: { path: string; size: number } | null = null;
  try {
    const cpu0 = pane.cpuMs();
    for (let i = 0; i < REPS; i++) {
      const t = targets[i % targets.length];
      const path = join(dir, t.path);
      const size = statSync(path).size;
      const before = doneIn(pane.screen(), t.unit);
      await sleep(GAP_MS);
      const t0 = performance.now();
      appendFileSync(path, `\n<!-- ${t.marker} -->\n`);
      marked = { path, size };
      lat.push((await pane.outputAfter(t0, DONE)) - t0);
      const seen = pane.until((s) => doneIn(s, t.unit) === before + 1, 10_000);
      cap.push(seen.at - t0);
      looks.push(seen.lookMs);
      truncateSync(path, size);
      marked = null;
      pane.until((s) => doneIn(s, t.unit) === before, 10_000);
    }
    const cpuMs = (pane.cpuMs() - cpu0) / (2 * REPS);
    const mem = pane.memory();
    return { screen: figures(lat), captured: figures(cap), lookMs: median(looks), cpuMs, hwmMb: mem.hwmMb, rssMb: mem.rssMb, readyMs };
  } finally {
    // Never leave a bench marker behind, whatever failed.
    if (marked) truncateSync(marked.path, marked.size);
    pane.close();
  }
}

/** The floor: a bare fs.watch printer in the same terminal, the same files, measured the same way. */
async function floorOnScreen(dir: string, targets: Target[]): Promise<Figures> {
  const dirs = [...new Set(targets.map((t) => dirname(t.path)))];
  const pane = await openPane(`${process.execPath} ${join(import.meta.dirname, 'screen-floor.js')} ${dir} ${dirs.join(' ')}`, COLS, ROWS);
  const lat: number[] = [];
  let marked: { path: string; size: number } | null = null;
  try {
    pane.until((s) => s.includes('floor ready'), 30_000);
    for (let i = 0; i < REPS; i++) {
      const t = targets[i % targets.length];
      const path = join(dir, t.path);
      const size = statSync(path).size;
      await sleep(GAP_MS);
      const t0 = performance.now();
      appendFileSync(path, `\n<!-- ${t.marker} -->\n`);
      marked = { path, size };
      lat.push((await pane.outputAfter(t0, DONE)) - t0);
      const t1 = performance.now();
      truncateSync(path, size);
      marked = null;
      await pane.outputAfter(t1, '🚧');
    }
    return figures(lat);
  } finally {
    if (marked) truncateSync(marked.path, marked.size);
    pane.close();
  }
}

function engineOnly(dir: string, targets: Target[], file: string): Figures & { maxRssMb: number } {
  writeFileSync(file, JSON.stringify(targets.map(({ path, marker }) => ({ path, marker }))));
  const r = spawnSync(process.execPath, [join(import.meta.dirname, 'live-child.js'), dir, file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`live-child.js failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Figures & { maxRssMb: number };
}

const ms = (x: number): string => `${x.toFixed(1)} ms`;
const load = (): string => loadavg()[0].toFixed(1);

export async function screenBench(base: string, sizes: number[], lines: string[]): Promise<void> {
  if (spawnSync('tmux', ['-V']).status !== 0) {
    lines.push('## Marker → screen', '', 'tmux is not installed: skipped', '');
    return;
  }
  lines.push(
    `## Marker → screen: the built control room in tmux ${COLS}×${ROWS}, a marker on a visible cell (${REPS} markers per size)`,
    '',
    'Screen: marker appended → the first pane output containing ✅ (tmux pipe-pane into a FIFO, read as it comes: event-timed, no poll). ' +
      'Captured: → the first capture-pane that shows the row with one more ✅ (a loop of capture-pane, one look per column "look"). ' +
      'Engine: the live workspace alone, marker → state, on the same cells (live-child.js). Floor: a bare fs.watch printer in the same terminal.',
    '',
    '| files | load | room ready | screen p50 | screen p95 | captured p50 / p95 | look | engine p50 / p95 | floor p50 / p95 | screen p95 ÷ floor p95 | room CPU per change | peak RSS | RSS after |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  const p95s = new Map<number, number>();
  for (const n of sizes) {
    const dir = generateWorkspace(join(base, `ws-${n}`), n);
    const targets = await visibleTargets(dir, 20);
    const l0 = load();
    const engine = engineOnly(dir, targets, join(base, `screen-targets-${n}.json`));
    const floor = await floorOnScreen(dir, targets);
    const before = BEFORE ? await markOnScreen(BEFORE, dir, targets) : null;
    const room = await markOnScreen(CLI, dir, targets);
    // The files are as they were (each marker was cut off again): check, never lose a byte.
    for (const t of targets) if (/<!-- [A-Z0-9_]+ -->\n$/.test(readFileSync(join(dir, t.path), 'utf8'))) throw new Error(`${t.path} kept a bench marker`);
    p95s.set(n, room.screen.p95);
    const verdict = n >= 50_000 ? ` (${goal(`marker → screen p95, ${n / 1000}k files (tmux)`, ms(room.screen.p95), '≤ 50 ms', room.screen.p95, 50, 'ms')})` : '';
    lines.push(
      `| ${n} | ${l0}–${load()} | ${room.readyMs.toFixed(0)} ms | ${ms(room.screen.p50)} | ${ms(room.screen.p95)}${verdict} | ${ms(room.captured.p50)} / ${ms(room.captured.p95)} | ${ms(room.lookMs)} | ${ms(engine.p50)} / ${ms(engine.p95)} | ${ms(floor.p50)} / ${ms(floor.p95)} | ${(room.screen.p95 / floor.p95).toFixed(1)}× | ${ms(room.cpuMs)} | ${room.hwmMb.toFixed(0)} MB | ${room.rssMb.toFixed(0)} MB |`,
    );
    if (before)
      lines.push(
        `| ${n} (before: CHECKROOM_BENCH_BEFORE_CLI) | ${load()} | ${before.readyMs.toFixed(0)} ms | ${ms(before.screen.p50)} | ${ms(before.screen.p95)} | ${ms(before.captured.p50)} / ${ms(before.captured.p95)} | ${ms(before.lookMs)} | — | — | ${(before.screen.p95 / floor.p95).toFixed(1)}× | ${ms(before.cpuMs)} | ${before.hwmMb.toFixed(0)} MB | ${before.rssMb.toFixed(0)} MB |`,
      );
    if (n === 50_000) goal('control room peak RSS at 50k (tmux, after the markers)', `${room.hwmMb.toFixed(0)} MB`, '≤ 150 MB', room.hwmMb, 150, 'MB');
    console.error(`screen ${n}: done`);
  }
  const small = Math.min(...p95s.keys());
  const big = Math.max(...p95s.keys());
  if (big > small) {
    const r = p95s.get(big)! / p95s.get(small)!;
    lines.push('', `Screen p95 at ${big} ÷ at ${small}: ${r.toFixed(2)} (flat in N: ${goal(`marker → screen p95 ${big / 1000}k ÷ ${small / 1000}k`, r.toFixed(2), '≤ 1.5 (flat, with noise)', r, 1.5)}).`);
  }
  lines.push('');
}
