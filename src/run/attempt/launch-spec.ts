import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { AgentDef, SecretSource, WorkspaceConfig } from '../../pipeline/config/types.js';
import type { StepDef } from '../../types.js';
import { unitPath } from '../../scan/units.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { unitIdPattern } from '../../pipeline/safe-pattern.js';
import { expandArgv } from './placeholders.js';
import { adapterFor, type AdapterCommand, type ResumeSpec } from '../adapters/index.js';
import { SupervisorError } from '../supervisor/types.js';
import { assertInside } from '../../fs/confine-path.js';
import { readSecrets, SecretError, secretRoots, type LaunchSecrets } from '../secrets/secrets.js';

// From a cell to the exact process spec: which agent, which argv (placeholders expanded as
// literal arguments, never through a shell), which cwd and env, where the output goes.

export interface CellTarget {
  step: StepDef;
  agent: AgentDef;
  /** Absolute path of the step's output (for `entry` steps: the shared long-memory file). */
  outputAbs: string;
  outputRel: string;
  marker: string;
  /** `secrets:` and where a secret file may be (run/secrets/secrets.ts); absent: none declared. */
  secrets?: { sources: Record<string, SecretSource> | undefined; roots: string[] };
}

export interface LaunchValues {
  attempt: number;
  /** Absolute path of the last half-product backup of this cell, or ''. */
  backup: string;
  /** Last error line of the previous attempt, or ''. */
  lastError: string;
  /** Continue this session instead of starting fresh (docs/domain.md, Half-products). */
  resume?: ResumeSpec | null;
}

export interface BuiltCommand {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** argv indexes that change between attempts without changing the situation ({attempt},
   *  {last_error}, {backup}): left out of the command fingerprint. */
  volatile: number[];
  /** The env's secret names (declared and key-like): executors keep them off what they submit. */
  secretNames: string[];
  /** The names `secrets:` declares: a Kubernetes Job references them from its Secret. */
  declaredSecrets: string[];
}

/**
 * Why a step id is not launchable: the steps there are, or — when checkroom.yaml lists none
 * (a gate-file workflow's steps are read from its files) — what to add.
 */
export const noStepWhy = (stepId: string, config: WorkspaceConfig): string => {
  const ids = config.pipeline.steps.map((s) => s.id);
  const shown = sanitizeLine(stepId).slice(0, 60);
  if (ids.length) return `no step "${shown}" in this pipeline; steps: ${ids.join(', ')}`;
  return `step "${shown}" is read from the workspace's files and checkroom.yaml lists no steps, so no agent is set to launch it: run it with the workflow's own runner, or add it with its agent under steps: in checkroom.yaml`;
};

/** Find the step and its configured agent, or say exactly what to add to checkroom.yaml. */
export const targetOf = (root: string, config: WorkspaceConfig, unit: string, stepId: string): CellTarget => {
  const step = config.pipeline.steps.find((s) => s.id === stepId);
  if (!step) {
    throw new SupervisorError(noStepWhy(stepId, config));
  }
  if (!unitIdPattern(config.pipeline.units.pattern)?.test(unit) && !(config.pipeline.units.list ?? []).includes(unit)) {
    throw new SupervisorError(`"${sanitizeLine(unit)}" is not a unit of this pipeline (units match /${config.pipeline.units.pattern}/)`);
  }
  const name = step.agent;
  if (!name) throw new SupervisorError(`step "${stepId}" names no agent: add agent: <name> to the step in checkroom.yaml`);
  const agent = config.agents[name];
  if (!agent) throw new SupervisorError(`no agent '${name}' in checkroom.yaml: add agents.${name}.command (or adapter: claude-code with a prompt)`);
  const outputRel = unitPath(step, unit);
  return { step, agent, outputAbs: join(root, outputRel), outputRel, marker: step.marker ?? '', secrets: { sources: config.secrets, roots: secretRoots(root, config.pipeline.outsideRoots) } };
};

export const buildCommand = (root: string, unit: string, t: CellTarget, v: LaunchValues): BuiltCommand => {
  const values: Record<string, string> = {
    unit,
    step: t.step.id,
    output: t.outputAbs,
    marker: t.marker,
    workspace: root,
    attempt: String(v.attempt),
    backup: v.backup,
    last_error: v.lastError,
    // A hand-off or a resume names the half-product the attempt completes.
    partial: v.resume && existsSync(join(root, v.resume.halfProduct)) ? join(root, v.resume.halfProduct) : '',
  };
  // The adapter decides what runs: today's command, or an agent CLI's own argv.
  let built: AdapterCommand;
  let cwd: string;
  try {
    built = adapterFor(t.agent).build(t.agent, values, v.resume ?? null);
    const dir = t.agent.cwd === null ? root : expandArgv([t.agent.cwd], values)[0]!;
    cwd = isAbsolute(dir) ? dir : resolve(root, dir);
  } catch (err) {
    throw new SupervisorError(`agent '${t.agent.name}' in checkroom.yaml: ${(err as Error).message}`);
  }
  const env: Record<string, string> = {};
  for (const [k, val] of Object.entries(process.env)) if (val !== undefined) env[k] = val;
  // Secrets go by the environment only, read at each launch (docs/scale-out.md, Secrets).
  let secrets: LaunchSecrets;
  try {
    secrets = readSecrets(t.secrets?.sources, process.env, t.secrets?.roots ?? [root]);
  } catch (err) {
    if (err instanceof SecretError) throw new SupervisorError(`agent '${t.agent.name}': ${err.message}`);
    throw err;
  }
  Object.assign(env, built.env, t.agent.env, secrets.env);
  return { argv: built.argv, cwd, env, volatile: built.volatile, secretNames: secrets.names, declaredSecrets: Object.keys(secrets.env).sort() };
};

/** Run ids name the cell and attempt so a log file is findable by eye. */
/** A unit or step as a run id spells it (unjournalled-jobs.ts reads run ids back). */
export const runIdPart = (s: string): string => s.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40);

export const newRunId = (unit: string, step: string, attempt: number, now: number): string =>
  `${runIdPart(unit)}-${runIdPart(step)}-a${attempt}-${now.toString(36)}-${randomBytes(3).toString('hex')}`;

export const logPathOf = (root: string, runId: string): string => join(root, '.checkroom', 'runs', `${runId}.log`);

/**
 * `.checkroom/runs/`, created inside the workspace only: a workspace deleted or moved away
 * is never recreated around a log (the journal's appends follow the same rule).
 */
export function ensureRunsDir(root: string): void {
  for (const dir of [join(root, '.checkroom'), join(root, '.checkroom', 'runs')]) {
    try {
      mkdirSync(assertInside('mkdir', dir, [root]));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code === 'ENOENT') throw new SupervisorError(`the workspace directory ${root} is gone (deleted or moved)`);
      throw err;
    }
  }
}

/** Hash of the agents section: the "show the exact command once" consent is per config version. */
export const agentsHash = (config: WorkspaceConfig): string => {
  const agents = Object.keys(config.agents)
    .sort()
    .map((k) => config.agents[k]);
  return createHash('sha256').update(JSON.stringify(agents)).digest('hex').slice(0, 16);
};
