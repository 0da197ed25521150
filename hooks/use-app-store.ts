import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { AppStore } from '../src/ui/store/store.js';
import type { AppState } from '../src/ui/store/types.js';
import { asShown } from '../src/ui/history/time-travel.js';

// The store reaches components through context (one store per control room, so tests can
// mount several side by side); components select narrow slices.

export const StoreContext = createContext<AppStore | null>(null);

export function useStoreApi(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useAppStore outside <StoreContext.Provider>: mount components inside <ControlRoom>');
  return store;
}

/** A slice of the state as the views draw it: while a moment is set (time travel), its workspace is the past's. */
export function useAppStore<T>(selector: (s: AppState) => T): T {
  return useStore(useStoreApi(), (s) => selector(asShown(s)));
}
