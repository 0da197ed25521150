import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { anchoredStdout } from '../../src/ui/term/anchored-stdout.js';
import { TermGrid, type ScreenModelOf } from '../../src/ui/term/grid.js';
import { XtermGrid } from './xterm-grid.js';
import { median, pct } from './measure.js';

// Our screen model against @xterm/headless, both under the same cell-diff writer, on the same
// recorded control-room frames (test/fixtures/term-frames, from term-record.ts), with Ink's
// own full redraw as the baseline: bytes per update and latency per update (the writer's
// work for one Ink write: model, diff, bytes out). docs/decisions/terminal-model.md.

const REPO = resolve(import.meta.dirname, '..', '..', '..');
const FRAMES = join(REPO, 'test/fixtures/term-frames');
const PASSES = Number(process.env.CHECKROOM_BENCH_TERM_PASSES ?? 30);

interface Recording {
  cols: number;
  rows: number;
  steps: { name: string; incremental: string[]; full: string[] }[];
}

class Sink extends Writable {
  bytes = 0;
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  isTTY = true;
  _write(chunk: Buffer | string, _enc: string, cb: () => void): void {
    this.bytes += Buffer.byteLength(chunk);
    cb();
  }
}

const MODELS: [string, ScreenModelOf][] = [
  ['ours', (c, h, clip) => new TermGrid(c, h, clip)],
  ['xterm', (c, h, clip) => new XtermGrid(c, h, clip)],
];

const END_SYNC = '\u001b[?2026l';

