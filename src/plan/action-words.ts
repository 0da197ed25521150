import type { PlanAction } from '../types.js';

// Plan actions in the operator's words (Plan showed `human_review`,
// `backup_redo`, `rebuild_memory`). One table for every text surface — the Plan view,
// `checkroom plan`, the Next lines of `status`, the recover report and the `/` filter —
// while `--json` keeps the machine names (the JSON contract). RESUME.md has its own words
// per language (resume/vocab.ts), written as sentences for a letter.

export const ACTION_WORDS: Record<PlanAction, string> = {
  retry: 'retry',
  human_review: 'needs you',
  backup_redo: 'back up & redo',
  decide: 'decide',
  run: 'run',
  complete_phase: 'finish phase',
  rebuild_memory: 'rebuild memory',
};

/** The words of an action; a name outside the table (a newer journal's) as it is. */
export const actionWord = (a: PlanAction): string => ACTION_WORDS[a] ?? a;
