// Reading one line of an agent's JSON-lines stream, tolerantly: lines reach us
// cut at the ring buffer's line limit, torn by a kill, or mixed with plain stderr text. A
// line that parses is an object; one that starts like JSON but does not parse still yields
// the few string and number fields an adapter needs, read from its prefix.

export type JsonObject = Record<string, unknown>;

export type LineValue = { kind: 'json'; value: JsonObject } | { kind: 'torn'; prefix: string } | { kind: 'text' };

/** Longer lines are not parsed whole: the prefix holds the fields that matter. */
export const MAX_PARSE_CHARS = 1 << 20;

export const readLine = (line: string): LineValue => {
  const t = line.trimStart();
  if (!t.startsWith('{')) return { kind: 'text' };
  if (t.length <= MAX_PARSE_CHARS) {
    try {
      const v: unknown = JSON.parse(t);
      if (v && typeof v === 'object' && !Array.isArray(v)) return { kind: 'json', value: v as JsonObject };
    } catch {
      // torn or cut: fall through to the prefix
    }
  }
  return { kind: 'torn', prefix: t.slice(0, 64 * 1024) };
};

const esc = (key: string): string => key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The first `"key":"value"` string in a torn line, JSON-unescaped when possible. */
export const prefixString = (prefix: string, key: string): string | null => {
  const m = new RegExp(`"${esc(key)}"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"`).exec(prefix);
  if (!m) return null;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return m[1]!;
  }
};

/** The first `"key":number` in a torn line. */
export const prefixNumber = (prefix: string, key: string): number | null => {
  const m = new RegExp(`"${esc(key)}"\\s*:\\s*(-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)`).exec(prefix);
  return m ? Number(m[1]) : null;
};

/** A dotted path into a parsed line (`usage.input_tokens`, `message.content.0.name`). */
export const getPath = (v: unknown, path: string): unknown => {
  let cur: unknown = v;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
};

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** One short line for the pane: whitespace collapsed, bounded. */
export const oneLine = (s: string, max = 160): string => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