/** Ink's writes grouped into updates: a frame is three writes (begin sync, body, end sync). */
export function updatesOf(writes: string[]): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  for (const w of writes) {
    cur.push(w);
    if (w.endsWith(END_SYNC)) {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

const WHO = ['full', 'ours', 'xterm', 'ours2'] as const;
type Who = (typeof WHO)[number];

/** A writer fed its stream of the recording: Ink's full frames straight, or the incremental ones through a model. */
function lane(rec: Recording, who: Who): { sink: Sink; out: NodeJS.WriteStream; updates: { step: string; writes: string[] }[] } {
  const sink = new Sink(rec.cols, rec.rows);
  const model = who === 'full' ? null : who === 'xterm' ? MODELS[1]![1] : MODELS[0]![1];
  const out = model ? anchoredStdout(sink as unknown as NodeJS.WriteStream, undefined, model) : (sink as unknown as NodeJS.WriteStream);
  const updates = rec.steps.flatMap((s) => updatesOf(who === 'full' ? s.full : s.incremental).map((writes) => ({ step: s.name, writes })));
  return { sink, out, updates };
}

export interface TermFigures {
  size: string;
  /** Bytes per update after the first paint, by writer ("inc": Ink's incremental frames, raw). */
  bytes: Record<'full' | 'inc' | 'ours' | 'xterm', number>;
  /** Median and p95 microseconds per update, by writer ("ours2" is a second run of ours: the noise). */
  us: Record<Who, [number, number]>;
}

function measure(name: string, rec: Recording, lines: string[]): TermFigures {
  // times[who][update][pass]: every writer takes each update in turn, in an order that
  // alternates, so a moment the machine is busy (2 cores, shared) falls on all of them alike.
  const times = Object.fromEntries(WHO.map((w) => [w, [] as number[][]])) as Record<Who, number[][]>;
  const bytes: Record<string, { step: string; bytes: number }[]> = {};
  let steps: string[] = [];
  for (let p = 0; p < PASSES; p++) {
    const lanes = WHO.map((w) => [w, lane(rec, w)] as const);
    steps = lanes[1]![1].updates.map((u) => u.step);
    const n = Math.min(...lanes.map(([, l]) => l.updates.length));
    for (let i = 0; i < n; i++) {
      for (const [who, l] of (p + i) % 2 === 0 ? lanes : [...lanes].reverse()) {
        const before = l.sink.bytes;
        const t0 = performance.now();
        for (const w of l.updates[i]!.writes) l.out.write(w);
        const us = (performance.now() - t0) * 1000;
        // Pass 0 warms the code up and counts the bytes (the same every pass).
        if (p === 0) (bytes[who] ??= []).push({ step: l.updates[i]!.step, bytes: l.sink.bytes - before });
        else (times[who][i] ??= []).push(us);
      }
    }
  }
  bytes.inc = rec.steps.flatMap((s) => updatesOf(s.incremental).map((u) => ({ step: s.name, bytes: u.reduce((a, w) => a + Buffer.byteLength(w), 0) })));
  const per = (who: string, step?: string): number => {
    const xs = bytes[who]!.filter((x) => (step ? x.step === step : x.step !== 'first'));
    return xs.reduce((a, x) => a + x.bytes, 0) / Math.max(1, xs.length);
  };
  lines.push(`### ${name} (${rec.cols}×${rec.rows}): bytes per update`, '');
  lines.push(
    '| step | updates | Ink full redraw (baseline) | Ink incremental, raw | ours + diff | xterm + diff | ours ÷ full | xterm ÷ ours |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const step of [...rec.steps.map((x) => x.name), undefined]) {
    const n = bytes.ours!.filter((x) => (step ? x.step === step : x.step !== 'first')).length;
    const [f, i, o, x] = [per('full', step), per('inc', step), per('ours', step), per('xterm', step)];
    lines.push(`| ${step ?? '**all but first**'} | ${n} | ${f.toFixed(0)} B | ${i.toFixed(0)} B | ${o.toFixed(0)} B | ${x.toFixed(0)} B | ${(o / f).toFixed(3)} | ${(x / o).toFixed(2)} |`);
  }
  // An update's latency is its median over the passes; the table gives the median and p95 of
  // those over the updates after the first paint.
  const us = (who: Who): [number, number] => {
    const perUpdate = times[who].map((xs, i) => (steps[i] === 'first' ? NaN : median(xs))).filter((x) => !Number.isNaN(x));
    return [median(perUpdate), pct(perUpdate, 95)];
  };
  lines.push('', `### ${name}: latency per update (µs; each update's median over ${PASSES - 1} passes, then median and p95 over the updates; first paint left out)`, '');
  lines.push('| writer | median | p95 | median ÷ ours |', '|---|---:|---:|---:|');
  for (const [who, label] of [
    ['full', 'Ink full redraw (no writer)'],
    ['ours', 'ours + diff'],
    ['ours2', 'ours + diff, again (noise)'],
    ['xterm', 'xterm + diff'],
  ] as [Who, string][]) {
    const [m, p] = us(who);
    lines.push(`| ${label} | ${m.toFixed(1)} | ${p.toFixed(1)} | ${(m / us('ours')[0]).toFixed(2)} |`);
  }
  lines.push('');
  return {
    size: name,
    bytes: { full: per('full'), inc: per('inc'), ours: per('ours'), xterm: per('xterm') },
    us: { full: us('full'), ours: us('ours'), ours2: us('ours2'), xterm: us('xterm') },
  };
}

export function termBench(lines: string[]): TermFigures[] {
  lines.push('## Terminal model: ours against @xterm/headless (recorded control-room frames, same cell-diff writer)', '');
  const figures = ['80x24', '200x60'].map((n) => measure(n, JSON.parse(readFileSync(join(FRAMES, `${n}.json`), 'utf8')) as Recording, lines));
  // The rule of docs/decisions/terminal-model.md: the library takes over only if it is not
  // worse on bytes and its latency is within the noise (ours against ours).
  const noise = Math.max(...figures.map((f) => Math.abs(f.us.ours2[0] / f.us.ours[0] - 1)));
  const verdicts = figures.map((f) => {
    const bytesOk = f.bytes.xterm <= f.bytes.ours;
    const slower = f.us.xterm[0] / f.us.ours[0] - 1;
    return `${f.size}: bytes ${bytesOk ? 'not worse' : 'worse'}; latency ${slower <= noise ? 'within noise' : `${(slower * 100).toFixed(0)}% slower (noise ${(noise * 100).toFixed(0)}%)`}`;
  });
  lines.push(`Verdict: ${verdicts.join(' · ')}`, '');
  return figures;
}
