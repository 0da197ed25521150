import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { describeExpected } from './schema.js';
import { ConfigError } from './config/error.js';

export { ConfigError } from './config/error.js';

// A YAML file whose every error points at the node that caused it (file:line:column), shared
// by checkroom.yaml and preset files: a typo in a pipeline that runs for days
// must fail at start, not silently skip a dependency at 3 a.m. The CLI maps ConfigError to exit code 2.

export type YamlPath = (string | number)[];

/** The parsed file, kept so any later check can point back at a node. */
export interface Source {
  file: string;
  doc: Document;
  lines: LineCounter;
}

const nodeAt = (doc: Document, path: YamlPath): unknown => (path.length === 0 ? doc.contents : doc.getIn(path, true));

/** Line and column of the node at `path` (or of `key` inside that mapping); walks up to the nearest node that exists. */
const positionOf = (src: Source, path: YamlPath, key?: string): { line: number; column: number } | null => {
  let p = path;
  let node = nodeAt(src.doc, p) as { range?: [number, number, number] } | undefined;
  while (!node?.range && p.length > 0) {
    p = p.slice(0, -1);
    node = nodeAt(src.doc, p) as typeof node;
    key = undefined;
  }
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === key);
    if (pair && isScalar(pair.key) && pair.key.range) node = { range: pair.key.range };
  }
  if (!node?.range) return null;
  const { line, col } = src.lines.linePos(node.range[0]);
  return { line, column: col };
};

export const errorAt = (src: Source, path: YamlPath, problem: string, expected: string, key?: string): ConfigError => {
  const pos = positionOf(src, path, key);
  return new ConfigError({ file: src.file, line: pos?.line ?? null, column: pos?.column ?? null, problem, expected });
};

const formatPath = (path: YamlPath): string =>
  path.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : /^[A-Za-z_][\w-]*$/.test(k) ? (acc ? `${acc}.${k}` : k) : `${acc}[${JSON.stringify(k)}]`), '');
const inside = (path: YamlPath): string => (path.length === 0 ? 'at top level' : `in ${formatPath(path)}`);

const valueAt = (data: unknown, path: YamlPath): unknown =>
  path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), data);

const describe = (v: unknown): string => {
  if (typeof v === 'string') return `got the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'number') return `got ${Number.isNaN(v) ? '.nan' : v === Infinity ? '.inf' : v === -Infinity ? '-.inf' : v}`;
  if (v === null) return 'got null';
  if (Array.isArray(v)) return 'got a list';
  return typeof v === 'object' ? 'got a mapping' : `got ${String(v)}`;
};

const issueError = (src: Source, data: unknown, iss: z.core.$ZodIssue): ConfigError => {
  const path = iss.path.filter((k): k is string | number => typeof k !== 'symbol');
  const value = valueAt(data, path);
  if (iss.code === 'unrecognized_keys') {
    const keys = iss.keys.map((k) => JSON.stringify(k)).join(', ');
    return errorAt(src, path, `unknown key${iss.keys.length > 1 ? 's' : ''} ${keys} ${inside(path)}`, iss.message, iss.keys[0]);
  }
  if (value === undefined && path.length > 0) {
    return errorAt(src, path, `missing key "${path[path.length - 1]}" ${inside(path.slice(0, -1))}`, iss.message);
  }
  const custom = iss.code === 'custom' ? (iss.params as { problem?: string } | undefined)?.problem : undefined;
  const where = path.length === 0 ? 'the file' : formatPath(path);
  // Under secrets: what was written may be the value itself: never echoed (docs/scale-out.md, Secrets).
  const found = path[0] === 'secrets' ? '(not shown: a secret\'s value never goes in checkroom.yaml)' : describe(value);
  const problem = custom ? `${custom} in ${where}` : `${iss.code === 'invalid_type' ? 'wrong type' : 'invalid value'} for ${where}: ${found}`;
  return errorAt(src, path, problem, iss.message);
};

/** Of several errors, the first in the file: the one a reader meets first. */
const earliest = (errors: ConfigError[]): ConfigError =>
  errors.reduce((a, b) => ((b.line ?? Infinity) < (a.line ?? Infinity) || (b.line === a.line && (b.column ?? 0) < (a.column ?? 0)) ? b : a));

/** Parses `text` as YAML and validates it with `schema`; the first error in the file is thrown. */
export function parseYamlSource<S extends z.ZodType>(text: string, file: string, schema: S): { src: Source; data: z.output<S> } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const src: Source = { file, doc, lines };
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const { line, col } = lines.linePos(e.pos[0]);
    throw new ConfigError({ file, line, column: col, problem: `YAML syntax error: ${e.message.split('\n')[0]}`, expected: 'valid YAML' });
  }
  let data: unknown = {};
  try {
    if (doc.contents !== null) data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // yaml refuses alias expansion past the limit ("billion laughs"); report it like any YAML error.
    throw new ConfigError({ file, line: 1, column: 1, problem: `YAML error: ${(e as Error).message}`, expected: 'valid YAML with few aliases' });
  }
  const parsed = schema.safeParse(data ?? {}, { error: describeExpected });
  if (!parsed.success) throw earliest(parsed.error.issues.map((iss) => issueError(src, data, iss)));
  return { src, data: parsed.data };
}
