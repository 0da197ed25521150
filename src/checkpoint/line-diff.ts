// A unified line diff of a file before and after a rewrite (issue 17 item 2: the preview
// listed cell changes only, so a rewrite that dropped a note or a column looked harmless).
// Myers' O(ND) algorithm on the lines between the common head and tail; past a bound on the
// number of differences the middle is shown as removed then added — still the whole truth,
// only less tidy — so a pathological pair of files cannot cost quadratic time.

export type DiffOp = { op: '=' | '-' | '+'; text: string };

const MAX_D = 1000;

/** The edit script turning `a` into `b`, line by line. */
export function diffLines(a: string[], b: string[]): DiffOp[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const same = (xs: string[]): DiffOp[] => xs.map((text) => ({ op: '=', text }));
  const mid = myers(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  return [...same(a.slice(0, head)), ...mid, ...same(a.slice(a.length - tail))];
}

function myers(a: string[], b: string[]): DiffOp[] {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_D);
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  // Round d reads only v[k - 1] and v[k + 1] for k in [-d, d]: that window is kept per round.
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
      if (x >= n && y >= m) return backtrack(a, b, trace, d);
    }
  }
  return [...a.map((text): DiffOp => ({ op: '-', text })), ...b.map((text): DiffOp => ({ op: '+', text }))];
}

function backtrack(a: string[], b: string[], trace: Int32Array[], last: number): DiffOp[] {
  const out: DiffOp[] = [];
  let x = a.length;
  let y = b.length;
  const equal = (): void => {
    x--;
    y--;
    out.push({ op: '=', text: a[x] });
  };
  for (let d = last; d > 0; d--) {
    const t = trace[d];
    const at = (k: number): number => t[k + d + 1];
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const px = at(prevK);
    const py = px - prevK;
    while (x > px && y > py) equal();
    if (x === px) out.push({ op: '+', text: b[--y] });
    else out.push({ op: '-', text: a[--x] });
  }
  while (x > 0 && y > 0) equal();
  return out.reverse();
}

/**
 * `@@ -a,n +b,m @@` hunks with `context` lines around each change, lines prefixed with
 * ` `, `-` or `+` (line ends dropped: a rewrite keeps them). Empty when nothing changes.
 */
export function unifiedDiff(before: string, after: string, context = 2): string[] {
  const split = (s: string): string[] => (s === '' ? [] : s.replace(/\r?\n$/, '').split(/\r?\n/));
  const ops = diffLines(split(before), split(after));
  const changed = ops.map((o, i) => (o.op === '=' ? -1 : i)).filter((i) => i >= 0);
  if (!changed.length) return [];
  // Hunks: runs of changes closer than 2 × context lines share one hunk.
  const ranges: [number, number][] = [];
  for (const i of changed) {
    const last = ranges[ranges.length - 1];
    if (last && i - last[1] <= 2 * context + 1) last[1] = i;
    else ranges.push([i, i]);
  }
  // Line numbers before each op, in the old and new file.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let o = 1;
  let n = 1;
  for (const op of ops) {
    oldAt.push(o);
    newAt.push(n);
    if (op.op !== '+') o++;
    if (op.op !== '-') n++;
  }
  const out: string[] = [];
  for (const [from, to] of ranges) {
    const s = Math.max(0, from - context);
    const e = Math.min(ops.length - 1, to + context);
    const slice = ops.slice(s, e + 1);
    const olds = slice.filter((x) => x.op !== '+').length;
    const news = slice.filter((x) => x.op !== '-').length;
    out.push(`@@ -${olds ? oldAt[s] : oldAt[s] - 1},${olds} +${news ? newAt[s] : newAt[s] - 1},${news} @@`);
    for (const x of slice) out.push(`${x.op === '=' ? ' ' : x.op}${x.text}`);
  }
  return out;
}
