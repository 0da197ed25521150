import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeCodeAdapter, classifyClaude } from '../../../../src/run/adapters/claude-code.js';
import { readClaudeLine } from '../../../../src/run/adapters/claude-facts.js';
import { commandAdapter } from '../../../../src/run/adapters/command.js';
import { jsonlFor } from '../../../../src/run/adapters/jsonl.js';
import { readLogFacts } from '../../../../src/run/adapters/log-facts.js';
import { emptyFacts, type AgentFacts } from '../../../../src/run/adapters/types.js';
import type { AgentDef } from '../../../../src/pipeline/config/types.js';
import { REPO, tempDir } from '../../../helpers/workspace.js';
import { agentDef } from '../../../helpers/agent.js';

// The adapters as pure functions (issue 11 item 3): argv from config, facts from a stream
// recorded from the real Claude Code CLI (test/fixtures/claude-stream-write.jsonl), torn and
// over-long lines, and the facts → class table.

const STREAM = readFileSync(join(REPO, 'test/fixtures/claude-stream-write.jsonl'), 'utf8').trimEnd().split('\n');
const fold = (lines: string[], read = readClaudeLine): AgentFacts => lines.reduce(read, emptyFacts());

const agent = (over: Partial<AgentDef> = {}): AgentDef => agentDef(over);
const claudeAgent = (cli: Partial<NonNullable<AgentDef['cli']>> = {}) =>
  agent({ adapter: 'claude-code', cli: { prompt: 'Write {output} for {unit}; last line <!-- {marker} --> (try {attempt})', model: null, permissionMode: 'acceptEdits', allowedTools: [], args: [], bin: null, jsonl: null, ...cli } });
const values = { unit: 'ch05', step: 'draft', output: '/w/drafts/ch05-draft.md', marker: 'DRAFT_COMPLETE', workspace: '/w', attempt: '2', backup: '', last_error: '' };

describe('claude-code argv', () => {
  it('prints stream-json, turns its own retries down, and puts the prompt after --', () => {
    const c = claudeCodeAdapter.build(claudeAgent({ model: 'sonnet', allowedTools: ['Write', 'Read'], args: ['--max-turns', '{attempt}'] }), values, null);
    expect(c.argv).toEqual(['claude', '-p', '--output-format', 'stream-json', '--verbose', '--model', 'sonnet', '--permission-mode', 'acceptEdits', '--allowedTools', 'Write,Read', '--max-turns', '2', '--', 'Write /w/drafts/ch05-draft.md for ch05; last line <!-- DRAFT_COMPLETE --> (try 2)']);
    expect(c.env).toEqual({ CLAUDE_CODE_MAX_RETRIES: '1' });
    // {attempt} changes between attempts without changing the situation: out of the fingerprint.
    expect(c.volatile).toEqual([12, 14]);
  });

  it('a resume continues the session with a prompt naming the half-product', () => {
    const c = claudeCodeAdapter.build(claudeAgent({ bin: '/opt/claude' }), values, { mode: 'resume', sessionId: 'abc-123', halfProduct: 'drafts/ch05-draft.md' });
    expect(c.argv.slice(0, 1)).toEqual(['/opt/claude']);
    expect(c.argv[c.argv.indexOf('--resume') + 1]).toBe('abc-123');
    expect(c.argv.at(-1)).toMatch(/interrupted.*\/w\/drafts\/ch05-draft\.md is a half-product.*<!-- DRAFT_COMPLETE --> its last line/);
  });

  it('the command adapter builds what checkroom always built', () => {
    const c = commandAdapter.build(agent({ command: ['node', 'a.mjs', '{unit}', '--try', '{attempt}'] }), values, null);
    expect(c).toEqual({ argv: ['node', 'a.mjs', 'ch05', '--try', '2'], env: {}, volatile: [4] });
  });
});

