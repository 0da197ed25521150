import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { CLAIM_ASCII, CLAIM_EMOJI } from '../src/glyphs.js';
import { sanitizeLine } from '../src/sanitize.js';
import { fit, pad } from '../src/cli/text.js';
import { sourceItems } from '../src/app/select.js';
import type { DiskState } from '../src/types.js';
import { useAppStore } from '../hooks/use-app-store.js';
import { useWindow } from '../hooks/use-window.js';
import { Line, T } from './Styled.js';

// checkpoint.md against the disk: where the checkpoint's claim and the markers disagree
// (the markers decide, DOMAIN.md section 3), and what the parser warned about.

const DISK: Record<DiskState, string> = { done: 'done', partial: 'partial', missing: 'missing' };

export function SourcesView({ height, width }: { height: number; width: number }) {
  const { ws, filter, cursor, ascii, readonly } = useAppStore(
    useShallow((s) => ({ ws: s.ws, filter: s.filter, cursor: s.cursors.sources, ascii: s.ascii, readonly: s.readonly })),
  );
  const items = sourceItems(ws, filter);
  const win = useWindow(cursor, Math.max(1, height - 2), items.length);
  const cp = ws.checkpoint;
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok="title">checkpoint.md</T>
        {cp.exists ? ` (${cp.lang}) updated ${sanitizeLine(cp.lastUpdate ?? 'no date')}` : ' is missing'} · {ws.discrepancies.length} discrepanc
        {ws.discrepancies.length === 1 ? 'y' : 'ies'} · {ws.warnings.length} warning{ws.warnings.length === 1 ? '' : 's'}
        {readonly ? '' : ' · w rewrites it from the disk'}
      </Line>
      <Line tok="muted">{`  ${pad('unit step', 16)} ${pad('checkpoint', 15)} ${pad('disk', 9)} note`}</Line>
      {items.length === 0 ? <Line tok="ok">{filter ? 'nothing matches the filter (esc clears it)' : 'checkpoint.md agrees with the disk'}</Line> : null}
      {items.slice(win.start, win.end).map((it, i) => {
        const here = win.start + i === cursor;
        const mark = <T tok={here ? 'accent' : undefined}>{here ? '› ' : '  '}</T>;
        if (it.kind === 'warning') {
          const w = it.w;
          return (
            <Line key={`w${win.start + i}`}>
              {mark}
              <T tok="warn">{pad('warning', 16)}</T> {fit(`${sanitizeLine(w.source)}${w.line ? `:${w.line}` : ''}: ${sanitizeLine(w.message)}`, Math.max(10, width - 19))}
            </Line>
          );
        }
        const d = it.d;
        const claim = ascii ? CLAIM_ASCII[d.checkpoint] : `${CLAIM_EMOJI[d.checkpoint]} ${CLAIM_ASCII[d.checkpoint]}`;
        return (
          <Line key={`d${d.unit}/${d.step}`}>
            {mark}
            {pad(fit(`${sanitizeLine(d.unit)} ${sanitizeLine(d.step)}`, 16), 16)} <T tok="warn">{pad(fit(claim, 15), 15)}</T> {pad(DISK[d.disk], 9)}
            {fit(sanitizeLine(d.note), Math.max(10, width - 46))}
          </Line>
        );
      })}
    </Box>
  );
}
