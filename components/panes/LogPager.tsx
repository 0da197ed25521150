import { Box } from 'ink';
import { useEffect, useMemo } from 'react';
import { fit, fitStart } from '../../src/text/layout.js';
import { marks, shownOf, statusWords, titleWords, wrapRows, type PagerUi } from '../../src/ui/pager/state.js';
import { tryPattern } from '../../src/pipeline/safe-pattern.js';
import type { EventKind } from '../../src/run/logs/event.js';
import type { Token } from '../../src/text/theme.js';
import { useAppStore, useStoreApi } from '../../hooks/use-app-store.js';
import { Line, T } from '../Styled.js';

// The log pager (docs/logs.md, "The pager"): a title row, the window of lines the store read
// (numbered, readable events or raw, cut or wrapped at the edge, search hits in reverse
// video), and a status row (where, modes, the search being typed). It draws; the store reads
// the file and decides. Every string goes through Styled, the one escaping edge.

const KIND_TOKEN: Record<EventKind, Token | undefined> = { text: undefined, assistant: undefined, tool: 'accent', 'tool-result': 'muted', result: 'ok', system: 'muted', error: 'fail' };

interface Row {
  key: string;
  gutter: string;
  text: string;
  tok: Token | undefined;
  hitLine: boolean;
  marked: boolean;
}

function rowsOf(p: PagerUi, width: number): Row[] {
  const digits = String(Math.max(1, p.top + p.lines.length)).length;
  const room = Math.max(8, width - digits - 1);
  const out: Row[] = [];
  p.lines.forEach((raw, i) => {
    const n = p.top + i;
    const shown = shownOf(raw, p.raw);
    const parts = p.wrap ? wrapRows(shown.text, room) : [fit(shown.text, room)];
    parts.forEach((text, j) =>
      out.push({ key: `${n}:${j}`, gutter: j === 0 ? String(n + 1).padStart(digits) : ' '.repeat(digits), text, tok: KIND_TOKEN[shown.kind], hitLine: p.hit === n, marked: p.mark === n }),
    );
  });
  return out.slice(0, p.rows);
}

/** The title, then as much of the log's path as fits, its end kept (the run id is there). */
const titleRow = (p: PagerUi, width: number): string => {
  const head = fit(`── ${titleWords(p)}`, width);
  const room = width - head.length - 3;
  return p.rel && room >= 12 ? `${head} · ${fitStart(p.rel, room)}` : head;
};

export function LogPager({ height, width }: { height: number; width: number }) {
  const p = useAppStore((s) => s.pager);
  const store = useStoreApi();
  const rows = Math.max(1, height - 2);
  useEffect(() => store.getState().pagerResize(rows), [rows, store]);
  const query = p?.query ?? null;
  const pattern = useMemo(() => (query ? tryPattern(query) : null), [query]);
  if (!p) return null;
  const body = p.error ? [] : rowsOf(p, width);
  const status = p.typing !== null ? `/${p.typing}_` : `${statusWords(p)}${p.note ? ` · ${p.note}` : ''}`;
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line tok="title">{titleRow(p, width)}</Line>
      <Box flexDirection="column" height={rows} overflow="hidden">
        {p.error ? <Line tok="warn">{fit(p.error, width)}</Line> : null}
        {!p.error && body.length === 0 ? <Line tok="muted">(the log is empty)</Line> : null}
        {body.map((r) => (
          <Line key={r.key} selected={r.marked} width={width}>
            <T tok="muted">{`${r.gutter} `}</T>
            {marks(r.text, pattern).map((m, i) => (
              <T key={i} tok={r.tok} inverse={m.hit}>
                {m.text}
              </T>
            ))}
          </Line>
        ))}
      </Box>
      <Line tok={p.typing !== null ? 'accent' : 'muted'}>{fit(status, width)}</Line>
    </Box>
  );
}