describe('claude-code stream → facts', () => {
  it('reads session, cwd, the last tool call, cost and tokens from a real stream', () => {
    const f = fold(STREAM);
    expect(f.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(f.activity).toBe('Write out.md');
    expect(f.openToolCall).toBeNull();
    expect(f.costUsd).toBeCloseTo(0.0216, 6);
    expect(f.tokens).toEqual({ input: 2400, output: 600, cacheRead: 0, cacheWrite: 0 });
    expect(f.result).toMatchObject({ isError: false, apiErrorStatus: null, terminalReason: 'completed', permissionDenials: 0 });
  });

  it('a stream cut after the tool call has an open tool call; torn lines still give the session', () => {
    const cut = STREAM.slice(0, 3);
    expect(fold(cut).openToolCall).toMatch(/^toolu_/);
    const torn = STREAM.map((l) => l.slice(0, 150));
    const f = fold(torn);
    expect(f.sessionId).toBe(fold(STREAM).sessionId);
    expect(f.tornLines).toBe(STREAM.length);
  });

  it('renders the conversation, never a JSON blob', () => {
    let f = emptyFacts();
    const shown: string[] = [];
    for (const l of STREAM) {
      f = readClaudeLine(f, l);
      const r = claudeCodeAdapter.render(l, f);
      if (r !== null) shown.push(r);
    }
    expect(shown[0]).toMatch(/^\[session [0-9a-f-]{36} · model claude-opus-5-5 · acceptEdits\]$/);
    expect(shown).toContain('-> Write out.md');
    expect(shown.at(-1)).toBe('[result: success · 2 turns · $0.0216 · 2400 in / 600 out tokens]');
    expect(shown.some((l) => l.includes('{"'))).toBe(false);
    expect(claudeCodeAdapter.render('plain stderr text', f)).toBe('plain stderr text');
  });

  it('reads a finished attempt from its log, a 3 MB line included, in bounded memory', async () => {
    const dir = tempDir();
    const log = join(dir, 'run.log');
    const huge = JSON.stringify({ type: 'assistant', session_id: 'sss', message: { content: [{ type: 'text', text: 'x'.repeat(3_000_000) }] } });
    writeFileSync(log, ['[checkroom] start', ...STREAM.slice(0, -1), huge, STREAM.at(-1), '[checkroom] end'].join('\n') + '\n');
    const f = await readLogFacts(claudeCodeAdapter, log);
    expect(f.costUsd).toBeCloseTo(0.0216, 6);
    expect(f.tornLines).toBe(1);
    expect(await readLogFacts(claudeCodeAdapter, join(dir, 'missing.log'))).toEqual(emptyFacts());
  });
});

describe('facts → class', () => {
  const result = (over: Partial<NonNullable<AgentFacts['result']>>, f: Partial<AgentFacts> = {}): AgentFacts => ({
    ...emptyFacts(),
    ...f,
    result: { isError: true, apiErrorStatus: null, terminalReason: 'api_error', text: '', permissionDenials: 0, denied: [], ...over },
  });
  it.each([
    [result({ apiErrorStatus: 429 }), 'RATE_LIMITED'],
    [result({ apiErrorStatus: 529 }), 'OVERLOADED'],
    [result({ apiErrorStatus: 401 }), 'PERMISSION'],
    [result({ apiErrorStatus: 403 }), 'PERMISSION'],
    [result({ apiErrorStatus: 400, terminalReason: 'prompt_too_long' }), 'CONTEXT_EXHAUSTED'],
    [result({ apiErrorStatus: 500 }), 'NETWORK'],
    [result({ apiErrorStatus: 400 }), 'INVALID_INPUT'],
    [result({}, { errorType: 'rate_limit' }), 'RATE_LIMITED'],
    [result({ isError: false, terminalReason: 'completed', permissionDenials: 1 }), 'PERMISSION'],
    [result({ isError: false, terminalReason: 'completed' }), 'VERIFICATION_FAILED'],
    [emptyFacts(), null],
  ].map(([f, c]) => [c, f] as const))('%s', (cls, facts) => {
    expect(classifyClaude(facts as AgentFacts, false)).toBe(cls);
  });
});

describe('jsonl adapter', () => {
  const fields = { session: 'sid', activity: 'tool.summary', cost: 'stats.usd', tokensIn: 'stats.in', tokensOut: 'stats.out', errorStatus: 'error.status', final: 'done' };
  const a = jsonlFor(fields);
  it('maps any JSON-lines stream with a few field paths', () => {
    const f = ['{"sid":"s1"}', 'not json at all', '{"tool":{"summary":"edit a.md"}}', '{"stats":{"usd":0.5,"in":10,"out":20},"done":true}'].reduce(a.read, emptyFacts());
    expect(f).toMatchObject({ sessionId: 's1', activity: 'edit a.md', costUsd: 0.5, tokens: { input: 10, output: 20 } });
    expect(a.classify(f, {} as never, false)).toBe('VERIFICATION_FAILED');
    expect(a.classify(['{"error":{"status":429}}'].reduce(a.read, emptyFacts()), {} as never, false)).toBe('RATE_LIMITED');
  });
});
