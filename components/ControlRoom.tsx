import { useEffect } from 'react';
import { Box, useApp } from 'ink';
import type { AppStore } from '../src/ui/store/store.js';
import type { Theme } from '../src/text/theme.js';
import { StoreContext, useAppStore } from '../hooks/use-app-store.js';
import { ThemeContext } from '../hooks/use-theme.js';
import { useKeys } from '../hooks/use-keys.js';
import { useTerminalSize } from '../hooks/use-terminal-size.js';
import { ConfirmDialog } from './panes/ConfirmDialog.js';
import { RecoveryLayer } from './panes/RecoveryLayer.js';
import { recoveryOverlayOpen } from '../src/ui/recovery/types.js';
import { Footer } from './Footer.js';
import { Header } from './Header.js';
import { HelpOverlay } from './panes/HelpOverlay.js';
import { Tabs } from './Tabs.js';
import { VIEW_COMPONENTS } from './Views.js';
import { LogPager } from './panes/LogPager.js';

// The whole screen: header, view bar, body (dialog > help > view), message and key hints.
// It is one row shorter than the terminal: Ink clears the whole screen on every frame
// that fills the terminal (ink.js `isFullscreen`), and the frame must never scroll.

const CHROME = 3 + 1 + 2;

export function layout(rows: number, columns: number): { body: number; width: number; height: number } {
  const height = Math.max(CHROME + 1, rows - 1);
  return { body: height - CHROME, width: Math.max(20, columns), height };
}

function Screen() {
  const { rows, columns } = useTerminalSize();
  const { body, width, height } = layout(rows, columns);
  const view = useAppStore((s) => s.view);
  const dialog = useAppStore((s) => s.dialog !== null);
  const help = useAppStore((s) => s.help.open);
  const pager = useAppStore((s) => s.pager !== null);
  const recovery = useAppStore((s) => recoveryOverlayOpen(s.recovery));
  const quit = useAppStore((s) => s.quit);
  const setPageSize = useAppStore((s) => s.setPageSize);
  const { exit } = useApp();
  useKeys();
  useEffect(() => setPageSize(Math.max(1, body - 6)), [body, setPageSize]);
  useEffect(() => {
    if (quit) exit();
  }, [quit, exit]);
  const View = VIEW_COMPONENTS[view];
  // The log pager is full screen: only the footer (its keys, its messages) stays (docs/logs.md).
  if (pager && !dialog)
    return (
      <Box flexDirection="column" width={width} height={height} overflow="hidden">
        <LogPager height={height - 2} width={width} />
        <Footer width={width} />
      </Box>
    );
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Header width={width} />
      <Tabs width={width} />
      <Box height={body} flexDirection="column" overflow="hidden">
        {dialog ? <ConfirmDialog height={body} width={width} /> : recovery ? <RecoveryLayer height={body} width={width} /> : help ? <HelpOverlay height={body} width={width} /> : <View height={body} width={width} />}
      </Box>
      <Footer width={width} />
    </Box>
  );
}

export function ControlRoom({ store, theme }: { store: AppStore; theme: Theme }) {
  return (
    <StoreContext.Provider value={store}>
      <ThemeContext.Provider value={theme}>
        <Screen />
      </ThemeContext.Provider>
    </StoreContext.Provider>
  );
}
