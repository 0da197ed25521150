import { Box } from 'ink';
import { useMemo } from 'react';
import { renderRecover } from '../../src/recover/render.js';
import { fit } from '../../src/text/layout.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { Line, T } from '../Styled.js';
import { OverlayKeys } from './OverlayKeys.js';

// The recover report (`checkroom recover`, docs/recovery.md) as an overlay: sources and
// their freshness, where it stopped, half-products, long memory, what would be rebuilt, the
// plan. Drawn by the same renderer as the CLI, in plain text (renderRecover sanitizes every
// workspace string); scrolled with j/k, PgUp/PgDn.

const plain = (_token: string, text: string): string => text;

export function RecoverReport({ height, width }: { height: number; width: number }) {
  const overlay = useAppStore((s) => s.recovery.recover);
  const ascii = useAppStore((s) => s.ascii);
  // Scrolling changes the offset, not the report: the text is laid out again only when it changes.
  const report = overlay?.report;
  const lines = useMemo(() => (report ? renderRecover(report, { paint: plain, ascii, width }).split('\n') : []), [report, ascii, width]);
  if (!overlay) return null;
  const room = Math.max(1, height - 2);
  const start = Math.min(overlay.offset, Math.max(0, lines.length - room));
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok="title">{fit(lines[0] ?? 'recover report', width - 12)}</T>
        <T tok="muted">{` ${start + 1}-${Math.min(lines.length, start + room)}/${lines.length}`}</T>
      </Line>
      {lines.slice(1).slice(start, start + room).map((l, i) => (
        <Line key={i} tok={/^\d /.test(l) ? 'title' : undefined}>
          {fit(l, width) || ' '}
        </Line>
      ))}
      <OverlayKeys scope="recover" width={width} extra="j/k scroll" />
    </Box>
  );
}
