import { useRef } from 'react';
import { scrollWindow, type Window } from '../src/app/window.js';

// A list's visible slice; the previous offset is remembered so the list scrolls only
// when the cursor would leave the window.

export function useWindow(cursor: number, height: number, total: number): Window {
  const offset = useRef(0);
  const w = scrollWindow(offset.current, cursor, height, total);
  offset.current = w.offset;
  return w;
}
