import { Box } from 'ink';
import stringWidth from 'string-width';
import { useShallow } from 'zustand/react/shallow';
import { fit, fitWords, pad } from '../../src/text/layout.js';
import { historyRows } from '../../src/ui/history/list.js';
import type { Token } from '../../src/text/theme.js';
import type { HistoryRow } from '../../src/history/timeline.js';
import { clockOf, rowText } from '../../src/history/words.js';
import { formatMinute } from '../../src/text/local-time.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { useWindow } from '../../hooks/use-window.js';
import { PostMortem } from '../panes/PostMortem.js';
import { Line, T } from '../Styled.js';
import { rowMark } from '../RowMark.js';

// History (docs/history.md): the journal as a timeline, newest first: runs with class,
// duration and cost, decisions, breaker actions, escalations, budget and session events. Only
// the visible slice is drawn (a 100k-event journal is one fold, filtered per change of the
// journal or the filter: history-list.ts). Enter goes to a row's moment (every view shows then),
// P opens the post-mortem of its cell.

const KIND_TOKEN: Record<HistoryRow['kind'], Token> = {
  run: 'ok',
  decision: 'accent',
  breaker: 'warn',
  escalate: 'fail',
  budget: 'warn',
  session: 'muted',
  autopilot: 'muted',
};

const tokenOf = (row: HistoryRow): Token => {
  const r = row.run;
  if (!r) return KIND_TOKEN[row.kind];
  if (r.outcome === 'running') return 'accent';
  if (r.outcome === 'reaped' || r.class === 'CANCELLED') return 'muted';
  return r.class === 'SUCCESS' ? 'ok' : 'fail';
};

const CELL_W = 16;
const KIND_W = 9;

export function HistoryView({ height, width }: { height: number; width: number }) {
  const { history, filter, cursor, postMortem, marks } = useAppStore(
    useShallow((s) => ({ history: s.history, filter: s.filter, cursor: s.cursors.history, postMortem: s.postMortem, marks: s.marks.history })),
  );
  const fold = history.fold;
  const { rows } = historyRows(history, filter);
  const listH = Math.max(1, height - 3);
  const win = useWindow(cursor, listH, rows.length);
  if (postMortem && fold) return <PostMortem fold={fold} cellKey={postMortem} height={height} width={width} />;
  if (!fold) {
    return (
      <Box flexDirection="column" height={height} overflow="hidden">
        <Line tok="title">History</Line>
        <Line tok="muted">reading .checkroom/journal.jsonl…</Line>
      </Box>
    );
  }
  const counter = rows.length ? ` ${win.start + 1}-${win.end}/${rows.length}` : '';
  const head = `History: ${fold.rows.length} rows from the journal${filter ? ` · filter "${filter}"` : ''}`;
  const sel = rows[cursor] === undefined ? null : fold.rows[rows[cursor]];
  const textW = Math.max(8, width - 2 - 9 - CELL_W - 1 - KIND_W - 1);
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok="muted">{fit(head, Math.max(1, width - stringWidth(counter)))}</T>
        <T tok="muted">{counter}</T>
      </Line>
      <Box flexDirection="column" height={listH} overflow="hidden">
        {rows.length === 0 ? (
          <Line tok="muted">
            {fit(filter ? '  nothing matches the filter (esc clears it)' : '  the journal is empty: nothing was launched here yet', width)}
          </Line>
        ) : (
          rows.slice(win.start, win.end).map((i, n) => {
            const row = fold.rows[i];
            const here = win.start + n === cursor;
            return (
              <Line key={i} selected={here} width={width}>
                {rowMark(here, marks.includes(String(i)))}
                <T tok="muted">{clockOf(row.at)} </T>
                {pad(fit(row.key ?? row.agent ?? '', CELL_W), CELL_W)} <T tok={tokenOf(row)}>{pad(row.kind, KIND_W)} </T>
                {fitWords(rowText(row), textW)}
              </Line>
            );
          })
        )}
      </Box>
      <Line tok="muted">{sel ? fitWords(`${formatMinute(new Date(sel.at))} ${sel.key ?? sel.agent ?? ''} ${rowText(sel)}`, width) : ' '}</Line>
      <Line tok="muted">
        {fit(
          sel?.run ? `log ${sel.run.logPath} · enter: go to then · P: post-mortem` : 'enter: show every view as it was then · P: post-mortem · / filter',
          width,
        )}
      </Line>
    </Box>
  );
}
