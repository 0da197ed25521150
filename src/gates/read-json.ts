import { readFile, stat } from 'node:fs/promises';

// Reading the JSON files of a gate-file workflow. The shipped gate writer is not atomic
// (docs/domain.md, Workflow gate files), so a file may be cut off mid-write: that is a half-product, told
// apart from other malformed content, and never a crash.

export type JsonRead =
  | { kind: 'ok'; value: unknown; bytes: number }
  | { kind: 'missing' }
  | { kind: 'truncated'; message: string; bytes: number; head: string }
  | { kind: 'malformed'; message: string; bytes: number }
  | { kind: 'error'; message: string };

/** Gates embed a full copy of the artifact (`validated_data`); past this, refuse to parse. */
const MAX_BYTES = 32 * 1024 * 1024;

/** What a cut-off file keeps of its text: the verdict fields come first (gate-file.ts cutOffVerdict). */
const HEAD_CHARS = 8192;

/** True when the text is a prefix of some valid JSON document: brackets or a string left open. */
export function looksTruncated(text: string): boolean {
  const t = text.trim();
  if (t === '') return true;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (const c of t) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return inString || depth > 0 || /[,:]$/.test(t);
}

export async function readJson(abs: string): Promise<JsonRead> {
  let text: string;
  let bytes: number;
  try {
    const st = await stat(abs);
    bytes = st.size;
    if (bytes > MAX_BYTES) return { kind: 'malformed', message: `${bytes} bytes is too large to read as JSON`, bytes };
    text = await readFile(abs, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'error', message: e.code === 'EACCES' ? 'permission denied; check the file mode' : e.message };
  }
  try {
    return { kind: 'ok', value: JSON.parse(text.replace(/^\uFEFF/, '')), bytes };
  } catch (err) {
    const message = (err as Error).message;
    return looksTruncated(text) ? { kind: 'truncated', message, bytes, head: text.slice(0, HEAD_CHARS) } : { kind: 'malformed', message, bytes };
  }
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
