import { Box } from 'ink';
import { fit, fitWords } from '../../src/text/layout.js';
import type { HistoryFold } from '../../src/history/timeline.js';
import { postMortemLines } from '../../src/history/post-mortem.js';
import { Line } from '../Styled.js';

// A cell's post-mortem (docs/history.md): every attempt with class, duration, cost and log,
// and what was done to the cell between them. The newest lines are kept when it is taller
// than the view: the last attempt is what the operator came for.

export function PostMortem({ fold, cellKey, height, width }: { fold: HistoryFold; cellKey: string; height: number; width: number }) {
  const [head, ...rest] = postMortemLines(fold, cellKey);
  const room = Math.max(1, height - 2);
  const shown = rest.length > room ? rest.slice(rest.length - room + 1) : rest;
  const cut = rest.length - shown.length;
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line tok="title">{fit(`Post-mortem ${head}`, width)}</Line>
      {cut ? <Line tok="muted">{fit(`  … ${cut} earlier lines (checkroom history --cell ${cellKey})`, width)}</Line> : null}
      {shown.map((l, i) => (
        <Line key={i} tok={/^\s+(error|log):/.test(l) ? 'muted' : undefined}>
          {fitWords(l, width)}
        </Line>
      ))}
      <Line tok="muted">{fit('esc: back to History', width)}</Line>
    </Box>
  );
}
