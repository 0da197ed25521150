import { T } from './Styled.js';

// A list row's first two columns: the cursor, then the mark (docs/marks.md). The mark
// is a `*`, plain ASCII, so it reads under --ascii and NO_COLOR alike, not by colour alone.

export function RowMark({ here, marked }: { here: boolean; marked: boolean }) {
  return <T tok={here || marked ? 'accent' : undefined}>{`${here ? '›' : ' '}${marked ? '*' : ' '}`}</T>;
}
