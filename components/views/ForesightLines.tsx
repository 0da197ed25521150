import { Box } from 'ink';
import stringWidth from 'string-width';
import { useAppStore } from '../../hooks/use-app-store.js';
import { operatorOf } from '../../src/ui/store/operator.js';
import { fitWords } from '../../src/text/layout.js';
import { sparkline } from '../../src/foresight/throughput.js';
import { etaLine, forecastLine, lastHour } from '../../src/foresight/words.js';
import type { Foresight } from '../../src/foresight/types.js';
import { Line, T } from '../Styled.js';

// Foresight in Progress (docs/foresight.md): the ETA with the cells done per hour as a
// sparkline on one row, the cost forecast on the next when the journal has spend. Both are
// the operator model's, the words `status` prints.

/** Rows the lines take: none when every cell is done, two with a cost forecast. */
export const foresightHeight = (f: Foresight, done: boolean): number => (done ? 0 : forecastLine(f) ? 2 : 1);

export function ForesightLines({ width }: { width: number }) {
  const f = useAppStore((s) => operatorOf(s).foresight);
  const done = useAppStore((s) => operatorOf(s).counts.done >= operatorOf(s).counts.total);
  const ascii = useAppStore((s) => s.ascii);
  if (done) return null;
  const spark = `done/h ${sparkline(f.forecast.perHour, ascii)} ${lastHour(f)}`;
  const etaW = Math.max(10, width - stringWidth(spark) - 2);
  const forecast = forecastLine(f);
  return (
    <Box flexDirection="column" height={forecast ? 2 : 1}>
      <Line>
        {fitWords(etaLine(f), etaW).padEnd(etaW)}
        {'  '}
        <T tok="muted">{spark}</T>
      </Line>
      {forecast ? <Line tok={f.forecast.runsOut ? 'warn' : 'muted'}>{fitWords(forecast, width)}</Line> : null}
    </Box>
  );
}
