import { Box } from 'ink';
import { columnWidth, fit, fitPath, pad } from '../../src/text/layout.js';
import { formatAge } from '../../src/recover/render.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { useWindow } from '../../hooks/use-window.js';
import { Line, T } from '../Styled.js';
import { OverlayKeys } from './OverlayKeys.js';
import { MIN_SIDE_COLUMN, sideBySide, sideColumn, type SideRow } from '../../src/backups/side-by-side.js';

/** The diff in two columns: `-` marks a line only the backup has, `+` one only the current file has (readable without colour). */
function SideDiff({ rows, start, room, col, width, ascii }: { rows: SideRow[]; start: number; room: number; col: number; width: number; ascii: boolean }) {
  const bar = ascii ? ' | ' : ' │ ';
  const half = (text: string | null, mark: string): string => (text === null ? '' : `${mark}${fit(text, col - 1)}`);
  return (
    <Box flexDirection="column">
      <Line tok="muted">{fit(`── ${pad('the backup (-)', col - 3)}${bar}the current file (+)${rows.length > room ? ` · ${start + 1}-${Math.min(rows.length, start + room)}/${rows.length}` : ''} ──`, width)}</Line>
      {rows.slice(start, start + room).map((r, i) =>
        r.kind === 'head' ? (
          <Line key={i} tok={r.text.startsWith('@@') ? 'accent' : 'muted'}>
            {fit(r.text, width)}
          </Line>
        ) : (
          <Line key={i}>
            <T tok={r.changed && r.left !== null ? 'fail' : undefined}>{pad(half(r.left, r.changed ? '-' : ' '), col)}</T>
            <T tok="muted">{bar}</T>
            <T tok={r.changed && r.right !== null ? 'ok' : undefined}>{half(r.right, r.changed ? '+' : ' ') || ' '}</T>
          </Line>
        ),
      )}
    </Box>
  );
}

// Every backup of one file (docs/domain.md, Half-products: `file.bak.{timestamp}`), newest first: age,
// size, a one-line diff against the current file; below, the selected backup's diff hunks
// (`-` the backup, `+` the current file), or one muted note when there is no line diff (too
// large, binary, not a regular file). Enter restores it after a confirmation; the
// current file is backed up first, so both versions survive.

const size = (n: number): string => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`);

export function BackupsPanel({ height, width }: { height: number; width: number }) {
  const b = useAppStore((s) => s.recovery.backups);
  const ascii = useAppStore((s) => s.ascii);
  const listRoom = Math.max(1, Math.min(b?.rows.length ?? 1, Math.floor((height - 4) / 2)));
  const win = useWindow(b?.cursor ?? 0, listRoom, b?.rows.length ?? 0);
  if (!b) return null;
  // Title, list, diff heading, diff, keys: never more rows than the panel has.
  const diffRoom = Math.max(0, height - 4 - listRoom);
  const hunks = b.hunks ?? [];
  const start = Math.min(b.offset, Math.max(0, hunks.length - diffRoom));
  // Side by side when asked and there is room for two readable columns; else unified, saying why.
  const col = sideColumn(width);
  const side = b.side === true && col !== null && b.rows.length > 0 && b.hunks !== null;
  const sideRows = side ? sideBySide(hunks) : [];
  const sideStart = Math.min(b.offset, Math.max(0, sideRows.length - diffRoom));
  // Columns from every backup (a 48828.1 KB size ran into its summary at a fixed 9), one
  // space after each; the one-line diff summary takes what is left.
  const nameOf = (path: string) => path.slice(b.file.length + 1) || path;
  const nameW = columnWidth(b.rows.map((r) => nameOf(r.path)), 10, 28);
  const ageW = columnWidth(b.rows.map((r) => formatAge(r.ageMs)), 3, 14);
  const sizeW = columnWidth(b.rows.map((r) => size(r.bytes)), 4, 12);
  const summaryW = Math.max(1, width - 2 - nameW - 1 - ageW - 1 - sizeW - 1);
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok="title">{`Backups of ${fitPath(b.file, Math.max(10, width - 25))}`}</T>
        <T tok="muted">{` ${b.rows.length} found`}</T>
      </Line>
      {b.rows.length === 0 ? <Line tok="muted">{fit(b.note ?? 'no backups', width)}</Line> : null}
      {b.rows.slice(win.start, win.end).map((r, i) => {
        const here = win.start + i === b.cursor;
        return (
          <Line key={r.path} selected={here} width={width}>
            <T tok={here ? 'accent' : undefined}>{here ? '› ' : '  '}</T>
            {pad(fit(nameOf(r.path), nameW), nameW)} {pad(fit(formatAge(r.ageMs), ageW), ageW)} {pad(fit(size(r.bytes), sizeW), sizeW)}{' '}
            <T tok="muted">{fit(r.summary, summaryW)}</T>
          </Line>
        );
      })}
      {side ? (
        <SideDiff rows={sideRows} start={sideStart} room={diffRoom} col={col!} width={width} ascii={ascii} />
      ) : (
        <Box flexDirection="column">
          <Line tok="muted">{b.rows.length ? fit(`── ${b.side ? `unified, side by side needs ${2 * MIN_SIDE_COLUMN + 3} cols: - backup, + current` : 'diff: - the backup, + the current file'}${diffRoom > 0 && hunks.length > diffRoom ? ` · ${start + 1}-${Math.min(hunks.length, start + diffRoom)}/${hunks.length} PgUp/PgDn` : ''} ──`, width) : ' '}</Line>
          {b.rows.length && b.hunks === null ? <Line tok="muted">computing the diff…</Line> : null}
          {hunks.slice(start, start + diffRoom).map((h, i) => (
            <Line key={i} tok={h.startsWith('+') ? 'ok' : h.startsWith('-') ? 'fail' : h.startsWith('@@') ? 'accent' : h.startsWith(' ') ? undefined : 'muted'}>
              {fit(h, width) || ' '}
            </Line>
          ))}
        </Box>
      )}
      <Box flexGrow={1} />
      <OverlayKeys scope="backups" width={width} extra="j/k select" />
    </Box>
  );
}
