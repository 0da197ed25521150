import { Box } from 'ink';
import { fit, pad } from '../../src/text/layout.js';
import { helpRows } from '../../src/ui/keys/keymap.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { Line, T } from '../Styled.js';

// `?`: every command of the key table, where it applies, and which ones write. Scrolls
// with j/k when the terminal is short.

export function HelpOverlay({ height, width }: { height: number; width: number }) {
  const readonly = useAppStore((s) => s.readonly);
  const offset = useAppStore((s) => s.help.offset);
  const rows = helpRows(readonly);
  const room = Math.max(1, height - 1);
  const start = Math.min(offset, Math.max(0, rows.length - room));
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok="title">Keys</T>
        <T tok="muted">{` ${start + 1}-${Math.min(rows.length, start + room)}/${rows.length} · j/k scroll · esc or ? closes${readonly ? ' · read-only: actions that write are disabled' : ''}`}</T>
      </Line>
      {rows.slice(start, start + room).map((r, i) => {
        const where = `${r.where}${r.disabled ? ' · disabled (read-only)' : r.writes ? ' · writes, confirms' : ''}`;
        const descW = Math.max(10, width - 11 - where.length - 2);
        return (
          <Line key={i} tok={r.disabled ? 'muted' : undefined}>
            <T tok="accent">{pad(r.keys, 11)}</T>
            {pad(fit(r.description, descW), descW)}
            <T tok={r.writes ? 'warn' : 'muted'}>{`  ${where}`}</T>
          </Line>
        );
      })}
    </Box>
  );
}
