import type { FailureClass, JsonlFields } from '../../pipeline/config/types.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { commandAdapter } from './command.js';
import { getPath, num, oneLine, readLine, str } from './json-line.js';
import type { AgentAdapter, AgentFacts } from './types.js';
import type { RawAgent, SchemaKit } from '../../pipeline/schema.js';

// `adapter: jsonl`: any agent that writes JSON lines, mapped with a few
// dotted field paths in checkroom.yaml (`fields:`). The command is the agent's `command:`;
// each line is looked at for every configured path, and what it has, counts.

/** `final:` counts when its field is there at all; `is_error:` when it says so (true, "error", an error object). */
const present = (v: unknown): boolean => v !== undefined && v !== null && v !== false;
const saysError = (v: unknown): boolean => v === true || v === 'true' || v === 'error' || v === 'failed' || (typeof v === 'number' && v !== 0) || (typeof v === 'object' && v !== null);

/** An HTTP status named in an error text (`"code":429`, `429 Too Many Requests`). */
const statusIn = (text: string): number | null => {
  const m = /"code"\s*:\s*(\d{3})\b/.exec(text) ?? /\b(429|529|503|502|500|401|403)\b/.exec(text);
  return m ? Number(m[1]) : null;
};

const statusClass = (status: number): FailureClass | null =>
  status === 429 ? 'RATE_LIMITED' : status === 529 || status === 503 ? 'OVERLOADED' : status === 401 || status === 403 ? 'PERMISSION' : status >= 500 ? 'NETWORK' : null;

export const readJsonlLine = (fields: JsonlFields, f: AgentFacts, line: string): AgentFacts => {
  const r = readLine(line);
  if (r.kind !== 'json') return r.kind === 'torn' ? { ...f, tornLines: f.tornLines + 1 } : f;
  const v = r.value;
  const at = (path: string | undefined): unknown => (path ? getPath(v, path) : undefined);
  const next = { ...f };
  const session = str(at(fields.session));
  if (session) next.sessionId = session;
  const activity = at(fields.activity);
  if (typeof activity === 'string' && activity.trim() !== '') {
    const detail = str(at(fields.activityDetail));
    next.activity = sanitizeLine(oneLine(detail ? `${activity} ${detail}` : activity, 120));
  }
  const cost = num(at(fields.cost));
  if (cost !== null) next.costUsd = cost;
  const tin = num(at(fields.tokensIn));
  const tout = num(at(fields.tokensOut));
  if (tin !== null || tout !== null) next.tokens = { input: tin ?? f.tokens?.input ?? 0, output: tout ?? f.tokens?.output ?? 0, cacheRead: 0, cacheWrite: 0 };
  const isFinal = fields.final ? present(at(fields.final)) : false;
  const isError = at(fields.isError);
  const status = num(at(fields.errorStatus));
  if (isFinal || isError !== undefined || status !== null) {
    const text = str(at(fields.errorText)) ?? f.result?.text ?? '';
    next.result = {
      isError: saysError(isError) || (status !== null && status >= 400),
      apiErrorStatus: status ?? statusIn(text) ?? f.result?.apiErrorStatus ?? null,
      terminalReason: null,
      text: sanitizeLine(oneLine(text, 400)),
      permissionDenials: 0,
      denied: [],
    };
  }
  return next;
};

// Field paths are dotted keys into each JSON line.
const fieldKeys = ['session', 'activity', 'activity_detail', 'cost', 'tokens_in', 'tokens_out', 'is_error', 'error_status', 'error_text', 'final'] as const;

/** The agent key only this adapter reads: `fields:`, one optional path per fact. */
const keys = ({ z }: SchemaKit) => {
  const path = z.string({ error: 'a dotted field path like usage.input_tokens' }).regex(/^[A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*$/, { error: 'a dotted field path like usage.input_tokens' });
  return { fields: z.strictObject(Object.fromEntries(fieldKeys.map((k) => [k, path.optional()]))).optional() };
};

type RawFields = Partial<Record<(typeof fieldKeys)[number], string>>;

const toFields = (f: RawFields): JsonlFields => ({
  session: f.session, activity: f.activity, activityDetail: f.activity_detail, cost: f.cost, tokensIn: f.tokens_in, tokensOut: f.tokens_out,
  isError: f.is_error, errorStatus: f.error_status, errorText: f.error_text, final: f.final,
});

export const jsonlAdapter: AgentAdapter = {
  id: 'jsonl',
  build: (agent, values) => commandAdapter.build(agent, values, null),
  read: (f) => f,
  render: (line) => line,
  classify(f, _o, markerFound) {
    const r = f.result;
    if (!r) return null;
    if (r.apiErrorStatus !== null) {
      const c = statusClass(r.apiErrorStatus);
      if (c) return c;
    }
    if (/prompt is too long|context (?:length|window)/i.test(r.text)) return 'CONTEXT_EXHAUSTED';
    if (!r.isError && !markerFound) return 'VERIFICATION_FAILED';
    return null;
  },
  canResume: false,
  config: {
    keys,
    check: (_a, is) => is.need('command', 'adapter jsonl needs a command: argument array'),
    resolve(a, agent) {
      const f = (a as RawAgent & { fields?: RawFields }).fields;
      return {
        ...agent,
        adapter: 'jsonl',
        cli: { prompt: null, model: null, permissionMode: null, allowedTools: [], args: [...(a.args ?? [])], bin: null, jsonl: f ? toFields(f) : null },
      };
    },
  },
  forAgent: (agent) => jsonlFor(agent.cli?.jsonl ?? {}),
};

/** The jsonl adapter bound to one agent's field paths. */
export const jsonlFor = (fields: JsonlFields): AgentAdapter => ({ ...jsonlAdapter, read: (f, line) => readJsonlLine(fields, f, line) });
