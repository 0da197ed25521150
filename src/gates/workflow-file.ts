import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { sanitizeLine } from '../text/sanitize.js';
import type { Warning } from '../types.js';
import { compareSteps, parseStepFile, stepKey } from './gate-file.js';
import { isRecord, str } from './read-json.js';

// The workflow file: `.claude/workflows/<name>.yaml` in the public
// agent-studio format — `steps[]` with `step` (0, 1.5), `name`, `agent`, `inputs`,
// `validation.gate`. It is the one record of a workflow's steps and of what each needs:
// agent-studio writes no dependency list, its runner follows the inputs' `(from step N)`
// (workflow_runner.js validateStepDependencies); `(from step 1.5, optional)` waits on nothing.
// Plans and phase plans only claim progress on these steps.

export const WORKFLOWS_DIR = '.claude/workflows';

/** Bigger than any real workflow file (the largest public one is ~40 KB). */
const MAX_BYTES = 1024 * 1024;

export interface WorkflowStepDef {
  /** Canonical step key (`4`, `1.5`). */
  key: string;
  /** A named id the file gives the step (`id: confirm_gap`), if any. */
  id: string | null;
  name: string;
  agent: string;
  /** Canonical keys of the steps this one waits on. */
  dependencies: string[];
  /** The gate path as written, with `{{workflow_id}}` still in it; null when the file names none. */
  gate: string | null;
}

export interface WorkflowDef {
  /** Relative path of the workflow file. */
  file: string;
  /** Basename without `.yaml`: what a plan's `workflow` field names. */
  slug: string;
  name: string;
  steps: WorkflowStepDef[];
}

const FROM_STEP = /\(\s*from step\s+([0-9]+(?:\.[0-9]+)?)\s*(,\s*optional\s*)?\)/i;

/** The steps an input says it comes from (`x.json (from step 4)`); optional inputs wait on nothing. */
function inputDeps(inputs: unknown): string[] {
  if (!Array.isArray(inputs)) return [];
  const out: string[] = [];
  for (const i of inputs) {
    const m = typeof i === 'string' ? FROM_STEP.exec(i) : null;
    if (m && !m[2]) out.push(stepKey(m[1])!);
  }
  return out;
}

/** Explicit dependency lists some workflow files add (`depends_on: [step-2]`). */
function listedDeps(s: Record<string, unknown>): string[] {
  const raw = s.depends_on ?? s.dependsOn ?? s.dependencies;
  const list = Array.isArray(raw) ? raw : raw !== undefined ? [raw] : [];
  return list.map((d) => stepKey(d)).filter((d): d is string => d !== null);
}

/** One workflow file's text as a WorkflowDef; null (and a warning) when it has no steps to read. */
export function parseWorkflowFile(text: string, file: string, warnings: Warning[]): WorkflowDef | null {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    warnings.push({ source: file, message: `workflow file is not valid YAML (${sanitizeLine((e as Error).message.split('\n')[0])}); its steps and dependencies are unknown — fix the file` });
    return null;
  }
  if (!isRecord(doc) || !Array.isArray(doc.steps)) return null;
  const steps: WorkflowStepDef[] = [];
  for (const raw of doc.steps) {
    if (!isRecord(raw)) continue;
    const validation = isRecord(raw.validation) ? raw.validation : {};
    const gate = str(validation.gate);
    // The step number, else the one its gate file is named with (`04-developer.json`).
    const key = stepKey(raw.step ?? raw.step_number) ?? (gate ? (parseStepFile(basename(gate))?.number ?? null) : null);
    if (key === null) continue;
    const deps = [...new Set([...inputDeps(raw.inputs), ...listedDeps(raw)])].filter((d) => d !== key).sort(compareSteps);
    steps.push({
      key,
      id: str(raw.id) !== null ? sanitizeLine(str(raw.id)!) : null,
      name: sanitizeLine(str(raw.name) ?? str(raw.agent) ?? `step ${key}`),
      agent: sanitizeLine(str(raw.agent) ?? ''),
      dependencies: deps,
      gate,
    });
  }
  if (steps.length === 0) return null;
  return { file, slug: basename(file).replace(/\.ya?ml$/i, ''), name: sanitizeLine(str(doc.name) ?? basename(file)), steps };
}

/**
 * Parsed files by absolute path, kept while their size and time stay: the gates preset reads
 * the workspace again on every change under .claude/, and a real .claude/workflows/ holds a
 * score of flows (~100 ms to parse them all on a loaded machine, for files that never change).
 */
const parsed = new Map<string, { mtimeMs: number; size: number; def: WorkflowDef | null; warnings: Warning[] }>();
const MAX_CACHED = 512;

async function readOne(abs: string, file: string, warnings: Warning[]): Promise<WorkflowDef | null> {
  const st = await stat(abs).catch(() => null);
  if (!st || st.size > MAX_BYTES) return null;
  const hit = parsed.get(abs);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) {
    warnings.push(...hit.warnings);
    return hit.def;
  }
  const text = await readFile(abs, 'utf8').catch(() => null);
  if (text === null) return null;
  const own: Warning[] = [];
  const def = parseWorkflowFile(text, file, own);
  warnings.push(...own);
  if (parsed.size >= MAX_CACHED) parsed.clear();
  parsed.set(abs, { mtimeMs: st.mtimeMs, size: st.size, def, warnings: own });
  return def;
}

/** Every workflow file of the workspace (top level of .claude/workflows/ and one folder down). */
export async function readWorkflowFiles(root: string, warnings: Warning[]): Promise<WorkflowDef[]> {
  const out: WorkflowDef[] = [];
  const visit = async (rel: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory() && depth === 0) await visit(child, 1);
      if (!e.isFile() || !/\.ya?ml$/i.test(e.name)) continue;
      const def = await readOne(join(root, child), sanitizeLine(child), warnings);
      if (def) out.push(def);
    }
  };
  await visit(WORKFLOWS_DIR, 0);
  return out;
}

/**
 * The workflow file a run follows: the one its plan names (`"workflow": "feature-flow"`, a
 * path, or the file's `name`), else the only one whose steps name every gate and reasoning
 * file of the run (`04-developer.json`). A real `.claude/workflows/` holds a score of flows
 * that share `00-planner`: when more than one fits, none is guessed.
 */
export function matchWorkflow(defs: readonly WorkflowDef[], planWorkflow: string | null, files: readonly { number: string; agent: string }[]): WorkflowDef | null {
  if (planWorkflow) {
    const want = basename(planWorkflow).replace(/\.ya?ml$/i, '').toLowerCase();
    const named = defs.find((d) => d.slug.toLowerCase() === want || d.name.toLowerCase() === planWorkflow.toLowerCase());
    if (named) return named;
  }
  if (files.length === 0) return null;
  const fits = defs.filter((d) => files.every((f) => d.steps.some((s) => s.key === f.number && (!s.agent || s.agent === f.agent))));
  return fits.length === 1 ? fits[0] : null;
}
