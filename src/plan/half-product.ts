import type { PartialFile, PlanAction } from '../types.js';
import type { Why } from '../reasons/why.js';
import { say } from '../reasons/say.js';

/**
 * What to do with a half-product, and why, from one decision (the plan said
 * `decide` while its reason said "back up and redo"). Redoing is launchable work: with a
 * dependency not done only a human can decide, and the reason says so instead of the
 * finding's own advice. A file that looks complete is the operator's keep-or-redo call.
 */
export function halfProductEntry(p: PartialFile, waits: readonly string[]): { action: PlanAction; reason: string; why?: Why } {
  const decision: 'redo' | 'keep_or_redo' | 'waits' = p.verdict === 'maybe_complete' ? 'keep_or_redo' : waits.length ? 'waits' : 'redo';
  const action: PlanAction = decision === 'redo' ? 'backup_redo' : 'decide';
  if (!p.why) return { action, reason: `${p.path}: ${p.reason}${decision === 'waits' ? `; it cannot be redone before ${waits.join(', ')} ${waits.length === 1 ? 'is' : 'are'} done: decide` : ''}` };
  const why: Why = decision === 'waits' ? { k: 'waits_first', path: p.path, then: p.why, waits: [...waits] } : { k: 'at_path', path: p.path, then: p.why };
  return { action, reason: say(why), why };
}
