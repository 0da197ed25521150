import { Box } from 'ink';
import { fitWords } from '../../src/text/layout.js';
import { wrapLine } from '../../src/text/wrap.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { Line, T } from '../Styled.js';

// Before anything is moved or written: exactly which files change and how. The dialog owns
// the keyboard while open (y/Enter confirms, n/Esc cancels; ctrl-c still quits).

export function ConfirmDialog({ height, width }: { height: number; width: number }) {
  const dialog = useAppStore((s) => s.dialog);
  if (!dialog) return null;
  // Lines wrap instead of being cut: every file name must be readable in full, so rows break
  // between words and after a path's `/`, never inside a name (wrap.ts).
  const rows = dialog.lines.flatMap((l) => wrapLine(`  ${l}`, width));
  const room = Math.max(1, height - 3);
  const over = rows.length > room;
  // A long preview (a redo's every file) scrolls with j/k: the row kept for the note says where.
  const top = over ? Math.min(dialog.offset ?? 0, rows.length - (room - 1)) : 0;
  const shown = over ? rows.slice(top, top + room - 1) : rows;
  const below = rows.length - top - shown.length;
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok="danger">Confirm: </T>
        <T tok="title">{fitWords(dialog.title, width - 10)}</T>
      </Line>
      {shown.map((l, i) => (
        <Line key={i}>{l}</Line>
      ))}
      {over ? <Line tok="muted">{`  rows ${top + 1}-${top + shown.length} of ${rows.length}${below > 0 ? `: … and ${below} more rows` : ''} (j/k scroll)`}</Line> : null}
      <Line> </Line>
      <Line>
        <T tok="accent">y</T>/enter: do it · <T tok="accent">n</T>/esc: cancel, nothing changes
      </Line>
    </Box>
  );
}
