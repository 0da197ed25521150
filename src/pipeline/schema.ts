import { z } from 'zod';
import { BUILT_IN_CLASSES, type FailureClasses } from './failure-classes.js';
import { DEFAULT_BREAKER, DEFAULT_LIMITS, FAILURE_CLASSES } from './defaults.js';
import { DURATION_HINT, formatDuration, MAX_DURATION_MS, parseDuration } from './duration.js';
import { compilePattern, PatternError, type PatternFlags } from './safe-pattern.js';

// The shape of checkroom.yaml, snake_case as written. Every object is strict so a typo
// ("dependson") fails loudly instead of silently meaning "no dependencies". Error texts are
// the *expectation* ("an integer from 1 to 64"); config.ts adds the location and what was
// found. Durations come out in milliseconds; everything else stays as written and
// config.ts applies defaults and merges with the preset.

// The defaults live in defaults.ts, which does not load zod: a workspace without
// checkroom.yaml never needs the schema (issue 10 item 2).
export { DEFAULT_AGENT, DEFAULT_BREAKER, DEFAULT_CAPS, DEFAULT_KUBERNETES, DEFAULT_LIMITS, DEFAULT_SLURM, DEFAULT_SOURCES, FAILURE_CLASSES } from './defaults.js';

export const MARKER_RE = /^[A-Z][A-Z0-9_]*$/;
export const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

