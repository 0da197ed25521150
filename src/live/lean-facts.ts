import type { FileFacts } from '../types.js';

// What the long-lived live model keeps of a file it read (control room RSS at
// 50k ≤ 150 MB). A heap snapshot at 50k files showed ~16 MB in the tails of the ~4,600
// unmarked files (up to 3 KB each, two bytes a character for CJK prose), kept for the
// rest of the session. Their verdict reads only the last non-blank line again (triage.ts:
// `lastLines(tail).at(-1)` and `cutSign`), so that line is all that stays.

/** `facts.tail` cut to its last non-blank line (and what follows it): the same verdict, a fraction of the bytes. */
export function keepLastLine(facts: FileFacts): FileFacts {
  const tail = facts.tail;
  if (tail.length < 160) return facts;
  const start = tail.trimEnd().lastIndexOf('\n') + 1;
  // A copy: V8's slice would be a view that keeps the whole tail alive.
  if (start > 0) facts.tail = Buffer.from(tail.slice(start), 'utf8').toString('utf8');
  return facts;
}

export function keepLastLines(files: Map<string, FileFacts>): void {
  for (const f of files.values()) keepLastLine(f);
}
