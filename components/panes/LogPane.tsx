import { Box } from 'ink';
import { relative } from 'node:path';
import { fit, fitStart } from '../../src/text/layout.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { logFor } from '../../src/ui/agents/agents.js';
import { Line, T } from '../Styled.js';

// A run's output: the supervisor's ring buffer (bounded), as flushed to the store at most
// every 250 ms; only the last rows that fit are rendered. Agent output is untrusted text:
// every line is cut to one row and drawn escaped (Styled.tsx). The log file's path stays readable (its end
// is kept when the row is short): after a final failure it is where to look.

export function LogPane({ cellKey, height, width }: { cellKey: string | null; height: number; width: number }) {
  const agents = useAppStore((s) => s.agents);
  const root = useAppStore((s) => s.ws.root);
  const log = logFor(agents, cellKey);
  if (height < 2) return null;
  if (!log) {
    return (
      <Box flexDirection="column" height={height} overflow="hidden">
        <Line tok="muted">{fit(`── log · ${cellKey ? 'no run of this step in this session' : 'no run yet in this session'}`, width)}</Line>
      </Box>
    );
  }
  const room = Math.max(0, height - 2);
  const lines = log.lines.slice(-room);
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok="muted">── log </T>
        <T tok={log.live ? 'accent' : 'muted'}>{fit(log.title, Math.max(10, width - 8))}</T>
      </Line>
      <Line tok="muted">{`   ${fitStart(relative(root, log.logPath), Math.max(10, width - 4))}`}</Line>
      {lines.length === 0 && room > 0 ? <Line tok="muted">   (no output yet)</Line> : null}
      {lines.map((l, i) => (
        <Line key={i}>{fit(`   ${l}`, width)}</Line>
      ))}
    </Box>
  );
}
