import { Children, isValidElement, type ReactNode } from 'react';
import { Text } from 'ink';
import stringWidth from 'string-width';
import type { Token } from '../src/text/theme.js';
import { shownLine } from '../src/text/charset.js';
import { useTheme } from '../hooks/use-theme.js';

// Text through the theme's semantic tokens; `Line` is one terminal row that never wraps
// (a wrapped row would make the frame taller than the terminal).
//
// The render edge (sanitize once where text is drawn): this is the only
// module that may use Ink's `Text` (eslint.config.js), and every string child it draws goes
// through `sanitizeLine` (src/text/sanitize.ts), so a file name, reason, log line or agent output
// cannot reach the terminal raw, whichever view draws it. Components pass raw text; the
// layout helpers (src/text/layout.ts) measure the same escaped form, and escaping twice
// changes nothing, so text they already cut passes unchanged. Nested elements are T or
// Line themselves and escape their own strings; text inside a fragment would bypass this,
// which the lint forbids in components.
//
// The same edge puts every string in the terminal's charset (shownLine,
// src/text/charset.ts: `--ascii`, TERM=linux, LANG=C), so no view can send `·` or `…` there.

const drawn = (children: ReactNode): ReactNode => Children.map(children, (c) => (typeof c === 'string' ? shownLine(c) : c));

/** `inverse`: reverse video whatever the theme (a search hit must show under NO_COLOR too, like the selected row). */
export function T({ tok, inverse, children }: { tok?: Token; inverse?: boolean; children: ReactNode }) {
  const theme = useTheme();
  return (
    <Text {...(tok ? theme[tok] : {})} {...(inverse ? { inverse: true } : {})}>
      {drawn(children)}
    </Text>
  );
}

/** The text a row draws, escaped as drawn: its strings and those of the T and Line inside it. */
const textOf = (n: ReactNode): string =>
  typeof n === 'string' || typeof n === 'number'
    ? shownLine(String(n))
    : Array.isArray(n)
      ? n.map(textOf).join('')
      : isValidElement<{ children?: ReactNode }>(n)
        ? textOf(n.props.children)
        : '';

/** How many columns a row's content takes once drawn (for a selected row's fill). */
export const rowWidth = (children: ReactNode): number => stringWidth(textOf(children));

/**
 * `selected`: the list's cursor row, in reverse video across `width` columns
 * (a one-column `›` was the only mark, and nothing at all under NO_COLOR). Reverse video is not
 * a colour, so it is drawn under NO_COLOR too (no-color.org asks only that colour go); the
 * row is padded to its width so the bar spans the row whatever its text.
 */
export function Line({ tok, selected, width, children }: { tok?: Token; selected?: boolean; width?: number; children?: ReactNode }) {
  const theme = useTheme();
  const fill = selected && width !== undefined ? ' '.repeat(Math.max(0, width - rowWidth(children))) : '';
  return (
    <Text wrap="truncate" {...(tok ? theme[tok] : {})} {...(selected ? { inverse: true } : {})}>
      {drawn(children ?? ' ')}
      {fill}
    </Text>
  );
}
