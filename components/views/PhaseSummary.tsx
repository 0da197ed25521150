import { Box } from 'ink';
import type { BatchProgress, PhaseProgress } from '../../src/types.js';
import { bar, drawnLength, fit, pad } from '../../src/text/layout.js';
import type { Token } from '../../src/text/theme.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { Line, T } from '../Styled.js';

// Phases (left) and batches (right), a progress bar each, in at most `height` rows.

const TOKEN: Record<PhaseProgress['status'], Token> = { done: 'ok', in_progress: 'warn', not_started: 'muted', failed: 'fail' };
// Short words: two columns share 80 cells, and the state must read without colour.
const WORD: Record<PhaseProgress['status'], string> = { done: 'done', in_progress: 'active', not_started: 'waiting', failed: 'failed' };

interface Row {
  label: string;
  done: number;
  total: number;
  status: PhaseProgress['status'];
}

function Column({ title, rows, height, width, ascii }: { title: string; rows: Row[]; height: number; width: number; ascii: boolean }) {
  const room = Math.max(0, height - 1);
  const shown = rows.length > room ? rows.slice(0, Math.max(0, room - 1)) : rows;
  const labelW = Math.min(18, Math.max(...rows.map((r) => drawnLength(r.label)), 4));
  // ASCII bars carry two brackets.
  const barW = Math.max(3, Math.min(12, width - labelW - 17 - (ascii ? 2 : 0)));
  return (
    <Box flexDirection="column" width={width}>
      <Line tok="muted">{title}</Line>
      {shown.map((r, i) => (
        <Line key={i}>
          {pad(fit(r.label, labelW), labelW)} <T tok={TOKEN[r.status]}>{bar(r.done, r.total, barW, ascii)}</T> {`${r.done}/${r.total}`.padEnd(7)}{' '}
          <T tok={TOKEN[r.status]}>{WORD[r.status]}</T>
        </Line>
      ))}
      {rows.length > shown.length ? <Line tok="muted">… {rows.length - shown.length} more</Line> : null}
    </Box>
  );
}

export function summaryHeight(phases: PhaseProgress[], batches: BatchProgress[], bodyHeight: number): number {
  return Math.min(1 + Math.max(phases.length, batches.length), Math.max(3, Math.floor(bodyHeight / 3)));
}

export function PhaseSummary({ height, width }: { height: number; width: number }) {
  const phases = useAppStore((s) => s.ws.phases);
  const batches = useAppStore((s) => s.ws.batches);
  const ascii = useAppStore((s) => s.ascii);
  const half = Math.floor(width / 2);
  return (
    <Box height={height} overflow="hidden">
      <Column title="Phases" ascii={ascii} height={height} width={half} rows={phases.map((p) => ({ label: `${p.id} ${p.name}`, done: p.done, total: p.total, status: p.status }))} />
      <Column
        title="Batches"
        ascii={ascii}
        height={height}
        width={width - half}
        rows={batches.map((b) => ({ label: b.id === null ? 'unbatched' : `Batch ${b.id}`, done: b.done, total: b.total, status: b.status }))}
      />
    </Box>
  );
}
