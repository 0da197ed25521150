import { useRef, useState, useSyncExternalStore } from 'react';
import { Box, useInput } from 'ink';
import type { Overview as OverviewModel } from '../src/many/overview.js';
import type { OverviewRow } from '../src/many/rows.js';
import { toTokens } from '../src/ui/keys/keys.js';
import { overviewLines, remoteDetailLines } from '../src/ui/overview/lines.js';
import { cursorOf, overviewKey, type OverviewUi } from '../src/ui/overview/state.js';
import { useTerminalSize } from '../hooks/use-terminal-size.js';
import { Line } from './Styled.js';

// The overview of many workspaces (docs/many.md): draws the lines src/ui/overview/lines.ts
// makes of the model's rows and hands each key to the pure reducer; what a key does outside
// (open a control room, quit) is the entry's, through `onEffect`.

export function Overview({ model, ascii, picked, onOpen, onQuit }: { model: OverviewModel; ascii: boolean; picked: string | null; onOpen(row: OverviewRow): void; onQuit(): void }) {
  const rows = useSyncExternalStore(model.subscribe, model.rows);
  const { columns, rows: height } = useTerminalSize();
  const [ui, setUi] = useState<OverviewUi>({ picked, detail: null });
  // Keys of one burst may arrive before the next render: each reads the last state, not the render's.
  const last = useRef(ui);
  const [done, setDone] = useState(false);
  useInput(
    (input, key) => {
      let next = last.current;
      for (const t of toTokens(input, key)) {
        const r = overviewKey(next, model.rows(), t);
        next = r.ui;
        if (r.effect?.kind === 'refresh') model.refresh();
        if (r.effect?.kind === 'open' || r.effect?.kind === 'quit') {
          setDone(true);
          if (r.effect.kind === 'open') onOpen(r.effect.row);
          else onQuit();
          break;
        }
      }
      last.current = next;
      setUi(next);
    },
    { isActive: !done },
  );
  const now = model.at();
  const detail = ui.detail === null ? undefined : rows.find((r) => r.entry.label === ui.detail);
  const lines = detail ? remoteDetailLines(detail, columns, now) : overviewLines(rows, cursorOf(ui, rows), columns, height, now, ascii);
  return (
    <Box flexDirection="column">
      {lines.map((l, i) => (
        <Line key={i} tok={l.tok} selected={l.selected} width={columns}>
          {l.text}
        </Line>
      ))}
    </Box>
  );
}
