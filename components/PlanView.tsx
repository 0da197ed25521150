import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { sanitizeLine } from '../src/sanitize.js';
import { fit, pad } from '../src/cli/text.js';
import { planItems } from '../src/app/select.js';
import type { Token } from '../src/app/theme.js';
import { useAppStore } from '../hooks/use-app-store.js';
import { useWindow } from '../hooks/use-window.js';
import { Line, T } from './Styled.js';

// The next-step plan (failures that block, then half-products, then new work), with the
// steps queued for relaunch by redo at the top.

const P_TOKEN: Record<1 | 2 | 3, Token> = { 1: 'fail', 2: 'warn', 3: 'accent' };

export function PlanView({ height, width }: { height: number; width: number }) {
  const { ws, filter, redoQueue, cursor } = useAppStore(useShallow((s) => ({ ws: s.ws, filter: s.filter, redoQueue: s.redoQueue, cursor: s.cursors.plan })));
  const items = planItems(ws, filter, redoQueue);
  const win = useWindow(cursor, Math.max(1, height - 1), items.length);
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line tok="muted">
        {`${ws.next.length} next step${ws.next.length === 1 ? '' : 's'} · ${redoQueue.length} queued for relaunch`}
        {items.length ? ` · ${win.start + 1}-${win.end}/${items.length}` : ''}
      </Line>
      {items.length === 0 ? <Line tok="muted">{filter ? 'no step matches the filter (esc clears it)' : 'nothing to do: every step is done or waiting on a human'}</Line> : null}
      {items.slice(win.start, win.end).map((it, i) => {
        const here = win.start + i === cursor;
        const mark = <T tok={here ? 'accent' : undefined}>{here ? '› ' : '  '}</T>;
        if (it.kind === 'queued') {
          const r = it.redo;
          return (
            <Line key={`q${r.unit}/${r.step}`}>
              {mark}
              <T tok="accent">Q </T>
              {pad(fit(`${sanitizeLine(r.unit)} ${sanitizeLine(r.step)}`, 16), 17)}
              <T tok="accent">{pad('queued redo', 13)}</T>
              {fit(`backed up to ${sanitizeLine(r.backup)}; relaunch it`, Math.max(10, width - 37))}
            </Line>
          );
        }
        const n = it.step;
        return (
          <Line key={`n${win.start + i}`}>
            {mark}
            <T tok={P_TOKEN[n.priority]}>{`P${n.priority}`}</T> {pad(fit(n.unit ? `${sanitizeLine(n.unit)} ${sanitizeLine(n.step ?? '')}` : 'workspace', 16), 17)}
            {pad(n.action, 13)}
            {fit(sanitizeLine(n.reason), Math.max(10, width - 37))}
          </Line>
        );
      })}
    </Box>
  );
}
