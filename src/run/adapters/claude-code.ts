import type { FailureClass } from '../../pipeline/config/types.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { expandArgv } from '../attempt/placeholders.js';
import { describeToolUse, readClaudeLine } from './claude-facts.js';
import { getPath, num, oneLine, prefixNumber, prefixString, readLine, str, type JsonObject } from './json-line.js';
import { continuePrompt, type AgentAdapter, type AgentFacts } from './types.js';
import type { RawAgent, SchemaKit } from '../../pipeline/schema.js';

// `adapter: claude-code`: the real Claude Code CLI in print mode with its
// stream-json output. checkroom owns retries: the CLI's own are turned down to one (which
// honours retry-after and reports retry_delay_ms in system/api_retry), and a failure ends
// the attempt so it is classified and counted here, with the delay the stream asked for.

/** CLAUDE_CODE_MAX_RETRIES unless the agent's env says otherwise. */
export const CLAUDE_RETRIES = '1';

const VOLATILE = /\{(?:attempt|last_error|backup|partial)\}/;

const fixedArgs = ['-p', '--output-format', 'stream-json', '--verbose'];

/**
 * Least privilege that works: an agent with no permission settings may
 * edit its own {output} — for a memory step that is the shared file it owns — and nothing
 * else. In print mode the CLI denies every Write it was not allowed, so the documented
 * minimal config escalated as PERMISSION. `Edit(//abs)` is the CLI's rule for an absolute
 * path (Edit rules cover Write too); the path is a gitignore-style pattern, so its glob
 * characters are escaped to match only this file.
 */
export const ownOutputRule = (outputAbs: string): string => `Edit(/${outputAbs.replace(/[\\*?[\]!]/g, (c) => `\\${c}`)})`;

/** Facts → class. null: the facts say nothing; the regex rules decide. */
export const classifyClaude = (f: AgentFacts, markerFound: boolean): FailureClass | null => {
  const r = f.result;
  const status = r?.apiErrorStatus ?? null;
  const type = f.errorType ?? '';
  const text = r?.text ?? '';
  if (r?.terminalReason === 'prompt_too_long' || /context[_ ]window|max_context/i.test(r?.terminalReason ?? '') || /prompt is too long/i.test(text)) return 'CONTEXT_EXHAUSTED';
  if (status === 429 || /rate_limit/.test(type)) return 'RATE_LIMITED';
  if (status === 529 || status === 503 || /overloaded/.test(type)) return 'OVERLOADED';
  if (status === 401 || status === 403 || /authentication|permission/.test(type)) return 'PERMISSION';
  if (status !== null && status >= 500) return 'NETWORK';
  if (status === 400 || /invalid_request/.test(type)) return 'INVALID_INPUT';
  if (r && !r.isError && !markerFound) return r.permissionDenials > 0 ? 'PERMISSION' : 'VERIFICATION_FAILED';
  return null;
};

const money = (usd: number | null): string => (usd === null ? '' : ` · $${usd.toFixed(4)}`);

const renderJson = (v: JsonObject, cwd: string | null): string | null => {
  if (v.type === 'system') {
    if (v.subtype === 'init') return `[session ${str(v.session_id) ?? '?'} · model ${str(v.model) ?? '?'} · ${str(v.permissionMode) ?? ''}]`;
    if (v.subtype === 'api_retry') return `[api retry ${num(v.attempt) ?? '?'} of ${num(v.max_retries) ?? '?'} in ${((num(v.retry_delay_ms) ?? 0) / 1000).toFixed(1)} s: ${num(v.error_status) ?? '-'} ${str(v.error) ?? ''}]`;
    if (v.subtype === 'permission_denied') return `[permission denied: ${str(v.tool_name) ?? '?'}: ${oneLine(str(v.message) ?? '', 120)}]`;
    return null;
  }
  if (v.type === 'assistant' || v.type === 'user') {
    const blocks = getPath(v, 'message.content');
    const out: string[] = [];
    for (const b of Array.isArray(blocks) ? (blocks as JsonObject[]) : []) {
      if (b?.type === 'text' && str(b.text)) out.push(`${v.type === 'assistant' ? 'claude' : 'user'}: ${oneLine(str(b.text)!)}`);
      if (b?.type === 'tool_use') out.push(`-> ${describeToolUse(str(b.name) ?? 'tool', b.input, cwd)}`);
      if (b?.type === 'tool_result') {
        const c = typeof b.content === 'string' ? b.content : JSON.stringify(b.content ?? '');
        out.push(`<- ${b.is_error === true ? 'error: ' : ''}${oneLine(c, 120)}`);
      }
    }
    return out.length > 0 ? out.join(' | ') : null;
  }
  if (v.type === 'result') {
    const turns = num(v.num_turns);
    const verdict = v.is_error === true ? `error ${num(v.api_error_status) ?? ''} ${str(v.terminal_reason) ?? ''}: ${oneLine(str(v.result) ?? '', 100)}` : `${str(v.subtype) ?? 'done'}`;
    const tokens = `${num(getPath(v, 'usage.input_tokens')) ?? 0} in / ${num(getPath(v, 'usage.output_tokens')) ?? 0} out tokens`;
    return `[result: ${verdict.replace(/\s+/g, ' ')} · ${turns ?? '?'} turns${money(num(v.total_cost_usd))} · ${tokens}]`;
  }
  return null;
};

