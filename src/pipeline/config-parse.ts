import { dirname, resolve as resolvePath } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import type { PhaseDef, PipelineDef, StepDef } from '../types.js';
import { bookPreset } from './book-preset.js';
import type { AgentDef, WorkspaceConfig } from './config-types.js';
import { gatesPreset } from './gates-preset.js';
import { DETECTED_GATES } from './detect-preset.js';
import { findPipelineProblems, findUnitProblems, type PipelineProblem } from './graph.js';
import { DEFAULT_AGENT, DEFAULT_BREAKER, DEFAULT_LIMITS, DEFAULT_SOURCES, describeExpected, rawConfigSchema, type RawAgent, type RawConfig } from './schema.js';

import { ConfigError } from './config-error.js';

// checkroom.yaml → WorkspaceConfig. Validation is strict and every error points at the YAML
// node that caused it (file:line:column), because a config typo in a pipeline that runs for
// days must fail at start, not silently skip a dependency at 3 a.m. The CLI maps
// ConfigError to exit code 2.

type YamlPath = (string | number)[];

/** The parsed file, kept so any later check can point back at a node. */
interface Source {
  file: string;
  doc: Document;
  lines: LineCounter;
}

const nodeAt = (doc: Document, path: YamlPath): unknown => (path.length === 0 ? doc.contents : doc.getIn(path, true));

/** Line and column of the node at `path` (or of `key` inside that mapping); walks up to the nearest node that exists. */
const positionOf = (src: Source, path: YamlPath, key?: string): { line: number; column: number } | null => {
  let p = path;
  let node = nodeAt(src.doc, p) as { range?: [number, number, number] } | undefined;
  while (!node?.range && p.length > 0) {
    p = p.slice(0, -1);
    node = nodeAt(src.doc, p) as typeof node;
    key = undefined;
  }
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === key);
    if (pair && isScalar(pair.key) && pair.key.range) node = { range: pair.key.range };
  }
  if (!node?.range) return null;
  const { line, col } = src.lines.linePos(node.range[0]);
  return { line, column: col };
};

const errorAt = (src: Source, path: YamlPath, problem: string, expected: string, key?: string): ConfigError => {
  const pos = positionOf(src, path, key);
  return new ConfigError({ file: src.file, line: pos?.line ?? null, column: pos?.column ?? null, problem, expected });
};

const formatPath = (path: YamlPath): string =>
  path.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : /^[A-Za-z_][\w-]*$/.test(k) ? (acc ? `${acc}.${k}` : k) : `${acc}[${JSON.stringify(k)}]`), '');
const inside = (path: YamlPath): string => (path.length === 0 ? 'at top level' : `in ${formatPath(path)}`);

const valueAt = (data: unknown, path: YamlPath): unknown =>
  path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), data);

