import { Box } from 'ink';
import { fit } from '../../src/text/layout.js';
import { formatAge } from '../../src/recover/render.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { Line, T } from '../Styled.js';
import { OverlayKeys } from './OverlayKeys.js';

// On `q` with a stale RESUME.md (docs/domain.md, RESUME.md: the letter is written at session end):
// an offer, never a gate — n (or q again) quits at once, ctrl-c always does.

export function QuitOffer({ height, width }: { height: number; width: number }) {
  const r = useAppStore((s) => s.recovery.resume);
  if (!r) return null;
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok="title">{fit(`Quitting: write ${r.file} first?`, width)}</T>
      </Line>
      <Line>{fit(`  ${r.file} ${r.exists ? `is ${formatAge(r.ageMs)}: ${r.why ?? 'stale'}` : 'is missing'}`, width)}</Line>
      {r.disagreements.slice(0, Math.max(0, height - 6)).map((d, i) => (
        <Line key={i} tok="muted">
          {fit(`    - ${d}`, width)}
        </Line>
      ))}
      <Line> </Line>
      <Line>{fit(`  The next session reads ${r.file} first; y rewrites it from the disk (the old letter is kept).`, width)}</Line>
      <OverlayKeys scope="offer" width={width} />
    </Box>
  );
}
