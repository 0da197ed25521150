import type { ResumeVocab } from './vocab.js';

// The letter of a gate-file workflow speaks the workflow's language: its
// units are workflows made of steps, its proof is the gate files, its record the plan — never
// chapters or checkpoint.md. The gates preset's state is always English (state.ts), so only
// the English words are overlaid; the labels stay readable by parseResume.

export const GATE_WORDS: Pick<ResumeVocab, 'unitCount' | 'done' | 'inProgress' | 'notStarted' | 'readCheckpoint' | 'detectPartials' | 'impactPartial' | 'impactStale' | 'impactMemory' | 'checkpointLabel' | 'differs'> = {
  unitCount: 'Workflows',
  done: 'Done workflows',
  inProgress: 'Workflows in progress',
  notStarted: 'Workflows not started',
  readCheckpoint: 'Read the gate files of each workflow to confirm progress (a passing gate proves a step; the plan only claims)',
  detectPartials: 'Check the half-done steps: a gate cut off or unreadable, reasoning with no final decision and no gate',
  impactPartial: (u, s) => `step ${s.replace(/^s(?=\d)/, '')} of ${u} must be redone before the steps that need it`,
  impactStale: 'the plan is stale; the gates decide',
  impactMemory: 'later steps read incomplete memory',
  checkpointLabel: 'Workflow files',
  differs: (_what, n, list) => `the plan ≠ the gates ×${n} (${list})`,
};
