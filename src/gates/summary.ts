import type { Warning } from '../types.js';
import type { GateWorkflow } from './types.js';

// One gate-file workflow as `checkroom recover` reports it (JSON `gates[]`). Lives beside the
// gate reader so the gates preset can build it without importing the recovery flow.

export interface GateSummary {
  id: string;
  name: string;
  lastPassed: string | null;
  next: GateWorkflow['next'];
  /** Every step with its status and the gate shape that was read (`malformed`, `truncated` for broken gates). */
  steps: { number: string; agent: string; name: string; status: string; shape: string | null; dependencies: string[] }[];
  missingArtifacts: GateWorkflow['missingArtifacts'];
  failedValidations: GateWorkflow['failedValidations'];
  interrupted: string[];
  memory: GateWorkflow['memory'];
  warnings: Warning[];
}

export const gateSummary = (w: GateWorkflow): GateSummary => ({
  id: w.id,
  name: w.name,
  lastPassed: w.lastPassed,
  next: w.next,
  steps: w.steps.map((s) => ({ number: s.number, agent: s.agent, name: s.name, status: s.status, shape: s.gate?.shape ?? null, dependencies: s.dependencies })),
  missingArtifacts: w.missingArtifacts,
  failedValidations: w.failedValidations,
  interrupted: w.interrupted,
  memory: w.memory,
  warnings: w.warnings,
});

/** A workflow recovery should open on: an interrupted step, a partial or failed one. */
export const workflowInterrupted = (w: GateWorkflow): boolean => w.interrupted.length > 0 || w.steps.some((s) => s.status === 'partial' || s.status === 'failed');
