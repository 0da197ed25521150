import { z } from 'zod';
import { BUILT_IN_CLASSES, type FailureClasses } from './failure-classes.js';
import { DEFAULT_BREAKER, DEFAULT_LIMITS, FAILURE_CLASSES } from './defaults.js';
import { DURATION_HINT, formatDuration, MAX_DURATION_MS, parseDuration } from './duration.js';
import { compilePattern, PatternError, type PatternFlags } from './safe-pattern.js';
import { notifySchema } from './schema-notify.js';
import { resourcesSchema } from './schema-resources.js';
import { secretsSchema } from './schema-secrets.js';

// The shape of checkroom.yaml, snake_case as written. Every object is strict so a typo
// ("dependson") fails loudly instead of silently meaning "no dependencies". Error texts are
// the *expectation* ("an integer from 1 to 64"); config.ts adds the location and what was
// found. Durations come out in milliseconds; everything else stays as written and
// config.ts applies defaults and merges with the preset.

// The defaults live in defaults.ts, which does not load zod: a workspace without
// checkroom.yaml never needs the schema.
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
 * A root outside the workspace that artifact symlinks may point into:
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

// Patterns are compiled at load by the engine that will run them: RE2,
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
  // What this step may use where it runs, over its agent's (schema-resources.ts).
  resources: resourcesSchema.optional(),
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

const pollSchema = z.union([z.number(), z.string()], { error: 'a duration from 250ms to 1m' }).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms !== null && ms >= 250 && ms <= 60_000) return ms;
  ctx.issues.push({ code: 'custom', input: value, message: 'a duration from 250ms to 1m' });
  return z.NEVER;
});

/**
 * The pieces an adapter's or an executor's own file builds its keys from (docs/architecture.md,
 * How to add): handed in, so those files never load zod and a workspace without checkroom.yaml
 * still never does.
 */
export const SCHEMA_KIT = { z, text, textList, intIn, duration, poll: pollSchema };
export type SchemaKit = typeof SCHEMA_KIT;

/** The keys of an agent every adapter and executor shares. */
const commonAgentKeys = {
  command: commandSchema.optional(),
  args: z.array(z.string({ error: 'a string' }), { error: 'a list of arguments' }).optional(),
  on_interrupt: z.enum(['restart', 'continue']).optional(),
  env: z.record(z.string(), z.string({ error: 'a string (quote numbers and booleans)' }), { error: 'a mapping of names to strings' }).optional(),
  cwd: text.nullable().optional(),
  idle_timeout: duration(1).optional(),
  timeout: duration(1).optional(),
  grace: duration(0).optional(),
  concurrency: intIn(1, 64).optional(),
  rules: z.array(ruleSchema, { error: 'a list of rules' }).optional(),
  resources: resourcesSchema.optional(),
};

/** One row of a registry as the schema sees it: its id and the keys it owns. */
export interface SchemaRow {
  id: string;
  /** Agent keys only this row reads (an adapter's `prompt:`, `fields:`). */
  keys?: Record<string, z.ZodType>;
  /** Its options mapping (`slurm:`), allowed at the top level and per agent. */
  options?: { key: string; schema: z.ZodType };
  /** Rules across keys, for an agent that selects this row. */
  check?: (a: Record<string, unknown>, is: AgentIssues) => void;
  /** An adapter that can continue an interrupted session (on_interrupt: continue). */
  canResume?: boolean;
}

/** How a row's `check` reports a problem at the agent (need) or at one of its keys (forbid). */
export interface AgentIssues {
  /** The agent lacks `key`, which this row needs: `problem` says why. */
  need(key: string, problem: string): void;
  /** The agent has `key`, which this row refuses. */
  forbid(key: string, problem: string): void;
}

/** Who owns each key: several adapters may share one (`args`), each names it. */
const ownersOf = (rows: readonly SchemaRow[]): Map<string, string[]> => {
  const owners = new Map<string, string[]>();
  for (const r of rows) for (const k of Object.keys(r.keys ?? {})) owners.set(k, [...(owners.get(k) ?? []), r.id]);
  return owners;
};

/** A row's key that is already another kind's (a common key, an executor's options) would
 *  silently mean one of the two: refused when the schema is built, naming both. */
const assertOwnKeys = (adapters: readonly SchemaRow[], executors: readonly SchemaRow[]): void => {
  const taken = new Map<string, string>(['executor', 'adapter', ...Object.keys(commonAgentKeys)].map((k) => [k, 'every agent']));
  for (const e of executors) {
    const k = e.options?.key;
    if (k === undefined) continue;
    if (taken.has(k)) throw new Error(`executor ${e.id}'s options key "${k}" is already a key of ${taken.get(k)}: choose another`);
    taken.set(k, `executor ${e.id}`);
  }
  for (const a of adapters) for (const k of Object.keys(a.keys ?? {})) {
    if (taken.has(k)) throw new Error(`adapter ${a.id}'s key "${k}" is already a key of ${taken.get(k)}: choose another`);
  }
};

