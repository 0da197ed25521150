import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve as resolvePath } from 'node:path';
import type { PhaseDef, PipelineDef, StepDef } from '../../types.js';
import type { WorkspaceConfig } from './types.js';
import { formatBytes } from '../../fs/read-capped.js';
import { findPipelineProblems, findUnitProblems, type PipelineProblem } from '../graph.js';
import { DEFAULT_PRESET, isPresetFile, PRESETS, presetOf } from '../presets/index.js';
import { DEFAULT_BREAKER, DEFAULT_LIMITS, DEFAULT_SOURCES, presetFileSchema, sizeBytes, type RawConfig } from '../schema.js';
import { DEFAULT_LOGS_MAX_BYTES } from '../defaults.js';
import { configSchema } from './rows.js';
import { ConfigError, errorAt, parseYamlSource, type Source, type YamlPath } from '../yaml-source.js';
import { launchCaps, toAgent, toBudget } from './agent.js';
import { CONFIG_MAX_BYTES, detectedNotice } from './file.js';
import { notifyOf } from '../schema-notify.js';
import { resourcesFrom } from '../schema-resources.js';

// Parsing and validating checkroom.yaml and preset files, with yaml and zod; config-load.ts
// imports this module only when a workspace has a checkroom.yaml.

// checkroom.yaml → WorkspaceConfig. Validation is strict and every error points at the YAML
// node that caused it (file:line:column, yaml-source.ts), because a config typo in a pipeline
// that runs for days must fail at start, not silently skip a dependency at 3 a.m.

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
    const resources = resourcesFrom(r.resources) ?? b?.resources;
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
      ...(resources ? { resources } : {}),
    };
  });
  const units = { pattern: raw.units?.pattern ?? base.units.pattern, ...((raw.units?.list ?? base.units.list) ? { list: raw.units?.list ?? base.units.list } : {}) };
  const batches = raw.batches ?? base.batches;
  const [unitProblem] = findUnitProblems(units, batches);
  if (unitProblem) throw errorAt(src, unitProblem.path, unitProblem.problem, unitProblem.expected);
  const outside = raw.outside_roots?.map((p) => resolvePath(dirname(src.file), p));
  const quiet = raw.triage?.quiet_window;
  return {
    name: raw.name ?? base.name,
    phases,
    steps,
    units,
    batches,
    source: src.file,
    ...(outside?.length ? { outsideRoots: outside } : {}),
    ...(quiet !== undefined ? { quietWindowMs: quiet } : {}),
  };
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

// ── the preset: a registered name or a preset file ─────────────────────────────────────

const PRESET_EXPECTED = (): string => `one of: ${[...PRESETS.keys()].join(', ')}, or the path of a preset .yaml file`;

/** A preset file: a whole pipeline (phases, steps, units, markers), checked as strictly as checkroom.yaml. */
export function parsePresetFile(text: string, file: string): PipelineDef {
  const { src, data } = parseYamlSource(text, file, presetFileSchema);
  const raw: RawConfig = { ...data, replace: true };
  const empty: PipelineDef = { name: data.name, source: file, phases: [], steps: [], units: { pattern: data.units.pattern }, batches: [] };
  const pipeline = resolvePipeline(src, raw, empty);
  const [problem] = findPipelineProblems(pipeline);
  if (problem) throw pipelineError(src, raw, problem);
  return pipeline;
}

/** Reads the preset file `preset:` names, relative to checkroom.yaml; its own errors point into it. */
const readPresetFile = (src: Source, value: string): PipelineDef => {
  const file = resolvePath(dirname(src.file), value);
  const st = (() => {
    try {
      return statSync(file);
    } catch {
      return null;
    }
  })();
  if (!st?.isFile()) throw errorAt(src, ['preset'], `the preset file ${JSON.stringify(value)} ${st ? 'is not a regular file' : 'does not exist'} (${file})`, PRESET_EXPECTED());
  if (st.size > CONFIG_MAX_BYTES) throw errorAt(src, ['preset'], `the preset file ${JSON.stringify(value)} is ${formatBytes(st.size)}, over the ${formatBytes(CONFIG_MAX_BYTES)} cap`, 'a pipeline definition of a few KB');
  return parsePresetFile(readFileSync(file, 'utf8'), file);
};

/** The pipeline checkroom.yaml merges into: the named preset's, or the preset file's. */
const basePipeline = (src: Source, name: string): PipelineDef => {
  if (PRESETS.has(name)) return presetOf(name).pipeline();
  if (isPresetFile(name)) return readPresetFile(src, name);
  throw errorAt(src, ['preset'], `unknown preset ${JSON.stringify(name)}`, PRESET_EXPECTED());
};

const resolve = (src: Source, raw: RawConfig, detected: string | null = null): WorkspaceConfig => {
  const preset = raw.preset ?? detected ?? DEFAULT_PRESET;
  const pipeline = resolvePipeline(src, raw, basePipeline(src, preset));
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
    ...(raw.preset === undefined && detected ? detectedNotice(detected) : {}),
    ...(raw.language ? { language: raw.language } : {}),
    onHangup: raw.on_hangup ?? 'leave',
    ...(raw.notify ? { notify: notifyOf(raw.notify) } : {}),
    ...(raw.secrets ? { secrets: Object.fromEntries(Object.entries(raw.secrets).map(([k, s]) => [k, 'file' in s ? { file: s.file.startsWith('~/') ? resolvePath(homedir(), s.file.slice(2)) : resolvePath(dirname(src.file), s.file) } : s])) } : {}),
    logs: { maxBytes: raw.logs?.max_bytes === undefined ? DEFAULT_LOGS_MAX_BYTES : sizeBytes(raw.logs.max_bytes) },
    pipeline,
    agents: Object.fromEntries(Object.entries(raw.agents ?? {}).map(([name, a]) => [name, toAgent(name, a, raw)])),
    limits: {
      ...launchCaps(l.max_launches),
      maxConsecutiveFailures: l.max_consecutive_failures ?? DEFAULT_LIMITS.maxConsecutiveFailures,
      caps: { ...DEFAULT_LIMITS.caps, ...Object.fromEntries(Object.entries(l.caps ?? {}).filter(([, v]) => v !== undefined)) },
      backoffBaseMs: l.backoff_base ?? DEFAULT_LIMITS.backoffBaseMs,
      backoffMaxMs: l.backoff_max ?? DEFAULT_LIMITS.backoffMaxMs,
      ...(toBudget(l) ? { budget: toBudget(l) } : {}),
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

export const parseConfig = (text: string, file: string, detected: string | null = null): WorkspaceConfig => {
  const { src, data } = parseYamlSource(text, file, configSchema());
  return resolve(src, data, detected);
};

/** Structural check of any pipeline (presets, adapters); throws the first problem. */
export const validatePipeline = (p: PipelineDef): void => {
  const [first] = findPipelineProblems(p);
  if (first) throw new ConfigError({ file: p.source, line: null, column: null, problem: first.problem, expected: first.expected });
};