const intIn = (min: number, max: number) => {
  const error = `an integer from ${min} to ${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
};

const text = z.string({ error: 'a string' }).min(1, { error: 'a non-empty string' });
const id = z.string({ error: 'an id (a string)' }).regex(ID_RE, { error: "an id of letters, digits, '-', '_' or '.'" });
const textList = z.array(text, { error: 'a list of strings' });

/** Paths are relative to the workspace: backups and redos write there, never outside it. */
const relPath = text.refine((p) => !p.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(p) && !p.split(/[\\/]/).includes('..'), {
  error: "a path relative to the workspace, without '..'",
});

/**
 * A root outside the workspace that artifact symlinks may point into (issue 8 item 7):
 * absolute, or relative to the workspace. Never the filesystem root, which would allow all.
 */
const outsideRoot = text.refine((p) => !p.includes('\0') && p.replace(/[\\/]+$/, '') !== '' && !/^[A-Za-z]:[\\/]*$/.test(p), {
  error: 'a directory path (absolute, or relative to the workspace), not the filesystem root',
});

const duration = (minMs: number) => {
  const expected = `a finite duration${minMs > 0 ? ' above 0' : ''} of at most 24 days: ${DURATION_HINT}`;
  return z.union([z.number(), z.string()], { error: expected }).transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms !== null && ms >= minMs && ms <= MAX_DURATION_MS) return ms;
    ctx.issues.push({ code: 'custom', input: value, message: expected });
    return z.NEVER;
  });
};

// Patterns are compiled at load by the engine that will run them (issue 16 item 3): RE2,
// linear time. One RE2 refuses — a lookahead, a backreference — is refused here, at its
// node, with what to write instead, rather than hanging or being skipped later.
const regexSource = (flags: PatternFlags, needGroups: string[] = []) =>
  text.superRefine((source, ctx) => {
    let names: readonly string[];
    try {
      names = compilePattern(source, flags).names;
    } catch (e) {
      if (!(e instanceof PatternError)) throw e;
      ctx.addIssue({ code: 'custom', message: 'a regular expression in RE2 syntax (no lookaround, no backreferences)', params: { problem: `invalid regex: ${e.reason}` } });
      return;
    }
    const missing = needGroups.filter((g) => !names.includes(g));
    if (missing.length > 0) {
      ctx.addIssue({ code: 'custom', message: `named groups ${needGroups.map((g) => `(?<${g}>…)`).join(' and ')}`, params: { problem: `regex lacks the group ${missing.join(', ')}` } });
    }
  });

const phaseSchema = z.strictObject({
  id: intIn(1, 99),
  name: text.optional(),
  aliases: textList.optional(),
  artifacts: z.array(relPath, { error: 'a list of paths' }).optional(),
  barrier: z.boolean({ error: 'true or false' }).optional(),
});

// Every field but id is optional: in merge mode a step only names what it overrides.
const stepSchema = z.strictObject({
  id,
  label: text.optional(),
  aliases: textList.optional(),
  path: relPath.optional(),
  marker: z.string({ error: 'a marker name or null' }).regex(MARKER_RE, { error: 'a marker like DRAFT_COMPLETE (A-Z, 0-9, _)' }).nullable().optional(),
  depends_on: z.array(id, { error: 'a list of step ids' }).optional(),
  phase: intIn(1, 99).optional(),
  kind: z.enum(['file', 'entry']).optional(),
  agent: text.optional(),
  min_chars: intIn(0, 10_000_000).optional(),
});

const ruleSchema = z
  .strictObject({
    match: regexSource('i').optional(),
    exit_code: intIn(0, 255).optional(),
    class: z.enum(FAILURE_CLASSES),
  })
  .superRefine((rule, ctx) => {
    if (rule.match === undefined && rule.exit_code === undefined) {
      ctx.addIssue({ code: 'custom', message: 'match or exit_code', params: { problem: 'a rule needs a condition' } });
    }
  });

// A string command would need a shell to split it, and a shell would interpret whatever
// ends up in {unit} or {last_error}: argument arrays only.
const commandSchema = z
  .array(z.string({ error: 'a string' }), {
    error: (iss) =>
      typeof iss.input === 'string'
        ? { message: 'an argument array like [node, agent.mjs, "{unit}"], not a string: use an array (no shell splitting)' }
        : { message: 'an argument array of strings' },
  })
  .min(1, { error: 'a non-empty argument array' })
  // zod runs refinements after a failed .min() too: an empty array must not reach argv[0].
  .refine((argv) => argv.length === 0 || argv[0].length > 0, { error: 'a program name as the first element' });

// Issue 12: where agents run. Options sit at the top level (for every agent) and may be
// overridden per agent; extra sbatch arguments are a list, one argument each.
const executorSchema = z.enum(['local', 'slurm', 'kubernetes']);
const pollSchema = z.union([z.number(), z.string()], { error: 'a duration from 250ms to 1m' }).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms !== null && ms >= 250 && ms <= 60_000) return ms;
  ctx.issues.push({ code: 'custom', input: value, message: 'a duration from 250ms to 1m' });
  return z.NEVER;
});
const slurmSchema = z.strictObject({
  partition: text.optional(),
  account: text.optional(),
  extra_args: textList.optional(),
  poll: pollSchema.optional(),
  infra_timeout: duration(1000).optional(),
});
const kubernetesSchema = z.strictObject({
  kubectl: z.array(text, { error: 'an argument array like [kubectl, --context, prod]' }).min(1, { error: 'a non-empty argument array' }).optional(),
  namespace: text.optional(),
  image: text.optional(),
  pvc: text.optional(),
  service_account: text.optional(),
  cpu: text.optional(),
  memory: text.optional(),
  poll: pollSchema.optional(),
  infra_timeout: duration(1000).optional(),
});

// Field paths for `adapter: jsonl` (issue 11): dotted keys into each JSON line.
const fieldPath = z.string({ error: 'a dotted field path like usage.input_tokens' }).regex(/^[A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*$/, { error: 'a dotted field path like usage.input_tokens' });
const jsonlFieldsSchema = z.strictObject({
  session: fieldPath.optional(),
  activity: fieldPath.optional(),
  activity_detail: fieldPath.optional(),
  cost: fieldPath.optional(),
  tokens_in: fieldPath.optional(),
  tokens_out: fieldPath.optional(),
  is_error: fieldPath.optional(),
  error_status: fieldPath.optional(),
  error_text: fieldPath.optional(),
  final: fieldPath.optional(),
});

const agentSchema = z.strictObject({
  executor: executorSchema.optional(),
  slurm: slurmSchema.optional(),
  kubernetes: kubernetesSchema.optional(),
  command: commandSchema.optional(),
  // Issue 11: the adapter decides what runs and how its output is read (src/run/adapters/).
  adapter: z.enum(['command', 'claude-code', 'jsonl']).optional(),
  prompt: text.optional(),
  model: text.optional(),
  permission_mode: z.string({ error: 'a permission mode like acceptEdits' }).regex(/^[A-Za-z]+$/, { error: 'a permission mode like acceptEdits' }).optional(),
  allowed_tools: textList.optional(),
  args: z.array(z.string({ error: 'a string' }), { error: 'a list of arguments' }).optional(),
  bin: text.optional(),
  on_interrupt: z.enum(['restart', 'continue']).optional(),
  fields: jsonlFieldsSchema.optional(),
  env: z.record(z.string(), z.string({ error: 'a string (quote numbers and booleans)' }), { error: 'a mapping of names to strings' }).optional(),
  cwd: text.nullable().optional(),
  idle_timeout: duration(1).optional(),
  timeout: duration(1).optional(),
  grace: duration(0).optional(),
  concurrency: intIn(1, 64).optional(),
  rules: z.array(ruleSchema, { error: 'a list of rules' }).optional(),
}).superRefine((a, ctx) => {
  // Which keys go with which adapter: a prompt on a command agent would silently do nothing.
  const adapter = a.adapter ?? 'command';
  const need = (key: string, why: string) => ctx.addIssue({ code: 'custom', path: [], message: key, params: { problem: why } });
  const forbid = (key: keyof typeof a, why: string) => {
    if (a[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `no ${key} here`, params: { problem: why } });
  };
  if (adapter === 'claude-code') {
    if (a.prompt === undefined) need('prompt', 'adapter claude-code needs a prompt: template');
    forbid('command', 'adapter claude-code builds its own command from prompt (use bin: and args: instead)');
    forbid('fields', 'fields: is for adapter jsonl');
  } else {
    if (a.command === undefined) need('command', adapter === 'jsonl' ? 'adapter jsonl needs a command: argument array' : 'an agent needs a command: argument array (or adapter: claude-code with a prompt:)');
    for (const k of ['prompt', 'model', 'permission_mode', 'allowed_tools', 'bin'] as const) forbid(k, `${k} is for adapter claude-code`);
    if (adapter === 'command') forbid('fields', 'fields: is for adapter jsonl');
  }
  // Issue 17 item 8: a command agent continues by being handed the half-product.
  const takesPartial = (a.command ?? []).some((el) => /\{(?:partial|backup)\}/.test(el));
  if (a.on_interrupt === 'continue' && adapter !== 'claude-code' && !takesPartial)
    forbid('on_interrupt', 'on_interrupt: continue hands the next attempt its half-product: put {partial} (the half-product) or {backup} (a copy) in the command');
});

/** `limits.caps` for a table of classes: one optional count per class, nothing else. */
export const capsSchemaOf = <C extends string>(classes: Pick<FailureClasses<C>, 'names'>) =>
  z.strictObject(Object.fromEntries(classes.names.map((c) => [c, intIn(0, 100).optional()])) as Record<C, z.ZodOptional<ReturnType<typeof intIn>>>);

const capsSchema = capsSchemaOf(BUILT_IN_CLASSES);

/** `hi` must not be below `lo`, counting defaults for the one that is absent. */
const ordered = (lo: string, hi: string, loDefault: number, hiDefault: number) => (v: Record<string, unknown>, ctx: z.RefinementCtx) => {
  const a = (v[lo] as number | undefined) ?? loDefault;
  const b = (v[hi] as number | undefined) ?? hiDefault;
  if (b < a) {
    const problem = `${hi} (${formatDuration(b)}) is below ${lo} (${formatDuration(a)})`;
    ctx.addIssue({ code: 'custom', path: [v[hi] !== undefined ? hi : lo], message: `${hi} ≥ ${lo}`, params: { problem } });
  }
};

const budgetSchema = <T extends z.ZodType<number>>(n: T, what = 'a number') =>
  z.union([n, z.strictObject({ session: n.optional(), workspace: n.optional() })], { error: `${what}, or a mapping with session: and workspace:` });

const limitsSchema = z
  .strictObject({
    // Issue 17 item 4: a number is per session, as before; a mapping also caps the workspace.
    max_launches: budgetSchema(intIn(1, 100_000), 'an integer from 1 to 100000').optional(),
    max_consecutive_failures: intIn(1, 10_000).optional(),
    caps: capsSchema.optional(),
    backoff_base: duration(1).optional(),
    backoff_max: duration(1).optional(),
    // Issue 11: budgets in money and tokens; a number is per session, a mapping says which.
    max_cost_usd: budgetSchema(z.number({ error: 'a number of US dollars above 0' }).positive({ error: 'a number of US dollars above 0' })).optional(),
    max_tokens: budgetSchema(intIn(1, Number.MAX_SAFE_INTEGER)).optional(),
  })
  .superRefine(ordered('backoff_base', 'backoff_max', DEFAULT_LIMITS.backoffBaseMs, DEFAULT_LIMITS.backoffMaxMs));

const breakerSchema = z
  .strictObject({
    threshold: intIn(1, 1_000).optional(),
    cooldown: duration(1).optional(),
    max_cooldown: duration(1).optional(),
  })
  .superRefine(ordered('cooldown', 'max_cooldown', DEFAULT_BREAKER.cooldownMs, DEFAULT_BREAKER.maxCooldownMs));

const sourcesSchema = z.strictObject({
  checkpoint: relPath.optional(),
  resume: relPath.optional(),
  todos: relPath.nullable().optional(),
  todo_pattern: regexSource('', ['unit', 'step']).optional(),
});

/** A size in bytes: an integer, or a number with a unit (`500MB`, `2 GiB`); docs/logs.md, "Disk budget". */
const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4 };
const SIZE_WANTED = 'a size in bytes: an integer, or a number with a unit (500MB, 2GiB)';
const bytesSize = z.union([intIn(1, Number.MAX_SAFE_INTEGER), z.string().regex(/^\s*\d+(?:\.\d+)?\s*(?:b|kb|mb|gb|tb|kib|mib|gib|tib)\s*$/i, { error: SIZE_WANTED })], { error: SIZE_WANTED });
export const sizeBytes = (v: number | string): number => {
  if (typeof v === 'number') return v;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(v)!;
  return Math.round(Number(m[1]) * SIZE_UNITS[m[2]!.toLowerCase()]!);
};

const batchesSchema = z.array(z.strictObject({ id: intIn(1, 9_999), units: textList.min(1, { error: 'at least one unit' }) }), { error: 'a list of batches' });

export const rawConfigSchema = z.strictObject(
  {
    // A registered preset's name or a preset file's path: config.ts checks it against the registry (issue 9 item 1).
    preset: text.optional(),
    replace: z.boolean({ error: 'true or false' }).optional(),
    name: text.optional(),
    phases: z.array(phaseSchema, { error: 'a list of phases' }).optional(),
    steps: z.array(stepSchema, { error: 'a list of steps' }).optional(),
    units: z.strictObject({ pattern: regexSource('').optional(), list: textList.optional() }).optional(),
    batches: batchesSchema.optional(),
    agents: z.record(z.string(), agentSchema, { error: 'a mapping of agent names to agents' }).optional(),
    limits: limitsSchema.optional(),
    breaker: breakerSchema.optional(),
    sources: sourcesSchema.optional(),
    executor: executorSchema.optional(),
    slurm: slurmSchema.optional(),
    kubernetes: kubernetesSchema.optional(),
    outside_roots: z.array(outsideRoot, { error: 'a list of directory paths' }).optional(),
    // A file changed this recently may still be written (issue 17 item 1): no back-up, keep or redo is offered on it.
    triage: z.strictObject({ quiet_window: duration(0).optional() }).optional(),
    // The language of the files checkroom writes (checkpoint.md, RESUME.md) when neither the old file nor the content says (issue 8 item 6).
    language: z.enum(['en', 'zh', 'ja']).optional(),
    // The disk budget of .checkroom/runs/ (docs/logs.md): oldest attempts' logs pruned first.
    logs: z.strictObject({ max_bytes: bytesSize.optional() }).optional(),
    // Issue 17 item 3: a dropped terminal (SIGHUP, a closed pty) leaves the runs to their keepers, or stops them.
    on_hangup: z.enum(['leave', 'stop']).optional(),
  },
  // Only for a non-mapping file; unknown keys keep the per-parse "one of: …" expectation.
  { error: (iss) => (iss.code === 'invalid_type' ? 'a mapping of settings at the top level' : undefined) },
);

/**
 * A preset file (issue 9 item 1): a whole pipeline, so what checkroom.yaml may leave to a
 * preset is required here — each phase's name, each step's path and phase, the unit pattern.
 */
export const presetFileSchema = z.strictObject({
  name: text,
  phases: z.array(phaseSchema.extend({ name: text }), { error: 'a list of phases' }).min(1, { error: 'at least one phase' }),
  steps: z.array(stepSchema.extend({ path: relPath, phase: intIn(1, 99) }), { error: 'a list of steps' }).min(1, { error: 'at least one step' }),
  units: z.strictObject({ pattern: regexSource(''), list: textList.optional() }),
  batches: batchesSchema.optional(),
});

export type RawConfig = z.output<typeof rawConfigSchema>;
export type RawAgent = NonNullable<RawConfig['agents']>[string];
export type RawSlurm = NonNullable<RawConfig['slurm']>;
export type RawKubernetes = NonNullable<RawConfig['kubernetes']>;

const TYPE_NAMES: Record<string, string> = {
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
  string: 'a string',
  number: 'a finite number',
  int: 'an integer',
  boolean: 'true or false',
};

/** Per-parse error map: the expectation for issues the schema did not word itself. */
export const describeExpected: z.core.$ZodErrorMap = (iss) => {
  switch (iss.code) {
    case 'unrecognized_keys': {
      const shape = (iss.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape;
      return shape ? `one of: ${Object.keys(shape).join(', ')}` : 'no other keys';
    }
    case 'invalid_type':
      return TYPE_NAMES[iss.expected] ?? iss.expected;
    case 'invalid_value':
      return `one of: ${iss.values.map(String).join(', ')}`;
    default:
      return undefined;
  }
};
