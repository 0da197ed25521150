import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/pipeline/config/config.js';

// Every error names file:line:column (1-based) of the node that caused it and says what was
// expected. Positions are asserted exactly: a wrong line sends the user to the wrong place.

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
  { name: 'unknown key at top level', yaml: 'name: x\nnmae: y\n', at: '2:1', words: ['unknown key "nmae" at top level', 'one of: preset, replace, name'] },
  {
    name: 'unknown key inside steps[2]',
    yaml: 'steps:\n  - id: research\n  - id: draft\n  - id: r1\n    label: R1\n    dependson: [draft]\n',
    at: '6:5',
    words: ['unknown key "dependson" in steps[2]', 'expected one of: id, label, aliases, path, marker, depends_on, phase, kind, agent, min_chars'],
  },
  { name: 'unknown key inside agents.writer', yaml: 'agents:\n  writer:\n    command: [node]\n    idle: 30s\n', at: '4:5', words: ['unknown key "idle" in agents.writer', 'idle_timeout'] },
  { name: 'wrong type', yaml: 'steps:\n  - id: draft\n    min_chars: many\n', at: '3:16', words: ['wrong type for steps[0].min_chars', '"many"', 'an integer'] },
  { name: 'unknown dependency', yaml: 'steps:\n  - id: draft\n    depends_on: [research, resarch]\n', at: '3:28', words: ['unknown step "resarch"', 'one of: research'] },
  {
    name: 'a 3-step cycle',
    yaml: 'replace: true\nsteps:\n  - {id: a, path: "a/{unit}.md", marker: A_DONE, phase: 3, depends_on: [c]}\n  - {id: b, path: "b/{unit}.md", marker: B_DONE, phase: 3, depends_on: [a]}\n  - {id: c, path: "c/{unit}.md", marker: C_DONE, phase: 3, depends_on: [b]}\n',
    at: '3:73',
    words: ['dependency cycle a → c → b → a', 'without cycles'],
  },
  { name: 'bad duration', yaml: 'agents:\n  writer:\n    command: [node]\n    timeout: 10 minutes\n', at: '4:14', words: ['agents.writer.timeout', "'5m'"] },
  { name: 'bad quiet window (issue 17 item 1)', yaml: 'triage:\n  quiet_window: soon\n', at: '2:17', words: ['triage.quiet_window', "'30s'"] },
  { name: 'infinite duration', yaml: 'breaker:\n  cooldown: .inf\n', at: '2:13', words: ['breaker.cooldown', 'finite'] },
  { name: 'command as a string', yaml: 'agents:\n  writer:\n    command: node agent.mjs {unit}\n', at: '3:14', words: ['agents.writer.command', 'use an array'] },
  { name: 'empty command', yaml: 'agents:\n  writer:\n    command: []\n', at: '3:14', words: ['agents.writer.command', 'a non-empty argument array'] },
  // Issue 16 item 3: patterns are RE2 (linear time), so RE2 says what is wrong with one.
  { name: 'bad regex in units.pattern', yaml: 'units:\n  pattern: "ch(\\\\d"\n', at: '2:12', words: ['invalid regex', 'missing closing )', 'RE2', 'units.pattern', 'regular expression'] },
  { name: 'lookahead in units.pattern', yaml: 'units:\n  pattern: "ch(?=\\\\d)\\\\d+"\n', at: '2:12', words: ['units.pattern', 'lookahead', 'not supported', 'RE2 (linear time'] },
  { name: 'backreference in sources.todo_pattern', yaml: 'sources:\n  todo_pattern: "^(?<unit>ch\\\\d+)-(?<step>\\\\w+)\\\\1$"\n', at: '2:17', words: ['sources.todo_pattern', 'backreferences', 'not supported', 'RE2'] },
  { name: 'lookbehind in a rule', yaml: 'agents:\n  w:\n    command: [x]\n    rules:\n      - {match: "(?<!no )rate", class: RATE_LIMITED}\n', at: '5:17', words: ['rules[0].match', 'lookbehind', 'not supported'] },
  { name: 'bad regex in a rule', yaml: 'agents:\n  w:\n    command: [x]\n    rules:\n      - {match: "rate(", class: RATE_LIMITED}\n', at: '5:17', words: ['rules[0].match', 'regular expression'] },
  { name: 'YAML syntax error', yaml: 'name: x\nlimits: max_launches: 3\n', at: '2:9', words: ['YAML syntax error', 'valid YAML'] },
  { name: 'duplicate YAML key', yaml: 'name: x\nname: y\n', at: '2:1', words: ['unique'] },
  { name: 'unlimited number', yaml: 'limits:\n  max_launches: .inf\n', at: '2:17', words: ['.inf', 'an integer from 1'] },
  { name: 'negative cap', yaml: 'limits:\n  caps: {RATE_LIMITED: -1}\n', at: '2:24', words: ['limits.caps.RATE_LIMITED', 'got -1', 'from 0'] },
  { name: 'fractional concurrency', yaml: 'agents:\n  w:\n    command: [x]\n    concurrency: 1.5\n', at: '4:18', words: ['got 1.5', 'an integer from 1 to 64'] },
  { name: 'unknown failure class in caps', yaml: 'limits:\n  caps: {RATE: 1}\n', at: '2:10', words: ['unknown key "RATE"', 'RATE_LIMITED'] },
  { name: 'unknown class in a rule', yaml: 'agents:\n  w:\n    command: [x]\n    rules: [{exit_code: 1, class: FLAKY}]\n', at: '4:35', words: ['"FLAKY"', 'TOOL_NOT_FOUND'] },
  { name: 'rule without a condition', yaml: 'agents:\n  w:\n    command: [x]\n    rules: [{class: NETWORK}]\n', at: '4:13', words: ['needs a condition', 'match or exit_code'] },
  { name: 'duplicate step id', yaml: 'steps:\n  - id: draft\n  - id: draft\n', at: '3:9', words: ['duplicate id "draft"', 'unique'] },
  { name: 'step in a missing phase', yaml: 'steps:\n  - id: draft\n    phase: 7\n', at: '3:12', words: ['phase 7', 'one of: 1, 2, 3, 4, 5'] },
  { name: 'per-unit path without {unit}', yaml: 'steps:\n  - id: draft\n    path: drafts/draft.md\n', at: '3:11', words: ['lacks {unit}', 'per-unit'] },
  { name: 'bad marker', yaml: 'steps:\n  - id: draft\n    marker: draft_done\n', at: '3:13', words: ['"draft_done"', 'DRAFT_COMPLETE'] },
  { name: 'new step without path', yaml: 'steps:\n  - id: extra\n    phase: 3\n', at: '2:5', words: ['lacks path', 'path, phase'] },
  { name: 'step naming an undefined agent', yaml: 'agents:\n  writer: {command: [x]}\nsteps:\n  - {id: draft, agent: writter}\n', at: '4:24', words: ['"writter"', 'one of: writer'] },
  { name: 'path escaping the workspace', yaml: 'sources:\n  checkpoint: ../other/checkpoint.md\n', at: '2:15', words: ["without '..'"] },
  { name: 'unit outside units.pattern', yaml: 'batches:\n  - {id: 1, units: [ch01, intro]}\n', at: '2:27', words: ['unknown unit "intro"', 'ch\\d{2,3}'] },
  { name: 'a file that is not a mapping', yaml: '- a\n- b\n', at: '1:1', words: ['got a list', 'mapping'] },
  { name: 'backoff_max below backoff_base', yaml: 'limits:\n  backoff_base: 2m\n  backoff_max: 30s\n', at: '3:16', words: ['backoff_max (30s) is below backoff_base (2m)'] },
  { name: 'todo pattern without the step group', yaml: 'sources:\n  todo_pattern: "^(?<unit>ch\\\\d+)$"\n', at: '2:17', words: ['lacks the group step'] },
];

