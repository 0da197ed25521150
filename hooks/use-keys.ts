import { useInput } from 'ink';
import { toTokens } from '../src/ui/keys/keys.js';
import { noteInput } from '../src/ui/keys/input-clock.js';
import { useAppStore, useStoreApi } from './use-app-store.js';

// The one place stdin reaches the control room. Each keypress of a burst (`jjj` in one
// read over tmux/SSH) is fed separately, and each feed reads the store's current state,
// so no key sees a stale render. Routing by priority (dialog, prompt, overlay, view)
// happens in the store's `feed`.

export function useKeys(): void {
  const store = useStoreApi();
  const quit = useAppStore((s) => s.quit);
  useInput(
    (input, key) => {
      noteInput();
      for (const t of toTokens(input, key)) store.getState().feed(t);
    },
    { isActive: !quit },
  );
}
