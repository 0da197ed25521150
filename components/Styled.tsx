import { Children, type ReactNode } from 'react';
import { Text } from 'ink';
import type { Token } from '../src/app/theme.js';
import { shownLine } from '../src/charset.js';
import { useTheme } from '../hooks/use-theme.js';

// Text through the theme's semantic tokens; `Line` is one terminal row that never wraps
// (a wrapped row would make the frame taller than the terminal).
//
// The render edge (issue 9 item 4, sanitize once where text is drawn): this is the only
// module that may use Ink's `Text` (eslint.config.js), and every string child it draws goes
// through `sanitizeLine` (src/sanitize.ts), so a file name, reason, log line or agent output
// cannot reach the terminal raw, whichever view draws it. Components pass raw text; the
// layout helpers (src/app/layout.ts) measure the same escaped form, and escaping twice
// changes nothing, so text they already cut passes unchanged. Nested elements are T or
// Line themselves and escape their own strings; text inside a fragment would bypass this,
// which the lint forbids in components.
//
// Issue 18 item 5: the same edge puts every string in the terminal's charset (shownLine,
// src/charset.ts: `--ascii`, TERM=linux, LANG=C), so no view can send `·` or `…` there.

const drawn = (children: ReactNode): ReactNode => Children.map(children, (c) => (typeof c === 'string' ? shownLine(c) : c));

export function T({ tok, children }: { tok?: Token; children: ReactNode }) {
  const theme = useTheme();
  return <Text {...(tok ? theme[tok] : {})}>{drawn(children)}</Text>;
}

export function Line({ tok, children }: { tok?: Token; children?: ReactNode }) {
  const theme = useTheme();
  return (
    <Text wrap="truncate" {...(tok ? theme[tok] : {})}>
      {drawn(children ?? ' ')}
    </Text>
  );
}
