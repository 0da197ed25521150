import { Box } from 'ink';
import { useAppStore } from '../../hooks/use-app-store.js';
import { CellDetail } from '../panes/CellDetail.js';
import { Matrix } from './Matrix.js';
import { PhaseSummary, summaryHeight } from './PhaseSummary.js';
import { ForesightLines, foresightHeight } from './ForesightLines.js';
import { operatorOf } from '../../src/ui/store/operator.js';

// Progress: phases and batches on top, the ETA and forecast (docs/foresight.md), the matrix
// below; Enter swaps in a cell's detail.

export function ProgressView({ height, width }: { height: number; width: number }) {
  const open = useAppStore((s) => s.detail !== null);
  const phases = useAppStore((s) => s.ws.phases);
  const batches = useAppStore((s) => s.ws.batches);
  const ahead = useAppStore((s) => foresightHeight(operatorOf(s).foresight, operatorOf(s).counts.done >= operatorOf(s).counts.total));
  if (open) return <CellDetail height={height} width={width} />;
  const top = summaryHeight(phases, batches, height);
  return (
    <Box flexDirection="column" height={height}>
      <PhaseSummary height={top} width={width} />
      <ForesightLines width={width} />
      <Matrix height={height - top - ahead} width={width} />
    </Box>
  );
}
