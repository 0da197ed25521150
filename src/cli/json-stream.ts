import { escapeJsonText, toJson } from './json.js';
import { JsonList } from './json-list.js';

// `status --json` at 50k files is ~10 MB of JSON (23.6 MB indented). Built as one
// string it is held twice more (the escaped copy, the write's buffer); streamed, the
// top-level arrays go out element by element in 64 KB chunks, and each element is the exact
// text JSON.stringify gives it. Compact for scripts; `--json=pretty` indents (one string:
// it is for eyes, on workspaces a screen can show).

const CHUNK = 64 * 1024;

export interface JsonSink {
  write(s: string): void;
}

/** `value` as JSON on `out`, compact and streamed (or indented with `pretty`), with a final newline. */
export function writeJson(value: unknown, out: JsonSink, pretty = false): void {
  if (pretty) return out.write(toJson(value) + '\n');
  let buf = '';
  // Escaped a chunk at a time, not a value at a time (50k cells: 50k regex passes saved). A
  // chunk ends after a whole put, never inside a string, so it never splits the surrogate
  // pair of an astral format character (a tag) that escapeJsonText writes as two escapes.
  const put = (s: string): void => {
    buf += s;
    if (buf.length >= CHUNK) {
      out.write(escapeJsonText(buf));
      buf = '';
    }
  };
  const leaf = (v: unknown): string => JSON.stringify(v) ?? 'null';
  const walk = (v: unknown, depth: number): void => {
    if (v instanceof JsonList) {
      put('[');
      v.items.forEach((x, i) => put(`${i ? ',' : ''}${leaf(v.json(x))}`));
      return put(']');
    }
    if (depth >= 2 || v === null || typeof v !== 'object' || typeof (v as { toJSON?: unknown }).toJSON === 'function') return put(leaf(v));
    if (Array.isArray(v)) {
      put('[');
      v.forEach((x, i) => {
        if (i) put(',');
        // Like JSON.stringify: what has no JSON form is null inside an array.
        if (x === undefined || typeof x === 'function' || typeof x === 'symbol') put('null');
        else walk(x, depth + 1);
      });
      return put(']');
    }
    put('{');
    let first = true;
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
      put(`${first ? '' : ','}${leaf(k)}:`);
      first = false;
      walk(x, depth + 1);
    }
    put('}');
  };
  walk(value, 0);
  out.write(escapeJsonText(buf) + '\n');
}

/** Compact JSON text (a control room's answer) as `--json=pretty` prints it. */
export const reindentJson = (text: string): string => toJson(JSON.parse(text)) + '\n';
