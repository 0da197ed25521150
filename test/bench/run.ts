import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { scanBench } from './scan-bench.js';
import { liveBench } from './live-bench.js';
import { spawnBench } from './spawn-bench.js';
import { tuiBench } from './tui-bench.js';
import { ledgerBench } from './ledger-bench.js';
import { historyBench } from './history-bench.js';
import { paintBench } from './paint-bench.js';
import { socketBench } from './socket-bench.js';
import { agentsBench } from './agents-bench.js';
import { goalsTable } from './goals.js';
import { statBench } from './stat-bench.js';
import { patternBench } from './pattern-bench.js';
import { screenBench } from './screen-bench.js';
import { termBench } from './term-bench.js';
import { arraysBench } from './arrays-bench.js';

// `npm run bench`: every figure next to a baseline measured on the same machine in the
// same run; ratios are what we track. Workspaces are cached under $CHECKROOM_BENCH_DIR
// (default: the OS temp dir) between runs.

const base = process.env.CHECKROOM_BENCH_DIR ?? join(tmpdir(), 'checkroom-bench');
mkdirSync(base, { recursive: true });
const sizes = (process.env.CHECKROOM_BENCH_SIZES ?? '1000,10000,50000,100000').split(',').map(Number);
const lines: string[] = [`# checkroom bench — ${new Date().toISOString()} — node ${process.version}`, ''];
const only = process.env.CHECKROOM_BENCH_ONLY ?? 'scan,live,screen,spawn,tui,paint,term,ledger,history,socket';
if (only.includes('scan') || only.includes('status')) scanBench(base, sizes, lines);
if (only.includes('live')) await liveBench(base, sizes, lines);
// Issue 18 item 6: marker → screen in a real terminal, at 1k, 50k and 100k unless told.
const screenSizes = (process.env.CHECKROOM_BENCH_SCREEN_SIZES ?? '1000,50000,100000').split(',').map(Number);
if (only.includes('screen')) await screenBench(base, screenSizes, lines);
if (only.includes('spawn')) await spawnBench(lines);
if (only.includes('tui')) tuiBench(lines);
if (only.includes('paint')) paintBench(lines);
// Our terminal model against @xterm/headless on recorded frames (docs/decisions/terminal-model.md).
if (only.includes('term')) termBench(lines);
// The socket's goal is set at 50k (issue 10); smaller sizes show how it grows.
if (only.includes('socket')) await socketBench(base, sizes, lines);
if (only.includes('agents') || process.env.CHECKROOM_BENCH_ONLY === undefined) agentsBench(lines);
if (only.includes('ledger')) ledgerBench(lines, [1_000, 5_000, 20_000, 50_000]);
// The History view's journal: read and folded once, then line by line (issue 20).
if (only.includes('history')) await historyBench(lines, [10_000, 100_000]);
// Only when named: the stat variants behind the warm `status --json` (issue 10 item 2).
if (only.split(',').includes('stat')) statBench(base, sizes.at(-1) ?? 50_000, lines);
// Only when named: what the V8 fast path for proven config patterns is worth (issue 16 item 3).
if (only.split(',').includes('pattern')) await patternBench(base, sizes.at(-1) ?? 50_000, lines);
// Only when named: 2,000 cells through a real one-node Slurm, arrays against one job per attempt (issue 22 item 3).
if (only.split(',').includes('arrays')) await arraysBench(lines);
lines.push(...goalsTable());
console.log(lines.join('\n'));
