import { sanitizeLine } from '../../text/sanitize.js';
import { describeToolUse } from '../adapters/claude-facts.js';
import { getPath, num, oneLine, readLine, str, type JsonObject } from '../adapters/json-line.js';

// One log line as an operator reads it (docs/logs.md, "Readable events"): a Claude Code
// stream-json event or a JSON-lines agent's object becomes what it says (assistant text, a
// tool call with its name and target, a tool's result, the result with its cost), a plain
// line stays itself. Always one sanitized line: no byte of an agent's log reaches the
// terminal raw. The raw line is the pager's `r` and `logs --raw`.

export type EventKind = 'text' | 'assistant' | 'tool' | 'tool-result' | 'result' | 'system' | 'error';

export interface LogEvent {
  kind: EventKind;
  text: string;
}

const MAX = 2000;
const clean = (s: string, max = MAX): string => sanitizeLine(oneLine(s, max));

const blocks = (v: JsonObject): JsonObject[] => {
  const c = getPath(v, 'message.content');
  return Array.isArray(c) ? (c.filter((b) => b && typeof b === 'object') as JsonObject[]) : [];
};

const resultText = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((b) => str(getPath(b, 'text')) ?? '').filter(Boolean).join(' ') : '';

const money = (n: number | null): string => (n === null ? '' : ` · $${n.toFixed(4)}`);

const claudeResult = (v: JsonObject): LogEvent => {
  const tokens = [num(getPath(v, 'usage.input_tokens')), num(getPath(v, 'usage.output_tokens'))];
  const tok = tokens[0] === null ? '' : ` · ${tokens[0]} in / ${tokens[1] ?? 0} out`;
  const turns = num(v.num_turns);
  const tail = `${money(num(v.total_cost_usd))}${tok}${turns === null ? '' : ` · ${turns} turns`}`;
  const denied = getPath(v, 'permission_denials');
  if (v.is_error === true || (Array.isArray(denied) && denied.length > 0)) {
    const status = num(v.api_error_status);
    const why = str(v.result) ?? (Array.isArray(v.errors) ? v.errors.map(String).join('; ') : '') ?? '';
    const head = [status === null ? 'error' : `API error ${status}`, str(v.terminal_reason)].filter(Boolean).join(', ');
    const den = Array.isArray(denied) && denied.length > 0 ? ` · ${denied.length} permission denials` : '';
    return { kind: 'error', text: clean(`result ${head}${why ? `: ${why}` : ''}${den}${tail}`) };
  }
  return { kind: 'result', text: clean(`result ${str(v.subtype) ?? 'success'}${tail}${str(v.result) ? `: ${str(v.result)}` : ''}`) };
};

/** Claude Code's stream-json events; null when the object is not one of them. */
const claudeEvent = (v: JsonObject): LogEvent | null => {
  switch (v.type) {
    case 'system': {
      if (v.subtype === 'init') return { kind: 'system', text: clean(`session ${str(v.session_id) ?? '?'} · model ${str(v.model) ?? '?'} · cwd ${str(v.cwd) ?? '?'}`) };
      if (v.subtype === 'api_retry') {
        const delay = num(v.retry_delay_ms);
        const err = [num(v.error_status), str(v.error)].filter((x) => x !== null).join(' ');
        return { kind: 'error', text: clean(`API retry ${num(v.attempt) ?? '?'}/${num(v.max_retries) ?? '?'}${delay === null ? '' : ` in ${Math.round(delay / 1000)} s`}${err ? `: ${err}` : ''}`) };
      }
      return { kind: 'system', text: clean(`system ${str(v.subtype) ?? ''}`.trim()) };
    }
    case 'assistant': {
      const parts = blocks(v).map((b) =>
        b.type === 'tool_use' ? `→ ${describeToolUse(str(b.name) ?? 'tool', b.input)}` : b.type === 'text' ? (str(b.text) ?? '') : b.type === 'thinking' ? '(thinking)' : '',
      );
      const text = parts.filter(Boolean).join(' ');
      const isTool = blocks(v).some((b) => b.type === 'tool_use');
      if (str(v.error)) return { kind: 'error', text: clean(`API error: ${str(v.error)}${text ? ` · ${text}` : ''}`) };
      return { kind: isTool ? 'tool' : 'assistant', text: clean(isTool ? text : `assistant: ${text}`) };
    }
    case 'user': {
      const results = blocks(v).filter((b) => b.type === 'tool_result');
      if (results.length === 0) return { kind: 'system', text: clean(`user: ${blocks(v).map((b) => str(b.text) ?? '').join(' ')}`) };
      const err = results.some((b) => b.is_error === true);
      return { kind: err ? 'error' : 'tool-result', text: clean(`${err ? '✗ tool error' : '← tool result'}: ${results.map((b) => resultText(b.content)).join(' ')}`, 300) };
    }
    case 'result':
      return claudeResult(v);
    default:
      return null;
  }
};

const FIELDS = ['message', 'text', 'content', 'msg', 'error', 'result', 'output', 'status'];

/** Any other JSON line: its type and its first telling field. */
const genericEvent = (v: JsonObject): LogEvent => {
  const type = str(v.type) ?? str(v.event) ?? str(v.kind) ?? str(v.level);
  const key = FIELDS.find((k) => v[k] !== undefined && v[k] !== null);
  const val = key === undefined ? '' : typeof v[key] === 'string' ? (v[key] as string) : JSON.stringify(v[key]);
  const error = v.error !== undefined && v.error !== null && v.error !== false ? true : /error|fail/i.test(type ?? '');
  const text = [type, key && key !== 'message' && key !== 'text' ? `${key}: ${val}` : val].filter(Boolean).join(': ');
  return { kind: error ? 'error' : 'text', text: clean(text || JSON.stringify(v)) };
};

/** Words that make a plain line read as an error (the classifier's telltale, failure-message.ts). */
export const ERRORISH = /\b(?:error|fail(?:ed|ure)?|fatal|exception|denied|refused|cannot|can't|unable|invalid|traceback)\b/i;

/** A log line as an event: readable, one line, sanitized. */
export function readableLine(line: string): LogEvent {
  const r = readLine(line);
  if (r.kind === 'json') return claudeEvent(r.value) ?? genericEvent(r.value);
  const text = sanitizeLine(line);
  if (r.kind === 'torn') return { kind: 'text', text: `(cut JSON) ${text}` };
  return { kind: ERRORISH.test(line) ? 'error' : 'text', text };
}

/** The raw line, made safe to draw (control characters escaped) and nothing else changed. */
export const rawLine = (line: string): string => sanitizeLine(line);
