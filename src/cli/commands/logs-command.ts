import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Cli } from '../args.js';
import { UsageError } from '../args.js';
import type { TextOptions } from '../../text/layout.js';
import type { Out } from './core-commands.js';
import { readJournal } from '../../run/journal/journal.js';
import { attemptLogs, cellAttempts, pickAttempt, type AttemptLog } from '../../run/logs/attempts.js';
import { openAttemptLog } from '../../run/logs/open.js';
import { readableLine, rawLine } from '../../run/logs/event.js';
import { lineMatches } from '../../run/logs/search.js';
import type { LogIndex } from '../../run/logs/line-index.js';
import { compilePattern, PatternError, type SafePattern } from '../../pipeline/safe-pattern.js';
import { sanitizeLine } from '../../text/sanitize.js';

// `checkroom logs` (docs/logs.md, "From the shell"): one attempt's log, readable or raw,
// filtered by a pattern or followed; or one pattern across every attempt's log. Logs are read
// in windows (LogIndex), so a 200 MB log streams through in bounded memory. Exit codes: 0
// printed (or matched), 1 nothing matched or the log is gone, 2 bad usage (unknown cell or
// attempt, a pattern RE2 refuses).

const WINDOW = 2000;
const FOLLOW_MS = 250;

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const patternOf = (src: string | null): SafePattern | null => {
  if (src === null) return null;
  try {
    return compilePattern(src);
  } catch (err) {
    if (err instanceof PatternError) throw new UsageError(`--grep "${sanitizeLine(src)}": ${err.reason}`);
    throw err;
  }
};

const show = (raw: string, asRaw: boolean): string => (asRaw ? rawLine(raw) : readableLine(raw).text);

/** Print lines [from, end of what is indexed) matching `p` (all when null); returns the next line and the count printed. */
function printFrom(index: LogIndex, from: number, p: SafePattern | null, asRaw: boolean, write: (n: number, text: string) => void): { next: number; printed: number } {
  let at = from;
  let printed = 0;
  for (;;) {
    const lines = index.read(at, WINDOW);
    lines.forEach((raw, i) => {
      if (p && !lineMatches(p, raw)) return;
      write(at + i + 1, show(raw, asRaw));
      printed++;
    });
    at += lines.length;
    if (lines.length < WINDOW) return { next: at, printed };
  }
}

const attemptWords = (a: AttemptLog, of: number): string =>
  `${a.unit} ${a.step} · attempt ${a.attempt} (${of} in the journal) · agent ${a.agent} · ${a.live ? 'running' : (a.class ?? 'ended')}`;

export async function logsCommand(cli: Cli, o: TextOptions, out: Out): Promise<number> {
  const pos = [...cli.positionals];
  const dir = (pos.length === 3 || (pos.length === 1 && cli.grep !== null)) && isDir(pos[0]!) ? pos.shift()! : '.';
  const root = resolve(dir);
  if (!isDir(root)) throw new UsageError(`"${dir}" is not a directory`);
  const p = patternOf(cli.grep);
  const { events } = await readJournal(root);
  const all = attemptLogs(events, root);
  if (pos.length === 0) {
    if (!p) throw new UsageError('usage: checkroom logs [dir] <unit> <step> [--attempt N] [--grep RE] [--follow] [--raw]  or  checkroom logs [dir] --grep RE');
    if (cli.follow || cli.attempt !== null) throw new UsageError('--follow and --attempt go with <unit> <step>');
    return searchAll(root, all, p, cli.raw, o, out);
  }
  if (pos.length !== 2) throw new UsageError(`expected <unit> <step>, got ${pos.length} argument${pos.length === 1 ? '' : 's'} (checkroom logs --help)`);
  const [unit, step] = pos as [string, string];
  const attempts = cellAttempts(all, unit, step);
  if (attempts.length === 0) throw new UsageError(`no attempt of ${sanitizeLine(`${unit} ${step}`)} in the journal (.checkroom/journal.jsonl): nothing was launched for it here`);
  const a = pickAttempt(attempts, cli.attempt);
  if (!a) throw new UsageError(`${sanitizeLine(`${unit} ${step}`)} has no attempt ${cli.attempt}; the journal has ${attempts.map((x) => x.attempt).join(', ')}`);
  const opened = openAttemptLog(root, a, prunedAt(events, a.runId));
  if ('error' in opened) {
    out.write(`${o.paint('fail', 'no log')}: ${opened.error}\n`);
    return 1;
  }
  out.write(o.paint('muted', `── ${attemptWords(a, attempts.length)} · ${opened.rel}`) + '\n');
  const write = (n: number, text: string): void => out.write(p ? `${o.paint('muted', `${n}:`)} ${text}\n` : `${text}\n`);
  let { next, printed } = printFrom(opened.index, 0, p, cli.raw, write);
  if (cli.follow) {
    let live = a.live;
    for (let tick = 0; live || opened.index.refresh(); tick++) {
      await sleep(FOLLOW_MS);
      opened.index.refresh();
      const r = printFrom(opened.index, next, p, cli.raw, write);
      next = r.next;
      printed += r.printed;
      // The journal says when the run ends; looked at every few polls, not on each.
      if (live && tick % 4 === 3) live = pickAttempt(cellAttempts(attemptLogs((await readJournal(root)).events, root), unit, step), a.attempt)?.live ?? false;
    }
  }
  return p && printed === 0 ? 1 : 0;
}

const prunedAt = (events: Awaited<ReturnType<typeof readJournal>>['events'], runId: string): number | undefined =>
  events.find((e) => e.type === 'log_pruned' && e.runId === runId)?.at;

function searchAll(root: string, all: AttemptLog[], p: SafePattern, asRaw: boolean, o: TextOptions, out: Out): number {
  let printed = 0;
  let missing = 0;
  for (const a of all) {
    if (a.pruned) continue;
    const opened = openAttemptLog(root, a);
    if ('error' in opened) {
      missing++;
      continue;
    }
    const where = `${a.unit} ${a.step} a${a.attempt}`;
    printed += printFrom(opened.index, 0, p, asRaw, (n, text) => out.write(`${o.paint('accent', where)} ${o.paint('muted', `${n}:`)} ${text}\n`)).printed;
  }
  const pruned = all.filter((a) => a.pruned).length;
  const note = [pruned ? `${pruned} pruned by the disk budget` : '', missing ? `${missing} missing or unreadable` : ''].filter(Boolean).join(', ');
  out.write(o.paint('muted', `── ${printed} matching line${printed === 1 ? '' : 's'} in ${all.length - pruned - missing} log${all.length - pruned - missing === 1 ? '' : 's'}${note ? ` (${note})` : ''}`) + '\n');
  return printed === 0 ? 1 : 0;
}
