import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/pipeline/config/config.js';

// The adapter keys of an agent (issue 11) are checked like every other key: the error names
// file:line:column and says what was expected; a key that would silently do nothing fails.

const errorOf = (text: string): ConfigError => {
  try {
    parseConfig(text, 'checkroom.yaml');
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError, got a config');
};

const cases: { name: string; yaml: string; at: string; words: string[] }[] = [
  { name: 'claude-code without a prompt', yaml: 'agents:\n  writer:\n    adapter: claude-code\n', at: '3:5', words: ['adapter claude-code needs a prompt'] },
  { name: 'claude-code with a command', yaml: 'agents:\n  writer:\n    adapter: claude-code\n    prompt: go\n    command: [claude]\n', at: '5:14', words: ['agents.writer.command', 'builds its own command'] },
  { name: 'a prompt on a command agent', yaml: 'agents:\n  writer:\n    command: [node]\n    prompt: go\n', at: '4:13', words: ['agents.writer.prompt', 'prompt is for adapter claude-code'] },
  { name: 'continue by a command that takes no partial', yaml: 'agents:\n  writer:\n    command: [node]\n    on_interrupt: continue\n', at: '4:19', words: ['agents.writer.on_interrupt', 'put {partial} (the half-product) or {backup} (a copy) in the command'] },
  { name: 'unknown adapter', yaml: 'agents:\n  writer:\n    adapter: codex\n    command: [codex]\n', at: '3:14', words: ['agents.writer.adapter', 'one of: command, claude-code, jsonl'] },
  { name: 'bad field path', yaml: 'agents:\n  w:\n    adapter: jsonl\n    command: [x]\n    fields: { cost: "usage..cost" }\n', at: '5:21', words: ['agents.w.fields.cost', 'a dotted field path'] },
  { name: 'negative money', yaml: 'limits:\n  max_cost_usd: -1\n', at: '2:17', words: ['limits.max_cost_usd', 'got -1', 'above 0'] },
  { name: 'unknown budget key', yaml: 'limits:\n  max_tokens: { session: 10, wrkspace: 5 }\n', at: '2:30', words: ['limits.max_tokens'] },
];

describe('agent adapter keys in checkroom.yaml', () => {
  it.each(cases)('$name', ({ yaml, at, words }) => {
    const e = errorOf(yaml);
    expect(e.message.startsWith(`checkroom.yaml:${at}: `), e.message).toBe(true);
    for (const w of words) expect(e.message).toContain(w);
  });

  it('resolves a claude-code agent, its options and the budgets', () => {
    const cfg = parseConfig(
      [
        'agents:',
        '  writer:',
        '    adapter: claude-code',
        '    prompt: "Write {output}; end with <!-- {marker} -->"',
        '    model: sonnet',
        '    permission_mode: acceptEdits',
        '    allowed_tools: [Write, Read]',
        '    args: [--max-turns, "8"]',
        '    on_interrupt: continue',
        'limits:',
        '  max_cost_usd: 5',
        '  max_tokens: { workspace: 2000000 }',
        '',
      ].join('\n'),
      'checkroom.yaml',
    );
    expect(cfg.agents.writer).toMatchObject({
      command: [],
      adapter: 'claude-code',
      onInterrupt: 'continue',
      cli: { prompt: 'Write {output}; end with <!-- {marker} -->', model: 'sonnet', permissionMode: 'acceptEdits', allowedTools: ['Write', 'Read'], args: ['--max-turns', '8'], bin: null, jsonl: null },
    });
    expect(cfg.limits.budget).toEqual({ costUsd: { session: 5, workspace: null }, tokens: { session: null, workspace: 2_000_000 } });
  });

  it('leaves a plain command agent exactly as before (no adapter keys at all)', () => {
    const cfg = parseConfig('agents:\n  writer:\n    command: [node, a.mjs]\n', 'checkroom.yaml');
    expect(Object.keys(cfg.agents.writer!).sort()).toEqual(['command', 'concurrency', 'cwd', 'env', 'executor', 'graceMs', 'idleTimeoutMs', 'kubernetes', 'name', 'rules', 'slurm', 'timeoutMs']);
    expect(cfg.limits.budget).toBeUndefined();
  });
});
