import stringWidth from 'string-width';
// The drawn form, in the terminal's charset (issue 18 item 5): the width measured here is the
// width drawn under `--ascii` and LANG=C too, where a name may be escaped (`\u4e66`).
import { shownLine as sanitizeLine } from '../charset.js';

// Wrap one line into rows of at most `width` columns (by display width, so CJK and emoji
// count double), at a space when there is one, else mid-word (long paths). Continuation
// rows are indented. Used where truncation would hide what matters: the file names in a
// confirmation. Like the other layout helpers (layout.ts) it wraps the text's display form,
// escaped once here (issue 9 item 4), so the rows it measures are the rows drawn.

export function wrapLine(text: string, width: number, indent = 4): string[] {
  const w = Math.max(indent + 8, width);
  const rows: string[] = [];
  let rest = sanitizeLine(text);
  while (rest !== '') {
    const room = rows.length ? w - indent : w;
    if (stringWidth(rest) <= room) {
      rows.push(rest);
      break;
    }
    let cut = 0;
    let used = 0;
    for (const ch of rest) {
      const cw = stringWidth(ch);
      if (used + cw > room) break;
      used += cw;
      cut += ch.length;
    }
    const space = rest.lastIndexOf(' ', cut);
    const at = space > room / 2 ? space : cut;
    rows.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  return rows.map((r, i) => (i === 0 ? r : ' '.repeat(indent) + r));
}
