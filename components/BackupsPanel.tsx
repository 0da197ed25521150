import { Box } from 'ink';
import { sanitizeLine } from '../src/sanitize.js';
import { fit, pad } from '../src/cli/text.js';
import { formatAge } from '../src/recover/render.js';
import { useAppStore } from '../hooks/use-app-store.js';
import { useWindow } from '../hooks/use-window.js';
import { Line, T } from './Styled.js';
import { OverlayKeys } from './OverlayKeys.js';

// Every backup of one file (DOMAIN.md section 4: `file.bak.{timestamp}`), newest first: age,
// size, a one-line diff against the current file; below, the selected backup's diff hunks
// (`-` the backup, `+` the current file). Enter restores it after a confirmation; the
// current file is backed up first, so both versions survive.

const size = (n: number): string => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`);

export function BackupsPanel({ height, width }: { height: number; width: number }) {
  const b = useAppStore((s) => s.recovery.backups);
  const listRoom = Math.max(1, Math.min(b?.rows.length ?? 1, Math.floor((height - 4) / 2)));
  const win = useWindow(b?.cursor ?? 0, listRoom, b?.rows.length ?? 0);
  if (!b) return null;
  const diffRoom = Math.max(1, height - 4 - listRoom);
  const hunks = b.hunks ?? [];
  const start = Math.min(b.offset, Math.max(0, hunks.length - diffRoom));
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok="title">{fit(`Backups of ${sanitizeLine(b.file)}`, width - 14)}</T>
        <T tok="muted">{` ${b.rows.length} found`}</T>
      </Line>
      {b.rows.length === 0 ? <Line tok="muted">{fit(sanitizeLine(b.note ?? 'no backups'), width)}</Line> : null}
      {b.rows.slice(win.start, win.end).map((r, i) => {
        const here = win.start + i === b.cursor;
        const name = sanitizeLine(r.path.slice(b.file.length + 1) || r.path);
        return (
          <Line key={r.path}>
            <T tok={here ? 'accent' : undefined}>{here ? '› ' : '  '}</T>
            {pad(fit(name, 22), 22)} {pad(formatAge(r.ageMs), 12)} {pad(size(r.bytes), 9)}
            <T tok="muted">{fit(sanitizeLine(r.summary), Math.max(10, width - 48))}</T>
          </Line>
        );
      })}
      <Line tok="muted">{b.rows.length ? fit(`── diff: - the backup, + the current file${hunks.length > diffRoom ? ` · ${start + 1}-${Math.min(hunks.length, start + diffRoom)}/${hunks.length} PgUp/PgDn` : ''} ──`, width) : ' '}</Line>
      {b.rows.length && b.hunks === null ? <Line tok="muted">computing the diff…</Line> : null}
      {hunks.slice(start, start + diffRoom).map((h, i) => (
        <Line key={i} tok={h.startsWith('+') ? 'ok' : h.startsWith('-') ? 'fail' : h.startsWith('@@') ? 'accent' : undefined}>
          {fit(h, width) || ' '}
        </Line>
      ))}
      <Box flexGrow={1} />
      <OverlayKeys scope="backups" width={width} extra="j/k select" />
    </Box>
  );
}
