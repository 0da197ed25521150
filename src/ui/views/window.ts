// Windowing for every long list (STYLE.md idiom 5): only the visible slice is rendered.
// The window keeps its previous offset while the cursor stays inside it, so the list does
// not jump on every keypress; it scrolls just enough to keep the cursor visible.

export interface Window {
  offset: number;
  /** First and one-past-last visible index. */
  start: number;
  end: number;
}

export function scrollWindow(prevOffset: number, cursor: number, height: number, total: number): Window {
  const h = Math.max(1, height);
  let offset = Math.min(Math.max(0, prevOffset), Math.max(0, total - h));
  if (cursor < offset) offset = cursor;
  else if (cursor >= offset + h) offset = cursor - h + 1;
  offset = Math.max(0, Math.min(offset, Math.max(0, total - h)));
  return { offset, start: offset, end: Math.min(total, offset + h) };
}

export const clamp = (n: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, n));
