// How a marked-set action reads (docs/keys.md, Marks): what was refused and why, in the
// preview and in the result, one item each.

export interface Refused {
  /** The item: a path, or a cell as "unit step". */
  what: string;
  why: string;
}

/** The preview's lines for the refused items, after the ones that will be done. */
export const refusedLines = (refused: readonly Refused[]): string[] => refused.map((r) => `refused: ${r.what}: ${r.why}`);

/** The result in one line: what was done to which, then each refusal. */
export function resultWords(verb: string, done: readonly string[], refused: readonly Refused[]): string {
  const did = done.length ? `${verb} ${done.join(', ')}` : `nothing ${verb === 'skipped' ? 'skipped' : 'done'}`;
  const not = refused.map((r) => `refused ${r.what} (${r.why})`);
  return [did, ...not].join('; ');
}
