import { pathToFileURL } from 'node:url';
import type { AttemptClass } from '../../src/run/policy/classify.js';
import type { JournalEvent } from '../../src/run/journal/journal.js';
import { replayJournal } from '../../src/run/journal/ledger-fold.js';
import { LedgerFold } from '../../src/run/journal/ledger-fold.js';
import { median } from './measure.js';

// What one appended event costs the supervisor on a long journal: a full replay (what it did
// before) against folding the one event onto the kept state (ledger-fold.ts), same clock.

const cfg = {
  breaker: { threshold: 3, cooldownMs: 60_000, maxCooldownMs: 600_000 },
  limits: { maxLaunches: 1_000_000, maxConsecutiveFailures: 1_000_000 },
};
const STEPS = ['research', 'draft', 'r1', 'r2', 'r3', 'review', 'panel', 'memory', 'final', 'html'];
const FAILURES: AttemptClass[] = ['RATE_LIMITED', 'UNKNOWN', 'VERIFICATION_FAILED', 'STALLED'];

/** A book-like journal: 100 chapters × 10 steps, launches and exits, some failures with retries. */
export function bookJournal(n: number): JournalEvent[] {
  const events: JournalEvent[] = [];
  let at = 1_700_000_000_000;
  for (let i = 0; events.length < n; i++) {
    at += 1_000;
    if (i % 1_000 === 0) events.push({ v: 1, type: 'session', at, kind: 'start', pid: 1 });
    const unit = `ch${String(i % 100).padStart(3, '0')}`;
    const step = STEPS[Math.floor(i / 100) % STEPS.length];
    const agent = `agent-${step}`;
    const runId = `run-${i}`;
    const cls: AttemptClass = i % 7 === 3 ? FAILURES[i % FAILURES.length] : 'SUCCESS';
    events.push({ v: 1, type: 'launch', at, runId, unit, step, agent, attempt: 1, argv: [agent, unit], cwd: '/w', logPath: `/w/${runId}.log`, pid: i, procStart: i, outputPath: null });
    events.push({
      v: 1, type: 'exit', at: at + 500, runId, unit, step, agent, exitCode: cls === 'SUCCESS' ? 0 : 1, signal: null, class: cls, markerFound: cls === 'SUCCESS',
      cmdFp: `c${i % 5}`, errFp: `e${i % 3}`, keywords: ['error', `k${i % 11}`], errorTail: cls === 'SUCCESS' ? [] : [`${cls} at line ${i}`], durationMs: 500,
    });
    if (cls !== 'SUCCESS') events.push({ v: 1, type: 'retry_scheduled', at: at + 500, unit, step, attempt: 2, delayMs: 2_000, reason: cls });
    if (i % 50 === 0) events.push({ v: 1, type: 'decision', at, kind: 'command_shown', note: `hash-${i}` });
  }
  return events.slice(0, n);
}

const timed = (f: () => void): number => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};

export function ledgerBench(lines: string[], sizes = [20_000]): void {
  lines.push('## Ledger after one more journal event: full replay vs incremental fold (median)', '');
  lines.push('| journal events | full replay | incremental (fold 1 + view) | full / incremental |');
  lines.push('|---:|---:|---:|---:|');
  for (const n of sizes) {
    const extra = 1_000;
    const all = bookJournal(n + extra);
    const base = all.slice(0, n);
    const now = all[n - 1].at;
    for (let i = 0; i < 3; i++) replayJournal(base, now, cfg); // warm up the JIT
    const journals = Array.from({ length: 15 }, (_, i) => all.slice(0, n + 1 + i));
    const full = median(journals.map((events) => timed(() => replayJournal(events, now, cfg))));
    const fold = new LedgerFold(cfg).apply(base);
    fold.at(now);
    const inc = median(all.slice(n).map((e) => timed(() => fold.apply([e]).at(now))));
    lines.push(`| ${n} | ${full.toFixed(2)} ms | ${(inc * 1000).toFixed(1)} µs | ${(full / inc).toFixed(0)}× |`);
  }
  lines.push('');
}

// Runnable alone: node dist/test/bench/ledger-bench.js [sizes, comma-separated]
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const lines: string[] = [];
  ledgerBench(lines, process.argv[2] ? process.argv[2].split(',').map(Number) : undefined);
  console.log(lines.join('\n'));
}
