import { Box } from 'ink';
import { useMemo } from 'react';
import stringWidth from 'string-width';
import { useShallow } from 'zustand/react/shallow';
import { GLYPH_WORD, glyphsFor } from '../../src/text/glyphs.js';
import { columnLabels, drawnLength, fit, packHints, pad } from '../../src/text/layout.js';
import { lookOf, LOOK_TOKEN } from '../../src/text/cell-look.js';
import { matrixOf, type MatrixModel, type MatrixRow } from '../../src/ui/store/select.js';
import { runWritingCells } from '../../src/ui/agents/live-writers.js';
import { cellKey } from '../../src/types.js';
import { scrollWindow } from '../../src/ui/views/window.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { useWindow } from '../../hooks/use-window.js';
import { Line, T } from '../Styled.js';

// The unit × step matrix: one glyph per cell (🚧 / `~` for half-products, 🔒 / `#` for a
// cell blocked by a failure upstream), the cursor cell in brackets and its row in reverse
// video, so both show without colour too. Rows and columns are both windowed.

const COL = 4;

const labelOf = (r: MatrixRow): string => `${r.unit}${r.batch !== null ? ` B${r.batch}` : ''}`;

// The label column fits the widest label of all rows (so it does not jump while scrolling),
// measured once per set of rows: at 5,000 units, every frame built and measured every label
// (control room RSS at 50k files). A matrix whose rows are the same units and
// batches shares its `keys` with the one before (src/ui/views/matrix.ts), so a marker measures
// nothing again.
const labelWidths = new WeakMap<readonly string[], number>();
function labelWidth(m: MatrixModel): number {
  let w = labelWidths.get(m.keys);
  if (w === undefined) {
    w = 6;
    for (const r of m.rows) w = Math.max(w, drawnLength(labelOf(r)));
    labelWidths.set(m.keys, (w = Math.min(16, w) + 2));
  }
  return w;
}

export function Matrix({ height, width }: { height: number; width: number }) {
  const { ws, filter, cell, ascii, agents } = useAppStore(useShallow((s) => ({ ws: s.ws, filter: s.filter, cell: s.cell, ascii: s.ascii, agents: s.agents })));
  // A cell another instance (or an adopted run) writes shows running too;
  // a cell the workspace shows running is drawn running by its own status.
  const writing = useMemo(() => runWritingCells(agents), [agents]);
  const g = glyphsFor(ascii);
  const m = matrixOf(ws, filter);
  const labelW = labelWidth(m);
  const visibleCols = Math.max(1, Math.floor((width - labelW) / COL));
  const cols = scrollWindow(cell.col - visibleCols + 1, cell.col, visibleCols, m.steps.length);
  const bodyRows = Math.max(1, height - 2);
  const win = useWindow(cell.row, bodyRows, m.rows.length);
  // Every glyph's word, whole: two spaces between them when they all fit, else one, else as
  // many as fit (a legend cut mid-word read "-- not st…").
  const items = Object.entries(g).map(([k, v]) => `${v.trim()} ${GLYPH_WORD[k as keyof typeof g]}`);
  const legend = stringWidth(items.join('  ')) <= width ? items.join('  ') : packHints(items, width, ' ');
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line tok="muted">
        {pad(m.rows.length ? `${win.start + 1}-${win.end}/${m.rows.length}` : '', labelW)}
        {columnLabels(m.steps).slice(cols.start, cols.end).map((l) => pad(` ${l}`, COL)).join('')}
      </Line>
      {m.rows.length === 0 ? <Line tok="muted">{filter ? `no row matches the filter "${filter}" (esc clears it)` : 'no units found'}</Line> : null}
      {m.rows.slice(win.start, win.end).map((r, i) => {
        const rowIdx = win.start + i;
        const here = rowIdx === cell.row;
        return (
          <Line key={r.unit} selected={here} width={width}>
            <T tok={here ? 'accent' : undefined}>{pad(`${here ? '›' : ' '}${fit(labelOf(r), labelW - 2)}`, labelW)}</T>
            {r.cells.slice(cols.start, cols.end).map((c, j) => {
              const sel = here && cols.start + j === cell.col;
              const look = lookOf({ status: writing.has(cellKey(c.unit, c.step)) ? 'running' : c.status, blockedBy: c.blockedBy });
              const glyph = g[look];
              return (
                <T key={c.step} tok={LOOK_TOKEN[look]}>
                  {sel ? `[${glyph}]` : ` ${glyph} `}
                </T>
              );
            })}
          </Line>
        );
      })}
      <Line tok="muted">{legend}</Line>
    </Box>
  );
}
