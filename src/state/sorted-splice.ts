// Replacing one unit's items in a list kept in a fixed order: find the
// unit's range by binary search on a numeric key and splice, instead of rebuilding the list
// from every unit. A new array each time, as the store and React compare by reference.

/** First index whose key is >= `key` (keys ascending). */
export function lowerBound<T>(arr: readonly T[], keyOf: (t: T) => number, key: number): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyOf(arr[mid]) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `arr` with the items whose key is in [from, to) replaced by `items` (already in order). */
export function spliceRange<T>(arr: readonly T[], keyOf: (t: T) => number, from: number, to: number, items: readonly T[]): T[] {
  const a = lowerBound(arr, keyOf, from);
  const b = lowerBound(arr, keyOf, to);
  if (a === b && items.length === 0) return arr as T[];
  const out = arr.slice(0, a);
  for (const x of items) out.push(x);
  for (let i = b; i < arr.length; i++) out.push(arr[i]);
  return out;
}

/** Insert `item` into `arr` sorted by `cmp` (after equal items, as a stable sort would). */
export function insertSorted<T>(arr: T[], item: T, cmp: (a: T, b: T) => number): void {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(arr[mid], item) <= 0) lo = mid + 1;
    else hi = mid;
  }
  arr.splice(lo, 0, item);
}
