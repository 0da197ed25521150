// A redone unit's long-memory entry leaves the shared file (docs/redo.md, What applying does):
// the file is copied first and the other units' entries stay, so the entry step is not done
// any more and its agent writes the entry anew. An entry is a heading naming the unit as a
// word (scan.ts readEntries) and everything under it down to the next heading of its level or
// higher. Pure; no pattern is compiled from workspace text.

const HEADING = /^(#{1,6})\s/;
const WORD = /[A-Za-z0-9_]/;

/** The heading's level, or 0 for a line that is not one. */
const levelOf = (line: string): number => HEADING.exec(line)?.[1].length ?? 0;

/** `unit` appears in `line` as a whole word. */
export function namesUnit(line: string, unit: string): boolean {
  for (let i = line.indexOf(unit); i >= 0; i = line.indexOf(unit, i + 1)) {
    const before = i === 0 ? '' : line[i - 1];
    const after = line[i + unit.length] ?? '';
    if (!WORD.test(before) && !WORD.test(after)) return true;
  }
  return false;
}

/** `text` without the entries of `units`; `removed` counts the headings taken out. */
export function withoutEntries(text: string, units: readonly string[]): { text: string; removed: number } {
  const lines = text.split('\n');
  const kept: string[] = [];
  let skipping = 0;
  let removed = 0;
  for (const line of lines) {
    const level = levelOf(line);
    if (skipping && level > 0 && level <= skipping) skipping = 0;
    if (!skipping && level > 0 && units.some((u) => namesUnit(line, u))) {
      skipping = level;
      removed++;
    }
    if (!skipping) kept.push(line);
  }
  return { text: kept.join('\n'), removed };
}
