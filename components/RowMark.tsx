import { T } from './Styled.js';

// A list row's first two columns: the cursor, then the mark (docs/marks.md). The mark is a
// `*`, plain ASCII, so it reads under --ascii and NO_COLOR alike, not by colour alone. A T
// element, not a component of its own: a selected row measures its text through its
// children's T (Styled.tsx, rowWidth), and a component's props would hide these two columns.

export const rowMark = (here: boolean, marked: boolean) => <T tok={here || marked ? 'accent' : undefined}>{`${here ? '›' : ' '}${marked ? '*' : ' '}`}</T>;
