// How a marked-set action reads (docs/marks.md): what was refused and why, in the
// preview and in the result, one item each.

export interface Refused {
  /** The item: a path, or a cell as "unit step". */
  what: string;
  why: string;
}

/** "path: why", the item said once when the reason already begins with it (a held file's reason names its path). */
export const refusalWords = (r: Refused): string => (r.why.startsWith(r.what) ? r.why : `${r.what}: ${r.why}`);

/** The preview's lines for the refused items, after the ones that will be done. */
export const refusedLines = (refused: readonly Refused[]): string[] => refused.map((r) => `refused: ${refusalWords(r)}`);

/** The result in one line: what was done to which, then the refusals, those with the same reason together. */
export function resultWords(verb: string, done: readonly string[], refused: readonly Refused[]): string {
  const did = done.length ? `${verb} ${done.join(', ')}` : `nothing ${verb === 'skipped' ? 'skipped' : 'done'}`;
  const byWhy = new Map<string, string[]>();
  for (const r of refused) {
    // A reason that names its item says the rest: "is being written by pid 7 (sh)…".
    const why = r.why.startsWith(r.what) ? r.why.slice(r.what.length).replace(/^[\s:]+/, '') : r.why;
    byWhy.set(why, [...(byWhy.get(why) ?? []), r.what]);
  }
  return [did, ...[...byWhy].map(([why, what]) => `refused ${what.join(', ')} (${why})`)].join('; ');
}
