// Lists computed once per input. The store places every view's cursor, the
// tab bar counts and the views draw after each change, each asking for the same lists; and
// between two states most items are the same objects (live-derive.ts keeps unchanged units').
// So a list is kept while its inputs are the same objects, and the wrapper and key of an item
// are made once per item, not once per list: a change costs a pass of pointers, not garbage.

/** The last `size` results of a function of a few inputs, compared by identity. */
export function lastResults<T>(size = 2): (of: readonly unknown[], make: () => T) => T {
  const slots: { of: readonly unknown[]; value: T }[] = [];
  return (of, make) => {
    const hit = slots.findIndex((s) => s.of.length === of.length && s.of.every((x, i) => x === of[i]));
    if (hit >= 0) {
      const [s] = slots.splice(hit, 1);
      slots.unshift(s);
      return s.value;
    }
    const value = make();
    slots.unshift({ of, value });
    slots.length = Math.min(slots.length, size);
    return value;
  };
}

/** One value per object, made on first ask and kept while the object lives. */
export function perItem<K extends object, V>(make: (k: K) => V): (k: K) => V {
  const cache = new WeakMap<K, V>();
  return (k) => {
    let v = cache.get(k);
    if (v === undefined) cache.set(k, (v = make(k)));
    return v;
  };
}

/**
 * `next.map(f)` made from `prev.map(f)` (`prevOut`): the items both lists share at their
 * start and end are the same objects (a marker changes one unit's items in the middle), so
 * only the middle is mapped and the rest copied. O(changed) calls of `f`, and no per-item
 * lookups; a copy of pointers for the rest.
 */
export function mapByDelta<T, U>(prev: readonly T[] | null, prevOut: readonly U[] | null, next: readonly T[], f: (t: T) => U): U[] {
  if (!prev || !prevOut || prevOut.length !== prev.length) return next.map(f);
  const most = Math.min(prev.length, next.length);
  let head = 0;
  while (head < most && prev[head] === next[head]) head++;
  let tail = 0;
  while (tail < most - head && prev[prev.length - 1 - tail] === next[next.length - 1 - tail]) tail++;
  const out = prevOut.slice(0, head);
  for (let i = head; i < next.length - tail; i++) out.push(f(next[i]));
  for (let i = prevOut.length - tail; i < prevOut.length; i++) out.push(prevOut[i]);
  return out;
}

/** `mapByDelta` against the last list it was given. */
export function lastMapped<T, U>(f: (t: T) => U): (next: readonly T[]) => U[] {
  let last: { in: readonly T[]; out: U[] } | null = null;
  return (next) => {
    if (last?.in === next) return last.out;
    const out = mapByDelta(last?.in ?? null, last?.out ?? null, next, f);
    last = { in: next, out };
    return out;
  };
}
