// The backup and the current file side by side (docs/redo.md, After a redo): left the backup,
// right the current file, drawn from the unified hunks diff.ts made (already sanitized), so
// both views say the same. Pure. Too narrow for two readable columns, it says so and the
// panel keeps the unified view.

/** One row: `head` an `@@` line or a note across the width; `pair` a line on each side. */
export type SideRow =
  | { kind: 'head'; text: string }
  | { kind: 'pair'; left: string | null; right: string | null; changed: boolean };

/** Below this a column cannot show a line worth reading. */
export const MIN_SIDE_COLUMN = 24;

/** The column width for a panel `width` wide (two columns, a 3-character gutter), or null when too narrow. */
export const sideColumn = (width: number): number | null => {
  const w = Math.floor((width - 3) / 2);
  return w >= MIN_SIDE_COLUMN ? w : null;
};

/** Unified hunks (`@@`, ` `, `-`, `+`, notes) as side-by-side rows: a run of removals pairs with the additions after it, row by row. */
export function sideBySide(hunks: readonly string[]): SideRow[] {
  const out: SideRow[] = [];
  let minus: string[] = [];
  let plus: string[] = [];
  const flush = (): void => {
    for (let i = 0; i < Math.max(minus.length, plus.length); i++) out.push({ kind: 'pair', left: minus[i] ?? null, right: plus[i] ?? null, changed: true });
    minus = [];
    plus = [];
  };
  for (const h of hunks) {
    const k = h[0];
    if (k === '-') {
      if (plus.length) flush();
      minus.push(h.slice(1));
    } else if (k === '+') plus.push(h.slice(1));
    else {
      flush();
      if (k === ' ') out.push({ kind: 'pair', left: h.slice(1), right: h.slice(1), changed: false });
      else out.push({ kind: 'head', text: h });
    }
  }
  flush();
  return out;
}
