import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync, spawnSync } from 'node:child_process';
import { median } from './measure.js';

// Time to first frame of the real control room in a real terminal (tmux, 80×24) on a copy
// of the demo, next to the time a bare `node -e` takes to print a line in the same harness:
// the ratio is what the control room adds to Node's own start-up.

const REPO = resolve(import.meta.dirname, '..', '..', '..');
const CLI = process.env.CHECKROOM_BENCH_CLI ?? join(REPO, 'dist/bundle/checkroom.js'); // the bin

let runs = 0;

function firstOutputMs(command: string, expect: string): number {
  const socket = `checkroom-bench-${process.pid}-${runs++}`;
  const tmux = (...a: string[]) => execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
  const t0 = performance.now();
  tmux('new-session', '-d', '-s', 'b', '-x', '80', '-y', '24', '-e', 'TERM=xterm-256color', '-e', 'LANG=C.UTF-8', command);
  let ms = NaN;
  for (let i = 0; i < 2000; i++) {
    if (tmux('capture-pane', '-p', '-t', 'b').includes(expect)) {
      ms = performance.now() - t0;
      break;
    }
    spawnSync('sleep', ['0.005']);
  }
  spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  return ms;
}

export function tuiBench(lines: string[]): void {
  if (spawnSync('tmux', ['-V']).status !== 0) {
    lines.push('## Control room: first frame', '', 'tmux is not installed: skipped', '');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'checkroom-tui-'));
  cpSync(join(REPO, 'demo-workspace'), dir, { recursive: true });
  const base: number[] = [];
  const ours: number[] = [];
  for (let i = 0; i < 5; i++) {
    base.push(firstOutputMs(`${process.execPath} -e "console.log('ready'); setTimeout(() => {}, 5000)"`, 'ready'));
    ours.push(firstOutputMs(`${process.execPath} ${CLI} ${dir} --readonly`, 'Progress'));
  }
  rmSync(dir, { recursive: true, force: true });
  lines.push('## Control room: first frame (tmux 80×24, demo workspace, median of 5)', '');
  lines.push('| bare node prints a line | checkroom first frame | ratio |', '|---:|---:|---:|');
  lines.push(`| ${median(base).toFixed(0)} ms | ${median(ours).toFixed(0)} ms | ${(median(ours) / median(base)).toFixed(2)} |`, '');
}
