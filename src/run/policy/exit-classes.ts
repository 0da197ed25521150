import type { AgentDef, FailureClass } from '../../pipeline/config/types.js';
import { BUILT_IN_CLASSES, type RetryKind } from '../../pipeline/failure-classes.js';
import { classifyOutcome } from './classify.js';

// The classes an exit code decides alone, for a scheduler that must act on a failure before
// checkroom reads the log (a Kubernetes Indexed Job's podFailurePolicy: docs/scale-out.md,
// Arrays). Asked of the one classifier with nothing but the code: the agent's `rules:` with an
// exit code and no pattern, then the table's signs that need no text (127: TOOL_NOT_FOUND).
// A class the output would decide is not here: the pod's failure is counted and checkroom
// classifies it from the log as for any other attempt.

export interface ExitCodeClass {
  code: number;
  class: FailureClass;
  retry: RetryKind;
}

/** Exit codes 1..255 whose class the code alone decides, in order. */
export const exitCodeClasses = (agent: Pick<AgentDef, 'rules'>): ExitCodeClass[] =>
  Array.from({ length: 255 }, (_, i) => i + 1).flatMap((code) => {
    const c = classifyOutcome(
      { runId: '', exitCode: code, signal: null, spawnError: null, stalled: false, timedOut: false, cancelled: false, tail: [], startedAt: 0, endedAt: 0, bytesOut: 0, infra: null, oomKilled: false },
      { markerFound: false, rules: agent.rules },
    );
    const row = c === 'SUCCESS' || c === 'CANCELLED' || c === 'UNKNOWN' ? undefined : BUILT_IN_CLASSES.rows.get(c);
    return row ? [{ code, class: row.name, retry: row.retry }] : [];
  });