/** An agent's mapping: the common keys, every adapter's own keys and every executor's options. */
const agentSchemaOf = (adapters: readonly SchemaRow[], executors: readonly SchemaRow[]) => {
  assertOwnKeys(adapters, executors);
  const adapterKeys = Object.assign({}, ...adapters.map((r) => r.keys ?? {})) as Record<string, z.ZodType>;
  const executorKeys = Object.fromEntries(executors.flatMap((r) => (r.options ? [[r.options.key, r.options.schema.optional()]] : [])));
  const owners = ownersOf(adapters);
  return z.strictObject({
    executor: z.enum(executors.map((r) => r.id) as [string, ...string[]]).optional(),
    ...executorKeys,
    // The adapter decides what runs and how its output is read (src/run/adapters/).
    adapter: z.enum(adapters.map((r) => r.id) as [string, ...string[]]).optional(),
    ...adapterKeys,
    ...commonAgentKeys,
  }).superRefine((a: Record<string, unknown>, ctx) => {
    const id = (a.adapter as string | undefined) ?? adapters[0]!.id;
    const row = adapters.find((r) => r.id === id)!;
    const is: AgentIssues = {
      need: (key, problem) => {
        if (a[key] === undefined) ctx.addIssue({ code: 'custom', path: [], message: key, params: { problem } });
      },
      forbid: (key, problem) => {
        if (a[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `no ${key} here`, params: { problem } });
      },
    };
    // A key another adapter reads would silently do nothing here (a prompt on a command agent).
    for (const [key, ids] of owners) if (!ids.includes(id)) is.forbid(key, `${key} is for adapter ${ids.join(' or ')}`);
    row.check?.(a, is);
    // A command agent continues by being handed the half-product (docs/agents.md).
    const takesPartial = ((a.command as string[] | undefined) ?? []).some((el) => /\{(?:partial|backup)\}/.test(el));
    if (a.on_interrupt === 'continue' && !row.canResume && !takesPartial)
      is.forbid('on_interrupt', 'on_interrupt: continue hands the next attempt its half-product: put {partial} (the half-product) or {backup} (a copy) in the command');
  });
};

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
    // A number is per session, as before; a mapping also caps the workspace.
    max_launches: budgetSchema(intIn(1, 100_000), 'an integer from 1 to 100000').optional(),
    max_consecutive_failures: intIn(1, 10_000).optional(),
    caps: capsSchema.optional(),
    backoff_base: duration(1).optional(),
    backoff_max: duration(1).optional(),
    // Budgets in money and tokens; a number is per session, a mapping says which.
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

const configSchemaOf = (adapters: readonly SchemaRow[], executors: readonly SchemaRow[]) => {
  const agent = agentSchemaOf(adapters, executors);
  const executorOptions = Object.fromEntries(executors.flatMap((r) => (r.options ? [[r.options.key, r.options.schema.optional()]] : [])));
  return z.strictObject(
  {
    // A registered preset's name or a preset file's path: config.ts checks it against the registry.
    preset: text.optional(),
    replace: z.boolean({ error: 'true or false' }).optional(),
    name: text.optional(),
    phases: z.array(phaseSchema, { error: 'a list of phases' }).optional(),
    steps: z.array(stepSchema, { error: 'a list of steps' }).optional(),
    units: z.strictObject({ pattern: regexSource('').optional(), list: textList.optional() }).optional(),
    batches: batchesSchema.optional(),
    agents: z.record(z.string(), agent, { error: 'a mapping of agent names to agents' }).optional(),
    limits: limitsSchema.optional(),
    breaker: breakerSchema.optional(),
    sources: sourcesSchema.optional(),
    executor: z.enum(executors.map((r) => r.id) as [string, ...string[]]).optional(),
    ...executorOptions,
    outside_roots: z.array(outsideRoot, { error: 'a list of directory paths' }).optional(),
    // A file changed this recently may still be written: no back-up, keep or redo is offered on it.
    triage: z.strictObject({ quiet_window: duration(0).optional() }).optional(),
    // The language of the files checkroom writes (checkpoint.md, RESUME.md) when neither the old file nor the content says.
    language: z.enum(['en', 'zh', 'ja']).optional(),
    // The disk budget of .checkroom/runs/ (docs/logs.md): oldest attempts' logs pruned first.
    logs: z.strictObject({ max_bytes: bytesSize.optional() }).optional(),
    // A dropped terminal (SIGHUP, a closed pty) leaves the runs to their keepers, or stops them.
    on_hangup: z.enum(['leave', 'stop']).optional(),
    notify: notifySchema.optional(), // schema-notify.ts, docs/notify.md
    // Names agents get in their environment, read from checkroom's environment or a 0600 file (schema-secrets.ts).
    secrets: secretsSchema.optional(),
  },
  // Only for a non-mapping file; unknown keys keep the per-parse "one of: …" expectation.
  { error: (iss) => (iss.code === 'invalid_type' ? 'a mapping of settings at the top level' : undefined) },
);
};

/**
 * checkroom.yaml's schema for the registered adapters and executors (config-rows.ts asks the
 * registries): their ids are the enums, their own keys and options are fragments of it.
 */
export const rawConfigSchemaOf = configSchemaOf;

/**
 * A preset file: a whole pipeline, so what checkroom.yaml may leave to a
 * preset is required here — each phase's name, each step's path and phase, the unit pattern.
 */
export const presetFileSchema = z.strictObject({
  name: text,
  phases: z.array(phaseSchema.extend({ name: text }), { error: 'a list of phases' }).min(1, { error: 'at least one phase' }),
  steps: z.array(stepSchema.extend({ path: relPath, phase: intIn(1, 99) }), { error: 'a list of steps' }).min(1, { error: 'at least one step' }),
  units: z.strictObject({ pattern: regexSource(''), list: textList.optional() }),
  batches: batchesSchema.optional(),
});

export type RawConfig = z.output<ReturnType<typeof configSchemaOf>>;
/** One agent as written: the common keys typed, each adapter's and executor's own keys read by its file. */
export type RawAgent = NonNullable<RawConfig['agents']>[string];

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
