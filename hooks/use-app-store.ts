import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { AppStore } from '../src/ui/store/store.js';
import type { AppState } from '../src/ui/store/types.js';

// The store reaches components through context (one store per control room, so tests can
// mount several side by side); components select narrow slices.

export const StoreContext = createContext<AppStore | null>(null);

export function useStoreApi(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useAppStore outside <StoreContext.Provider>: mount components inside <ControlRoom>');
  return store;
}

export function useAppStore<T>(selector: (s: AppState) => T): T {
  return useStore(useStoreApi(), selector);
}
