import { escapeJsonText } from '../text/json-escape.js';

// `redrive` and `redo` through the control socket (docs/redrive.md, docs/redo.md): what a
// second terminal asks of the control room that drives, checked field by field (a peer's JSON
// is untrusted), and what the driver answers. The driver applies each with the functions its
// own keys use; the request carries words (a filter, a cell), never a selection, so the
// preview and the applied set are the driver's view.

/** `apply`: the filter text as typed after `checkroom redrive`; `undo`: a name, or null for the last; `drain`: the queue left over. */
export type RedriveAsk = ({ kind: 'apply'; text: string } | { kind: 'undo'; which: string | null } | { kind: 'drain' }) & { by: string };

/** `checkroom redo [dir] UNIT STEP [--agent A] [--prompt P] --yes`, as the driver is asked it. */
export interface RedoAsk {
  unit: string;
  step: string;
  agent: string | null;
  prompt: string | null;
  by: string;
}

/** What the driver did: words for its message line and the CLI, and the document `--json` prints (docs/status-json.md). */
export interface ActAnswer {
  message: string;
  doc: Record<string, unknown>;
}

/** The driver's side: it applies the ask, or throws the refusal the asker reads (read-only, a file being written, an unknown cell). */
export interface ActPort {
  redrive(ask: RedriveAsk): Promise<ActAnswer>;
  redo(ask: RedoAsk): Promise<ActAnswer>;
}

/** An answer's document is bounded too (a preview lists every cell: ~200 bytes each). */
export const MAX_ANSWER = 8 * 1024 * 1024;

const str = (v: unknown): v is string => typeof v === 'string';
const strOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const obj = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** The `redrive` body, or null: a kind of three, and exactly the fields that kind takes, of their types. */
export function redriveAskOf(v: unknown): RedriveAsk | null {
  const o = obj(v);
  if (!o || !str(o.by)) return null;
  if (o.kind === 'apply') return str(o.text) && o.text.trim() !== '' ? { kind: 'apply', text: o.text, by: o.by } : null;
  if (o.kind === 'undo') return strOrNull(o.which) && o.which !== '' ? { kind: 'undo', which: o.which, by: o.by } : null;
  if (o.kind === 'drain') return { kind: 'drain', by: o.by };
  return null;
}

/** The `redo` body, or null: a cell (two non-empty words) and the fork's agent and prompt or null. */
export function redoAskOf(v: unknown): RedoAsk | null {
  const o = obj(v);
  if (!o || !str(o.unit) || !str(o.step) || o.unit === '' || o.step === '' || !str(o.by)) return null;
  if (!strOrNull(o.agent) || !strOrNull(o.prompt) || o.agent === '' || o.prompt === '') return null;
  return { unit: o.unit, step: o.step, agent: o.agent, prompt: o.prompt, by: o.by };
}

/** How many bytes the request line of `op` with `body` takes, as the client sends it (a token is 64 hex digits). */
export const requestBytes = (op: string, body: Record<string, unknown>): number =>
  Buffer.byteLength(escapeJsonText(JSON.stringify({ ...body, token: '0'.repeat(64), op })) + '\n');
