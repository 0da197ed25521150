import { Box, Text } from 'ink';
import type { Theme } from '../src/app/theme.js';
import { fit } from '../src/app/layout.js';
import { sanitizeLine } from '../src/sanitize.js';

// The first frame (issue 10 item 5): drawn as soon as the UI has loaded, before the scan
// reads a file, with a progress line from a quick directory listing. The control room takes
// its place, every cell filled in, when the scan lands. Its title is not the control room's
// ("checkroom · <name>"), so nothing mistakes this frame for a room that is up.

export function Starting({ name, files, theme, width, ascii }: { name: string; files: number | null; theme: Theme; width: number; ascii: boolean }) {
  const dots = ascii ? '...' : '…';
  const what = files === null ? `scanning the workspace${dots}` : `scanning${dots} ${files.toLocaleString('en-US')} files`;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate" {...theme.title}>
        {fit(`checkroom: opening ${sanitizeLine(name)}`, Math.max(10, width))}
      </Text>
      <Text wrap="truncate" {...theme.muted}>
        {fit(what, Math.max(10, width))}
      </Text>
    </Box>
  );
}