/** A line cut at the pane's line limit: init and result lines are long; their head says enough. */
const renderTorn = (prefix: string, cwd: string | null): string => {
  const type = prefixString(prefix, 'type');
  const sub = prefixString(prefix, 'subtype');
  if (type === 'system' && sub === 'init') return `[session ${prefixString(prefix, 'session_id') ?? '?'} · model ${prefixString(prefix, 'model') ?? '?'}]`;
  if (type === 'result' || prefix.startsWith('{"duration_api_ms"')) {
    const reason = prefixString(prefix, 'terminal_reason') ?? 'finished';
    return `[result: ${reason}${money(prefixNumber(prefix, 'total_cost_usd'))} · ${prefixNumber(prefix, 'input_tokens') ?? 0} in / ${prefixNumber(prefix, 'output_tokens') ?? 0} out tokens]`;
  }
  if (type === 'assistant') {
    const m = /"type"\s*:\s*"tool_use"\s*,\s*"id"\s*:\s*"[^"]+"\s*,\s*"name"\s*:\s*"([^"]+)"/.exec(prefix);
    if (m) return `-> ${describeToolUse(m[1]!, { file_path: prefixString(prefix.slice(m.index), 'file_path') ?? undefined }, cwd)}`;
  }
  return `[long ${type ?? 'JSON'} line cut; the log keeps it whole]`;
};

/** The agent keys only this adapter reads. */
const keys = ({ z, text, textList }: SchemaKit) => ({
  prompt: text.optional(),
  model: text.optional(),
  permission_mode: z.string({ error: 'a permission mode like acceptEdits' }).regex(/^[A-Za-z]+$/, { error: 'a permission mode like acceptEdits' }).optional(),
  allowed_tools: textList.optional(),
  bin: text.optional(),
});

export const claudeCodeAdapter: AgentAdapter = {
  id: 'claude-code',
  build(agent, values, resume) {
    const cli = agent.cli;
    if (!cli?.prompt) throw new Error('adapter claude-code needs a prompt:');
    // The continue prompt names the half-product by its absolute path (the agent's tools need one).
    const task = expandArgv([cli.prompt], values)[0]!;
    const named = resume ? continuePrompt({ ...resume, halfProduct: values.output || resume.halfProduct }, values.marker ?? '') : '';
    // A resumed session knows its task; a hand-off is a fresh session that needs it first.
    const prompt = !resume ? task : resume.mode === 'resume' ? named : `${task}\n\n${named}`;
    const argv = [cli.bin ?? 'claude', ...fixedArgs];
    if (cli.model) argv.push('--model', cli.model);
    if (cli.permissionMode) argv.push('--permission-mode', cli.permissionMode);
    if (cli.allowedTools.length > 0) argv.push('--allowedTools', cli.allowedTools.join(','));
    else if (!cli.permissionMode && values.output) argv.push('--allowedTools', ownOutputRule(values.output));
    if (resume?.mode === 'resume' && resume.sessionId) argv.push('--resume', resume.sessionId);
    const extraAt = argv.length;
    argv.push(...expandArgv(cli.args, values));
    // The prompt goes last, after `--`, so a prompt starting with "-" is never an option.
    argv.push('--', prompt);
    const volatile = [
      ...cli.args.flatMap((el, i) => (VOLATILE.test(el) ? [extraAt + i] : [])),
      ...(VOLATILE.test(cli.prompt) ? [argv.length - 1] : []),
    ];
    return { argv, env: { CLAUDE_CODE_MAX_RETRIES: CLAUDE_RETRIES }, volatile };
  },
  read: readClaudeLine,
  render(line, facts) {
    const r = readLine(line);
    if (r.kind === 'text') return line;
    if (r.kind === 'torn') return sanitizeLine(renderTorn(r.prefix, facts.cwd));
    const shown = renderJson(r.value, facts.cwd ?? (r.value.subtype === 'init' ? str(r.value.cwd) : null));
    return shown === null ? null : sanitizeLine(shown);
  },
  classify: (facts, _outcome, markerFound) => classifyClaude(facts, markerFound),
  canResume: true,
  config: {
    keys,
    check(_a, is) {
      is.need('prompt', 'adapter claude-code needs a prompt: template');
      is.forbid('command', 'adapter claude-code builds its own command from prompt (use bin: and args: instead)');
    },
    resolve(a, agent) {
      const own = a as RawAgent & { prompt?: string; model?: string; permission_mode?: string; allowed_tools?: string[]; bin?: string };
      return {
        ...agent,
        adapter: 'claude-code',
        cli: {
          prompt: own.prompt ?? null,
          model: own.model ?? null,
          permissionMode: own.permission_mode ?? null,
          allowedTools: [...(own.allowed_tools ?? [])],
          args: [...(a.args ?? [])],
          bin: own.bin ?? null,
          jsonl: null,
        },
      };
    },
  },
};
