import { mkdtempSync, appendFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JournalTail } from '../../src/history/journal-tail.js';
import { HistoryFold } from '../../src/history/timeline.js';
import { filterRows } from '../../src/history/filter.js';
import { pastCells } from '../../src/history/past.js';
import { bookJournal } from './ledger-bench.js';
import { median } from './measure.js';

// What History costs on a long journal (docs/history.md, Performance): the first read and fold
// (once per control room), one appended line read and folded (every second while the journal
// grows) against reading and folding the whole journal again (what it avoids), a `/` filter
// over every row, and one moment of time travel rebuilt from the events.

const timedAsync = async (f: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
};
const timed = (f: () => void): number => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};

export async function historyBench(lines: string[], sizes = [10_000, 100_000]): Promise<void> {
  lines.push('## History on a long journal (median of 5; ratios are what we track)', '');
  lines.push(
    '| journal events | first read + fold (what reading it all again costs) | one appended line | again / appended | `/` filter, all rows | one moment (time travel) |',
  );
  lines.push('|---:|---:|---:|---:|---:|---:|');
  for (const n of sizes) {
    const events = bookJournal(n + 10);
    const root = mkdtempSync(join(tmpdir(), 'checkroom-history-bench-'));
    mkdirSync(join(root, '.checkroom'));
    const file = join(root, '.checkroom', 'journal.jsonl');
    writeFileSync(
      file,
      events
        .slice(0, n)
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
    const firsts: number[] = [];
    let tail = new JournalTail(root);
    let fold = new HistoryFold();
    let read: Awaited<ReturnType<JournalTail['read']>> = { events: [], warnings: [], restarted: false };
    for (let i = 0; i < 5; i++) {
      tail = new JournalTail(root);
      fold = new HistoryFold();
      firsts.push(await timedAsync(async () => fold.apply((read = await tail.read()).events)));
    }
    const appended: number[] = [];
    for (const e of events.slice(n, n + 5)) {
      appendFileSync(file, JSON.stringify(e) + '\n');
      appended.push(await timedAsync(async () => fold.apply((await tail.read()).events)));
    }
    const again = median(firsts);
    const inc = median(appended);
    const filter = median(Array.from({ length: 5 }, (_, i) => timed(() => filterRows(fold.rows, { text: `ch0${i}` }))));
    const moment = median(Array.from({ length: 5 }, () => timed(() => pastCells(read.events, events[Math.floor(n / 2)].at))));
    lines.push(`| ${n} | ${again.toFixed(0)} ms | ${inc.toFixed(2)} ms | ${(again / inc).toFixed(0)}× | ${filter.toFixed(1)} ms | ${moment.toFixed(1)} ms |`);
    rmSync(root, { recursive: true, force: true });
  }
  lines.push('');
}

// Runnable alone: node dist/test/bench/history-bench.js [sizes, comma-separated]
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const lines: string[] = [];
  await historyBench(lines, process.argv[2] ? process.argv[2].split(',').map(Number) : undefined);
  console.log(lines.join('\n'));
}
