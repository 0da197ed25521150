import { Box } from 'ink';
import type { Theme } from '../src/text/theme.js';
import { fit } from '../src/text/layout.js';
import { ThemeContext } from '../hooks/use-theme.js';
import { Line } from './Styled.js';

// The first frame: drawn as soon as the UI has loaded, before the scan
// reads a file, with a progress line from a quick directory listing. The control room takes
// its place, every cell filled in, when the scan lands. Its title is not the control room's
// ("checkroom · <name>"), so nothing mistakes this frame for a room that is up. The
// directory's name is workspace text: Line escapes it, and fit measures the
// escaped form.

export function Starting({ name, files, theme, width, ascii }: { name: string; files: number | null; theme: Theme; width: number; ascii: boolean }) {
  const dots = ascii ? '...' : '…';
  const what = files === null ? `scanning the workspace${dots}` : `scanning${dots} ${files.toLocaleString('en-US')} files`;
  return (
    <ThemeContext.Provider value={theme}>
      <Box flexDirection="column">
        <Line tok="title">{fit(`checkroom: opening ${name}`, Math.max(10, width))}</Line>
        <Line tok="muted">{fit(what, Math.max(10, width))}</Line>
      </Box>
    </ThemeContext.Provider>
  );
}
