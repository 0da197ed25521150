// Myers' O(ND) shortest edit script between two line arrays, the one implementation behind
// every line diff checkroom shows (a backup against its original, a checkpoint rewrite's
// preview). Bounded: past `maxEdits` differences it gives up (null) and the caller says so
// or shows a summary, so a pathological pair of files cannot cost quadratic time. Round d
// reads only v[k - 1] and v[k + 1] for k in [-d, d], so only that window is kept per round.

export type EditOp = { kind: ' ' | '-' | '+'; a: number; b: number };

export function editScript(a: readonly string[], b: readonly string[], maxEdits: number): EditOp[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m, d);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], n: number, m: number, last: number): EditOp[] {
  const ops: EditOp[] = [];
  let x = n;
  let y = m;
  for (let d = last; d > 0; d--) {
    const t = trace[d];
    const at = (k: number): number => t[k + d + 1];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const pk = down ? k + 1 : k - 1;
    const px = at(pk);
    const py = px - pk;
    while (x > px && y > py) ops.push({ kind: ' ', a: --x, b: --y });
    if (down) ops.push({ kind: '+', a: x, b: --y });
    else ops.push({ kind: '-', a: --x, b: y });
  }
  while (x > 0 && y > 0) ops.push({ kind: ' ', a: --x, b: --y });
  return ops.reverse();
}
