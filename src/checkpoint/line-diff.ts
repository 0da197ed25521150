// A unified line diff of a file before and after a rewrite (the preview
// listed cell changes only, so a rewrite that dropped a note or a column looked harmless).
// Myers' O(ND) algorithm on the lines between the common head and tail; past a bound on the
// number of differences the middle is shown as removed then added — still the whole truth,
// only less tidy — so a pathological pair of files cannot cost quadratic time.

import { editScript } from '../text/edit-script.js';

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
  const ops = editScript(a, b, MAX_D);
  if (ops === null) return [...a.map((text): DiffOp => ({ op: '-', text })), ...b.map((text): DiffOp => ({ op: '+', text }))];
  return ops.map((o): DiffOp => (o.kind === '+' ? { op: '+', text: b[o.b] } : { op: o.kind === '-' ? '-' : '=', text: a[o.a] }));
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
