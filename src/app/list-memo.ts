// Lists computed once per input (issue 18 item 6). The store places every view's cursor, the
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
