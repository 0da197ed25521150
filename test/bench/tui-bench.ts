import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync, spawnSync } from 'node:child_process';
import { median } from './measure.js';
import { generateWorkspace } from './generate.js';
import { goal } from './goals.js';

// Time to first frame of the real control room in a real terminal (tmux, 80×24), on a copy
// of the demo and on a 50k-file book, next to the time a bare `node -e` takes to print a line
// in the same harness: the ratio is what the control room adds to Node's own start-up
// (issue 10: goals ≤ 2.5× demo, ≤ 4× at 50k). And the control room's peak RSS at 50k once the
// scan has landed (goal ≤ 150 MB).

const REPO = resolve(import.meta.dirname, '..', '..', '..');
const CLI = process.env.CHECKROOM_BENCH_CLI ?? join(REPO, 'dist/bundle/checkroom.js'); // the bin
const BASE = process.env.CHECKROOM_BENCH_DIR ?? join(tmpdir(), 'checkroom-bench');

let runs = 0;

interface Shown {
  ms: number;
  /** When `settled` showed: the scan has landed and every cell is drawn. */
  settledMs: number;
  /** Peak RSS of the program in the pane, once `settled` showed (MB), when asked for. */
  peakMb: number | null;
}

const peakOf = (pid: number): number | null => {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return hwm ? Number(hwm[1]) / 1024 : null;
  } catch {
    return null;
  }
};

function firstOutput(command: string, expect: RegExp, settled?: RegExp): Shown {
  const socket = `checkroom-bench-${process.pid}-${runs++}`;
  const tmux = (...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
  const t0 = performance.now();
  // exec: the pane's process is the program itself, so its /proc entry is the one measured.
  tmux('new-session', '-d', '-s', 'b', '-x', '80', '-y', '24', '-e', 'TERM=xterm-256color', '-e', 'LANG=C.UTF-8', `exec ${command}`);
  let ms = NaN;
  let settledMs = NaN;
  let peakMb: number | null = null;
  for (let i = 0; i < 4000; i++) {
    const screen = tmux('capture-pane', '-p', '-t', 'b');
    if (Number.isNaN(ms) && expect.test(screen)) {
      ms = performance.now() - t0;
      if (!settled) break;
    }
    if (settled && settled.test(screen)) {
      settledMs = performance.now() - t0;
      // Quiet for a moment after the scan landed: what the control room holds while it runs.
      spawnSync('sleep', ['1']);
      peakMb = peakOf(Number(tmux('display-message', '-p', '-t', 'b', '#{pane_pid}').trim()));
      break;
    }
    spawnSync('sleep', ['0.005']);
  }
  spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  return { ms, settledMs, peakMb };
}

const BARE = `${process.execPath} -e "console.log('ready'); setTimeout(() => {}, 5000)"`;

export function tuiBench(lines: string[]): void {
  if (spawnSync('tmux', ['-V']).status !== 0) {
    lines.push('## Control room: first frame', '', 'tmux is not installed: skipped', '');
    return;
  }
  const demo = mkdtempSync(join(tmpdir(), 'checkroom-tui-'));
  cpSync(join(REPO, 'demo-workspace'), demo, { recursive: true });
  const big = generateWorkspace(join(BASE, 'ws-50000'), 50_000);
  const rows: [string, string, number][] = [
    ['demo', demo, 2.5],
    ['50k files', big, 4],
  ];
  lines.push('## Control room: first frame (tmux 80×24, median of 5, alternating with bare node)', '');
  lines.push(
    '| workspace | bare node prints a line | checkroom first frame | ratio | goal | every cell drawn (scan landed) | ratio |',
    '|---|---:|---:|---:|---|---:|---:|',
  );
  let peaks: number[] = [];
  for (const [name, dir, max] of rows) {
    const base: number[] = [];
    const ours: number[] = [];
    const full: number[] = [];
    peaks = [];
    for (let i = 0; i < 5; i++) {
      base.push(firstOutput(BARE, /ready/).ms);
      // The first frame: "checkroom: opening …" before the scan (src/ui/entry/entry.ts), or the
      // room's own header; the scan has landed when the done count is drawn.
      const r = firstOutput(`${process.execPath} ${CLI} ${dir} --readonly`, /checkroom(: opening| · )/, /\d+\/\d+ done/);
      ours.push(r.ms);
      full.push(r.settledMs);
      if (r.peakMb !== null) peaks.push(r.peakMb);
    }
    const ratio = median(ours) / median(base);
    const f = median(full);
    lines.push(
      `| ${name} | ${median(base).toFixed(0)} ms | ${median(ours).toFixed(0)} ms | ${ratio.toFixed(2)} | ≤ ${max}×: ${goal(`first frame, ${name}, ÷ node -e`, `${ratio.toFixed(2)}×`, `≤ ${max}×`, ratio, max)} | ${f.toFixed(0)} ms | ${(f / median(base)).toFixed(2)} |`,
    );
  }
  rmSync(demo, { recursive: true, force: true });
  lines.push('');
  lines.push('## Control room RSS at 50k files (peak, once the scan has landed, median of 5)', '');
  const rss = peaks.length > 0 ? median(peaks) : NaN;
  lines.push('| peak RSS | goal |', '|---:|---|', `| ${rss.toFixed(0)} MB | ≤ 150 MB: ${goal('control room peak RSS at 50k', `${rss.toFixed(0)} MB`, '≤ 150 MB', rss, 150, 'MB')} |`, '');
}
