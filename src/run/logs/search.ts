import type { SafePattern } from '../../pipeline/safe-pattern.js';
import { readableLine } from './event.js';
import type { LogIndex } from './line-index.js';

// Searching one log (docs/logs.md, "Search"): the pattern is the operator's, compiled by
// safe-pattern.ts (RE2, linear time), run on each line read in windows of WINDOW lines, so a
// search of a 200 MB log holds one window in memory. A line matches when its raw text or its
// readable form does: `429` finds the API error whether or not the pager shows it raw.

const WINDOW = 512;

export const lineMatches = (p: SafePattern, raw: string): boolean => p.test(raw) || p.test(readableLine(raw).text);

/** The first line at or after `from` (dir 1) or at or before it (dir -1) that `test` accepts, or null. */
export function findLine(index: LogIndex, test: (raw: string) => boolean, from: number, dir: 1 | -1): number | null {
  if (dir === 1) {
    for (let at = Math.max(0, from); ; at += WINDOW) {
      const lines = index.read(at, WINDOW);
      const hit = lines.findIndex(test);
      if (hit >= 0) return at + hit;
      if (lines.length < WINDOW) return null;
    }
  }
  const last = Math.min(from, index.ensureAll() - 1);
  for (let end = last + 1; end > 0; end -= WINDOW) {
    const start = Math.max(0, end - WINDOW);
    const lines = index.read(start, end - start);
    for (let i = lines.length - 1; i >= 0; i--) if (test(lines[i]!)) return start + i;
  }
  return null;
}

/**
 * findLine that looks at no more than `maxLines` lines: `stopped` is the line it would go on
 * from (null when it reached the log's end). The pager searches a huge log a slice per key,
 * so a search that finds nothing never freezes the screen (docs/logs.md, "The pager").
 */
export function findLineWithin(index: LogIndex, test: (raw: string) => boolean, from: number, dir: 1 | -1, maxLines: number): { line: number | null; stopped: number | null } {
  let seen = 0;
  let stopped: number | null = null;
  const line = findLine(
    index,
    (raw) => {
      if (stopped !== null) return true;
      if (seen++ >= maxLines) {
        stopped = from + dir * (seen - 1);
        return true;
      }
      return test(raw);
    },
    from,
    dir,
  );
  return stopped !== null ? { line: null, stopped } : { line, stopped: null };
}

/** Every matching line number (capped at `max`), in order. */
export function allMatches(index: LogIndex, test: (raw: string) => boolean, max = 10_000): number[] {
  const out: number[] = [];
  for (let at = 0; out.length < max; at += WINDOW) {
    const lines = index.read(at, WINDOW);
    lines.forEach((l, i) => {
      if (out.length < max && test(l)) out.push(at + i);
    });
    if (lines.length < WINDOW) break;
  }
  return out;
}

/**
 * The line to jump to for "the error": the line the classifier blamed (the exit's one-line
 * error quotes it for a plain agent, or names the API error a stream's result carries), else
 * the last line that reads as an error. null when there is none.
 */
export function errorLine(index: LogIndex, classified: string): number | null {
  const end = index.ensureAll() - 1;
  const quoted = classified.replace(/ \((?:exit \d+|killed by \w+|ended)\)$/, '').trim();
  if (quoted.length >= 4) {
    const blamed = findLine(index, (raw) => raw.includes(quoted) || readableLine(raw).text.includes(quoted), end, -1);
    if (blamed !== null) return blamed;
  }
  // A plain line reads as an error by its words (ERRORISH), a JSON event by what it is.
  return findLine(index, (raw) => readableLine(raw).kind === 'error', end, -1);
}