describe('parseConfig errors', () => {
  it.each(cases)('$name', ({ yaml, at, words }) => {
    const e = errorOf(yaml);
    const [line, column] = at.split(':').map(Number);
    expect({ line: e.line, column: e.column }).toEqual({ line, column });
    expect(e.file).toBe('checkroom.yaml');
    expect(e.message.startsWith(`checkroom.yaml:${at}: `)).toBe(true);
    for (const w of words) expect(e.message).toContain(w);
    expect(e.message).toContain(`(expected ${e.expected})`);
  });

  it('reports the first problem in file order when there are several', () => {
    const e = errorOf('limits:\n  max_launches: 0\nbreaker:\n  threshold: x\nzzz: 1\n');
    expect(e.line).toBe(2);
    expect(e.message).toContain('limits.max_launches');
  });

  it('is an Error with a name, usable by the CLI for exit code 2', () => {
    const e = errorOf('zzz: 1\n');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('ConfigError');
    expect(e.expected).toMatch(/^one of: /);
  });
});

describe('hostile YAML', () => {
  it('refuses an alias bomb instead of expanding it', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`), 'name: *h'].join('\n');
    const e = errorOf(bomb);
    expect(e.message).toMatch(/^checkroom\.yaml:1:1: YAML error: .*alias/i);
  });
});
