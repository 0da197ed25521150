import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sanitizeLine } from '../text/sanitize.js';
import { readFileFacts } from '../scan/file-facts.js';
import type { Warning } from '../types.js';
import { brokenGate, cutOffVerdict, normaliseGate, parseStepFile } from './gate-file.js';
import { ARTIFACTS_DIR, readPlan } from './plan.js';
import { readJson } from './read-json.js';
import { REASONING_DIR, readReasoning } from './reasoning.js';
import { checkRegistry } from './registry.js';
import type { GateFileFacts, GateWorkspace, MemoryFile } from './types.js';
import { buildWorkflow, type NumberedGate } from './workflow.js';
import { matchWorkflow, readWorkflowFiles, WORKFLOWS_DIR } from './workflow-file.js';

// Entry point of the gate-file adapter (docs/domain.md, Workflow gate files): discover every workflow a
// workspace mentions — in gates/, in plans and registries, in reasoning/ — and rebuild each
// one from disk, the way the source document tells a new session to (gates, plan, reasoning, then the
// registry and memory). Reading never throws; what cannot be read becomes a Warning.

export const GATES_DIR = '.claude/context/history/gates';
export const MEMORY_DIR = '.claude/context/memory';
export const MEMORY_FILES = ['learnings.md', 'issues.md', 'decisions.md'] as const;

const list = async (abs: string, dirs: boolean): Promise<string[]> => {
  try {
    return (await readdir(abs, { withFileTypes: true })).filter((e) => (dirs ? e.isDirectory() : e.isFile())).map((e) => e.name);
  } catch {
    return [];
  }
};

/** The gate file's size, characters and time, counted as the book's scan counts artifacts. */
function gateFileFacts(root: string, rel: string): GateFileFacts {
  const f = readFileFacts(join(root, rel), rel, null);
  return { exists: f.exists, bytes: f.bytes, chars: f.chars, mtimeMs: f.mtimeMs };
}

async function readGates(root: string, id: string, warnings: Warning[]): Promise<NumberedGate[]> {
  const out: NumberedGate[] = [];
  for (const f of (await list(join(root, GATES_DIR, id), false)).sort()) {
    if (!f.toLowerCase().endsWith('.json')) continue;
    const rel = `${GATES_DIR}/${id}/${f}`;
    const named = parseStepFile(f);
    if (!named) {
      warnings.push({ source: rel, message: 'gate file name is not {step}-{agent}.json; ignored' });
      continue;
    }
    const agent = sanitizeLine(named.agent);
    const read = await readJson(join(root, rel));
    if (read.kind === 'missing') continue; // gone between the listing and the read
    const file = gateFileFacts(root, rel);
    if (read.kind === 'ok') {
      const gate = normaliseGate(read.value, rel, agent);
      if (gate) out.push({ number: named.number, gate, file });
      else {
        warnings.push({ source: rel, message: 'gate has no known shape (validation_status, valid, allowed, status, skipped); step treated as not passed — re-run its validation' });
        out.push({ number: named.number, gate: brokenGate(rel, agent, 'malformed', 'no known gate shape'), file });
      }
    } else if (read.kind === 'truncated') {
      // Whether other proof makes it a pass is decided with the whole workflow (workflow.ts).
      const gate = { ...brokenGate(rel, agent, 'truncated', `cut off mid-write: ${read.message}`), cutVerdict: cutOffVerdict(read.head) };
      out.push({ number: named.number, gate, file, cutOff: `${read.bytes} bytes, ${read.message}` });
    } else {
      const message = read.message;
      warnings.push({ source: rel, message: `gate cannot be read (${message}); step treated as not passed — re-run its validation` });
      // Permission or a non-file under a gate's name: nothing is known about its content.
      out.push({ number: named.number, gate: brokenGate(rel, agent, 'malformed', message), file: read.kind === 'error' ? { ...file, unreadable: message } : file });
    }
  }
  return out;
}

async function readMemory(root: string): Promise<MemoryFile[]> {
  return Promise.all(
    MEMORY_FILES.map(async (name) => {
      const file = `${MEMORY_DIR}/${name}`;
      const st = await stat(join(root, file)).catch(() => null);
      return { file, present: !!st?.isFile(), bytes: st?.isFile() ? st.size : 0 };
    }),
  );
}

const PLAN = /^plan-(.+?)(?:-phase-(\d+))?\.json$/;
const REGISTRY = /^registry-(.+)\.json$/;

/** Newest first: ids start with a seconds-epoch (`1764400000-k3f9a2`). */
const byEpochDesc = (a: string, b: string): number => (parseInt(b, 10) || 0) - (parseInt(a, 10) || 0) || a.localeCompare(b);

export async function scanGateWorkspace(root: string): Promise<GateWorkspace> {
  const warnings: Warning[] = [];
  const ids = new Set<string>();
  const phaseFiles = new Map<string, string[]>();
  for (const d of await list(join(root, GATES_DIR), true)) ids.add(d);
  for (const d of await list(join(root, REASONING_DIR), true)) ids.add(d);
  for (const f of await list(join(root, ARTIFACTS_DIR), false)) {
    const p = PLAN.exec(f);
    if (p) {
      ids.add(p[1]);
      if (p[2]) phaseFiles.set(p[1], [...(phaseFiles.get(p[1]) ?? []), f]);
    }
    const r = REGISTRY.exec(f);
    if (r) ids.add(r[1]);
  }
  const memory = await readMemory(root);
  const defs = await readWorkflowFiles(root, warnings);
  const workflows = [];
  for (const id of [...ids].sort(byEpochDesc)) {
    const w: Warning[] = [];
    const gates = await readGates(root, id, w);
    const reasoning = await readReasoning(root, id, w);
    const named = [...gates.map((g) => ({ number: g.number, agent: g.gate.agent })), ...reasoning];
    const pick = (planWorkflow: string | null) => matchWorkflow(defs, planWorkflow, named);
    const plan = await readPlan(root, id, phaseFiles.get(id) ?? [], w, pick);
    const def = pick(plan?.workflow ?? null);
    if (plan?.workflow && defs.length > 0 && !matchWorkflow(defs, plan.workflow, [])) {
      w.push({ source: plan.files[0], message: `the plan follows workflow "${plan.workflow}", which no file in ${WORKFLOWS_DIR}/ is${def ? `; ${def.file} is used, its steps match the gate files` : '; steps and dependencies come from the plan — add the workflow file or fix the plan\'s workflow field'}` });
    } else if (!def && defs.length > 0) {
      w.push({ source: WORKFLOWS_DIR, message: `which workflow file run ${sanitizeLine(id)} follows is not known (its plan names none and ${defs.length === 1 ? 'the one file does not have every step its gates name' : 'no single file has every step its gates name'}); steps and dependencies come from the plan — write the workflow's name in the plan's "workflow" field` });
    }
    const registry = await checkRegistry(root, id, w);
    if (!registry.present) w.push({ source: `${ARTIFACTS_DIR}/registry-${id}.json`, message: 'no artifact registry; artifacts cannot be checked on disk' });
    workflows.push(buildWorkflow({ id: sanitizeLine(id), plan, def, gates, reasoning, missingArtifacts: registry.missing, artifactsOnDisk: registry.onDisk, memory, warnings: w }));
  }
  if (workflows.length === 0) warnings.push({ source: GATES_DIR, message: `no gate-file workflow found (looked in ${GATES_DIR}, ${ARTIFACTS_DIR}, ${REASONING_DIR})` });
  return { root, workflows, memory, warnings };
}