const describe = (v: unknown): string => {
  if (typeof v === 'string') return `got the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'number') return `got ${Number.isNaN(v) ? '.nan' : v === Infinity ? '.inf' : v === -Infinity ? '-.inf' : v}`;
  if (v === null) return 'got null';
  if (Array.isArray(v)) return 'got a list';
  return typeof v === 'object' ? 'got a mapping' : `got ${String(v)}`;
};

const issueError = (src: Source, data: unknown, iss: z.core.$ZodIssue): ConfigError => {
  const path = iss.path.filter((k): k is string | number => typeof k !== 'symbol');
  const value = valueAt(data, path);
  if (iss.code === 'unrecognized_keys') {
    const keys = iss.keys.map((k) => JSON.stringify(k)).join(', ');
    return errorAt(src, path, `unknown key${iss.keys.length > 1 ? 's' : ''} ${keys} ${inside(path)}`, iss.message, iss.keys[0]);
  }
  if (value === undefined && path.length > 0) {
    return errorAt(src, path, `missing key "${path[path.length - 1]}" ${inside(path.slice(0, -1))}`, iss.message);
  }
  const custom = iss.code === 'custom' ? (iss.params as { problem?: string } | undefined)?.problem : undefined;
  const where = path.length === 0 ? 'the file' : formatPath(path);
  const problem = custom ? `${custom} in ${where}` : `${iss.code === 'invalid_type' ? 'wrong type' : 'invalid value'} for ${where}: ${describe(value)}`;
  return errorAt(src, path, problem, iss.message);
};

/** Of several errors, the first in the file: the one a reader meets first. */
const earliest = (errors: ConfigError[]): ConfigError =>
  errors.reduce((a, b) => ((b.line ?? Infinity) < (a.line ?? Infinity) || (b.line === a.line && (b.column ?? 0) < (a.column ?? 0)) ? b : a));

// ── merging with the preset ────────────────────────────────────────────────────────────

const mergeById = <T extends { id: string | number }, R extends { id: string | number }>(
  src: Source, section: string, base: T[], raw: R[] | undefined, replace: boolean,
  build: (r: R, base: T | undefined, i: number) => T,
): T[] => {
  if (!raw) return base;
  const seen = new Map<string | number, number>();
  raw.forEach((r, i) => {
    if (seen.has(r.id)) throw errorAt(src, [section, i, 'id'], `duplicate id ${JSON.stringify(r.id)} in ${section}[${i}] (also ${section}[${seen.get(r.id)}])`, 'unique ids');
    seen.set(r.id, i);
  });
  const out = replace ? [] : [...base];
  raw.forEach((r, i) => {
    const at = out.findIndex((b) => b.id === r.id);
    if (at >= 0) out[at] = build(r, out[at], i);
    else out.push(build(r, undefined, i));
  });
  return out;
};

const requireFor = (src: Source, section: string, i: number, what: string, keys: string[], r: Record<string, unknown>, replace: boolean): void => {
  const missing = keys.filter((k) => r[k] === undefined);
  if (missing.length === 0) return;
  const why = replace ? 'with replace: true' : 'that is not in the preset';
  throw errorAt(src, [section, i], `${what} ${JSON.stringify(r.id)} ${why} lacks ${missing.join(', ')}`, `${keys.join(', ')} for a new ${what}`, 'id');
};

const resolvePipeline = (src: Source, raw: RawConfig, base: PipelineDef): PipelineDef => {
  const replace = raw.replace ?? false;
  const phases = mergeById<PhaseDef, NonNullable<RawConfig['phases']>[number]>(src, 'phases', base.phases, raw.phases, replace, (r, b, i) => {
    if (!b) requireFor(src, 'phases', i, 'phase', ['name'], r, replace);
    const name = r.name ?? b!.name;
    return { id: r.id, name, aliases: r.aliases ?? b?.aliases ?? [name], artifacts: r.artifacts ?? b?.artifacts ?? [], barrier: r.barrier ?? b?.barrier ?? false };
  });
  const steps = mergeById<StepDef, NonNullable<RawConfig['steps']>[number]>(src, 'steps', base.steps, raw.steps, replace, (r, b, i) => {
    if (!b) requireFor(src, 'steps', i, 'step', ['path', 'phase'], r, replace);
    const agent = r.agent ?? b?.agent;
    return {
      id: r.id,
      label: r.label ?? b?.label ?? r.id,
      aliases: r.aliases ?? b?.aliases ?? [r.label ?? r.id],
      path: r.path ?? b!.path,
      marker: r.marker !== undefined ? r.marker : (b?.marker ?? null),
      dependsOn: r.depends_on ?? b?.dependsOn ?? [],
      phase: r.phase ?? b!.phase,
      kind: r.kind ?? b?.kind ?? 'file',
      ...(agent !== undefined ? { agent } : {}),
      minChars: r.min_chars ?? b?.minChars ?? 200,
    };
  });
  const units = { pattern: raw.units?.pattern ?? base.units.pattern, ...((raw.units?.list ?? base.units.list) ? { list: raw.units?.list ?? base.units.list } : {}) };
  const batches = raw.batches ?? base.batches;
  const [unitProblem] = findUnitProblems(units, batches);
  if (unitProblem) throw errorAt(src, unitProblem.path, unitProblem.problem, unitProblem.expected);
  const outside = raw.outside_roots?.map((p) => resolvePath(dirname(src.file), p));
  return { name: raw.name ?? base.name, phases, steps, units, batches, source: src.file, ...(outside?.length ? { outsideRoots: outside } : {}) };
};

/** A graph problem is found on the merged pipeline; point at the YAML step that introduced it. */
const pipelineError = (src: Source, raw: RawConfig, pr: PipelineProblem): ConfigError => {
  const rawSteps = raw.steps ?? [];
  const ids = pr.cycle ?? (pr.stepId !== undefined ? [pr.stepId] : []);
  const candidates = ids.map((id, k) => ({ i: rawSteps.findIndex((s) => s.id === id), next: pr.cycle?.[k + 1] })).filter((c) => c.i >= 0);
  // In a cycle, prefer a step whose depends_on the file itself sets: that edge is the likely mistake.
  const pick = candidates.find((c) => !pr.cycle || rawSteps[c.i].depends_on) ?? candidates[0];
  let path: YamlPath = pr.field === 'phase' && raw.phases ? ['phases'] : raw.steps ? ['steps'] : [];
  if (pick && pr.field) {
    const r = rawSteps[pick.i] as Record<string, unknown>;
    const deps = rawSteps[pick.i].depends_on;
    const index = pick.next !== undefined ? deps?.indexOf(pick.next) : pr.index;
    path = r[pr.field] === undefined ? ['steps', pick.i] : ['steps', pick.i, pr.field, ...(pr.field === 'depends_on' && index !== undefined && index >= 0 ? [index] : [])];
  }
  return errorAt(src, path, pr.problem, pr.expected);
};

const toAgent = (name: string, a: RawAgent): AgentDef => ({
  name,
  command: [...a.command],
  env: { ...(a.env ?? {}) },
  cwd: a.cwd ?? null,
  idleTimeoutMs: a.idle_timeout ?? DEFAULT_AGENT.idleTimeoutMs,
  timeoutMs: a.timeout ?? DEFAULT_AGENT.timeoutMs,
  graceMs: a.grace ?? DEFAULT_AGENT.graceMs,
  concurrency: a.concurrency ?? DEFAULT_AGENT.concurrency,
  rules: (a.rules ?? []).map((r) => ({ ...(r.match !== undefined ? { match: r.match } : {}), ...(r.exit_code !== undefined ? { exitCode: r.exit_code } : {}), class: r.class })),
});

const resolve = (src: Source, raw: RawConfig, detected: 'gates' | null = null): WorkspaceConfig => {
  const preset = raw.preset ?? detected ?? 'book';
  const pipeline = resolvePipeline(src, raw, preset === 'gates' ? gatesPreset() : bookPreset());
  const problems = findPipelineProblems(pipeline);
  if (problems.length > 0) throw pipelineError(src, raw, problems[0]);
  // Only steps the file names are checked against `agents`: preset steps naming agents the
  // file does not define simply have no launcher, which is allowed (agents are optional).
  if (raw.agents) {
    raw.steps?.forEach((s, i) => {
      if (s.agent !== undefined && !raw.agents![s.agent]) {
        throw errorAt(src, ['steps', i, 'agent'], `step "${s.id}" names agent "${s.agent}", which agents does not define`, `one of: ${Object.keys(raw.agents!).join(', ') || '(none)'}`);
      }
    });
  }
  const l = raw.limits ?? {};
  const b = raw.breaker ?? {};
  const s = raw.sources ?? {};
  return {
    file: src.file,
    preset,
    ...(raw.preset === undefined && detected ? { presetDetected: DETECTED_GATES } : {}),
    ...(raw.language ? { language: raw.language } : {}),
    pipeline,
    agents: Object.fromEntries(Object.entries(raw.agents ?? {}).map(([name, a]) => [name, toAgent(name, a)])),
    limits: {
      maxLaunches: l.max_launches ?? DEFAULT_LIMITS.maxLaunches,
      maxConsecutiveFailures: l.max_consecutive_failures ?? DEFAULT_LIMITS.maxConsecutiveFailures,
      caps: { ...DEFAULT_LIMITS.caps, ...Object.fromEntries(Object.entries(l.caps ?? {}).filter(([, v]) => v !== undefined)) },
      backoffBaseMs: l.backoff_base ?? DEFAULT_LIMITS.backoffBaseMs,
      backoffMaxMs: l.backoff_max ?? DEFAULT_LIMITS.backoffMaxMs,
    },
    breaker: {
      threshold: b.threshold ?? DEFAULT_BREAKER.threshold,
      cooldownMs: b.cooldown ?? DEFAULT_BREAKER.cooldownMs,
      maxCooldownMs: b.max_cooldown ?? DEFAULT_BREAKER.maxCooldownMs,
    },
    sources: {
      checkpoint: s.checkpoint ?? DEFAULT_SOURCES.checkpoint,
      resume: s.resume ?? DEFAULT_SOURCES.resume,
      todos: s.todos ?? DEFAULT_SOURCES.todos,
      todoPattern: s.todo_pattern ?? DEFAULT_SOURCES.todoPattern,
    },
  };
};

// ── entry points ────────────────────────────────────────────────────────────────────────

export const parseConfig = (text: string, file: string, detected: 'gates' | null = null): WorkspaceConfig => {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const src: Source = { file, doc, lines };
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const { line, col } = lines.linePos(e.pos[0]);
    throw new ConfigError({ file, line, column: col, problem: `YAML syntax error: ${e.message.split('\n')[0]}`, expected: 'valid YAML' });
  }
  let data: unknown = {};
  try {
    if (doc.contents !== null) data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // yaml refuses alias expansion past the limit ("billion laughs"); report it like any YAML error.
    throw new ConfigError({ file, line: 1, column: 1, problem: `YAML error: ${(e as Error).message}`, expected: 'valid YAML with few aliases' });
  }
  const parsed = rawConfigSchema.safeParse(data ?? {}, { error: describeExpected });
  if (!parsed.success) throw earliest(parsed.error.issues.map((iss) => issueError(src, data, iss)));
  return resolve(src, parsed.data, detected);
};

/** Structural check of any pipeline (presets, adapters); throws the first problem. */
export const validatePipeline = (p: PipelineDef): void => {
  const [first] = findPipelineProblems(p);
  if (first) throw new ConfigError({ file: p.source, line: null, column: null, problem: first.problem, expected: first.expected });
};
