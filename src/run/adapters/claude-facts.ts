import { sanitizeLine } from '../../text/sanitize.js';
import { getPath, num, oneLine, prefixNumber, prefixString, readLine, str, type JsonObject } from './json-line.js';
import type { AgentFacts, TokenCounts } from './types.js';

// Claude Code's `--output-format stream-json --verbose` stream, read into facts.
// Event shapes as the CLI (2.1.x) writes them, seen against the scripted model server:
// system/init (session_id, model, tools), assistant (message.content: text, tool_use),
// user (tool_result), system/api_retry (attempt, max_retries, retry_delay_ms, error_status,
// error), system/permission_denied, result (is_error, api_error_status, terminal_reason,
// total_cost_usd, usage, permission_denials, num_turns, session_id).

const short = (p: string, cwd: string | null): string => {
  if (cwd && p.startsWith(`${cwd.replace(/\/+$/, '')}/`)) return p.slice(cwd.replace(/\/+$/, '').length + 1);
  const parts = p.split('/').filter(Boolean);
  return parts.length > 3 ? `…/${parts.slice(-3).join('/')}` : p;
};

/** "Write drafts/ch05-draft.md", "Bash npm test": what a tool call is doing, in one line. */
export const describeToolUse = (name: string, input: unknown, cwd: string | null = null): string => {
  const i = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const target = str(i.file_path) ?? str(i.notebook_path) ?? str(i.path);
  const detail = target ? short(target, cwd) : (str(i.command) ?? str(i.pattern) ?? str(i.url) ?? str(i.description) ?? '');
  return sanitizeLine(oneLine(detail ? `${name} ${detail}` : name, 120));
};

const tokensOf = (u: unknown): TokenCounts | null => {
  if (!u || typeof u !== 'object') return null;
  return {
    input: num(getPath(u, 'input_tokens')) ?? 0,
    output: num(getPath(u, 'output_tokens')) ?? 0,
    cacheRead: num(getPath(u, 'cache_read_input_tokens')) ?? 0,
    cacheWrite: num(getPath(u, 'cache_creation_input_tokens')) ?? 0,
  };
};

const content = (v: JsonObject): JsonObject[] => {
  const c = getPath(v, 'message.content');
  return Array.isArray(c) ? (c.filter((b) => b && typeof b === 'object') as JsonObject[]) : [];
};

/** "Write /abs/path" with the full path: the operator must see which file was refused. */
const deniedCall = (d: unknown): string => {
  const name = str(getPath(d, 'tool_name')) ?? 'tool';
  const input = getPath(d, 'tool_input');
  const target = str(getPath(input, 'file_path')) ?? str(getPath(input, 'notebook_path')) ?? str(getPath(input, 'command'));
  return sanitizeLine(oneLine(target ? `${name} ${target}` : name, 300));
};

const onResult = (f: AgentFacts, v: JsonObject): AgentFacts => {
  const denials = getPath(v, 'permission_denials');
  return {
    ...f,
    sessionId: str(v.session_id) ?? f.sessionId,
    costUsd: num(v.total_cost_usd) ?? f.costUsd,
    tokens: tokensOf(v.usage) ?? f.tokens,
    result: {
      isError: v.is_error === true,
      apiErrorStatus: num(v.api_error_status),
      terminalReason: str(v.terminal_reason),
      text: sanitizeLine(oneLine(str(v.result) ?? (Array.isArray(v.errors) ? v.errors.map(String).join('; ') : ''), 400)),
      permissionDenials: Array.isArray(denials) ? denials.length : 0,
      denied: Array.isArray(denials) ? denials.slice(0, 5).map((d) => deniedCall(d)) : [],
    },
  };
};

const onJson = (f: AgentFacts, v: JsonObject): AgentFacts => {
  const sessionId = str(v.session_id) ?? f.sessionId;
  switch (v.type) {
    case 'system':
      if (v.subtype === 'api_retry') {
        const delay = num(v.retry_delay_ms);
        return { ...f, sessionId, apiRetries: f.apiRetries + 1, retryDelayMs: delay === null ? f.retryDelayMs : Math.max(delay, f.retryDelayMs ?? 0) };
      }
      return { ...f, sessionId, cwd: v.subtype === 'init' ? (str(v.cwd) ?? f.cwd) : f.cwd };
    case 'assistant': {
      let { activity, openToolCall } = f;
      for (const b of content(v)) {
        if (b.type === 'tool_use') {
          activity = describeToolUse(str(b.name) ?? 'tool', b.input, f.cwd);
          openToolCall = str(b.id) ?? openToolCall;
        }
      }
      // A synthetic assistant message carries the API error's type ("rate_limit").
      return { ...f, sessionId, activity, openToolCall, errorType: str(v.error) ?? f.errorType };
    }
    case 'user': {
      const answered = content(v).some((b) => b.type === 'tool_result' && str(b.tool_use_id) === f.openToolCall);
      return { ...f, sessionId, openToolCall: answered ? null : f.openToolCall };
    }
    case 'result':
      return onResult({ ...f, sessionId }, v);
    default:
      return { ...f, sessionId };
  }
};

/** A torn line still gives its session, and for a result the numbers written before the cut. */
const onTorn = (f: AgentFacts, prefix: string): AgentFacts => {
  const sessionId = prefixString(prefix, 'session_id') ?? f.sessionId;
  const type = prefixString(prefix, 'type');
  const cwd = type === 'system' && prefixString(prefix, 'subtype') === 'init' ? (prefixString(prefix, 'cwd') ?? f.cwd) : f.cwd;
  const next = { ...f, sessionId, cwd, tornLines: f.tornLines + 1 };
  if (type === 'result' || /^\{"(?:duration_api_ms|type":"result)/.test(prefix)) {
    const cost = prefixNumber(prefix, 'total_cost_usd');
    const input = prefixNumber(prefix, 'input_tokens');
    return { ...next, costUsd: cost ?? f.costUsd, tokens: input === null ? f.tokens : { input, output: prefixNumber(prefix, 'output_tokens') ?? 0, cacheRead: prefixNumber(prefix, 'cache_read_input_tokens') ?? 0, cacheWrite: prefixNumber(prefix, 'cache_creation_input_tokens') ?? 0 } };
  }
  if (type === 'assistant') {
    const m = /"type"\s*:\s*"tool_use"\s*,\s*"id"\s*:\s*"([^"]+)"\s*,\s*"name"\s*:\s*"([^"]+)"/.exec(prefix);
    if (m) return { ...next, openToolCall: m[1]!, activity: describeToolUse(m[2]!, { file_path: prefixString(prefix.slice(m.index), 'file_path') ?? undefined }, f.cwd) };
  }
  return next;
};

/** Fold one line of the stream into the facts. Never throws. */
export const readClaudeLine = (f: AgentFacts, line: string): AgentFacts => {
  const r = readLine(line);
  if (r.kind === 'json') return onJson(f, r.value);
  if (r.kind === 'torn') return onTorn(f, r.prefix);
  return f;
};
