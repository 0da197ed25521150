import { useState } from 'react';
import { scrollWindow, type Window } from '../src/ui/views/window.js';

// A list's visible slice; the previous offset is remembered so the list scrolls only
// when the cursor would leave the window. It is state set during render when it changes
// (React's "storing information from previous renders"): a ref read and written in render
// is what the hook rules forbid (react-hooks/refs). scrollWindow of its own offset gives
// that offset again, so the update settles in one extra pass before anything is drawn.

export function useWindow(cursor: number, height: number, total: number): Window {
  const [offset, setOffset] = useState(0);
  const w = scrollWindow(offset, cursor, height, total);
  if (w.offset !== offset) setOffset(w.offset);
  return w;
}
