import { formatMemory, resourcesOf, resourcesWords, type Resources } from '../../pipeline/resources.js';
import { currentEpisode, type AttemptRecord } from './policy.js';

// The memory ladder (docs/scale-out.md, Resources): an OOM-killed attempt is retried one memory
// step up, and an OOM kill at the top escalates. Decided here and nowhere else: the attempt's
// memory (every launch path and executor asks memoryFor through runAttempt) and the move after
// an OOM kill (nextMove asks afterOom). The count comes from the journal's attempts, so a
// restart (quit, crash, kill -9, takeover) climbs on from where the ledger fold says it was.

/** The ladder's steps in MiB, lowest first, or null when the resources have none. */
export const ladderSteps = (r: Resources): number[] | null => {
  const l = r.ladder;
  if (!l) return null;
  if ('steps' in l) return l.steps;
  const base = r.memoryMiB;
  if (base === undefined || l.maxMiB <= base) return null;
  const steps = [base];
  while (steps[steps.length - 1]! < l.maxMiB) steps.push(Math.min(l.maxMiB, Math.ceil(steps[steps.length - 1]! * l.factor)));
  return steps;
};

/** OOM kills since the cell's last success (operator cancels left out). */
export const oomKillsOf = (history: readonly AttemptRecord[]): number => currentEpisode(history).filter((a) => a.class === 'OOM_KILLED').length;

export interface MemoryChoice {
  /** The attempt's memory, MiB; undefined when none is asked. */
  memoryMiB: number | undefined;
  /** 1-based step of the ladder, and how many it has; null without a ladder. */
  step: { at: number; of: number } | null;
}

/** The memory of the next attempt after `oomKills` OOM kills: the ladder's step, or `memory:`. */
export const memoryFor = (r: Resources, oomKills: number): MemoryChoice => {
  const steps = ladderSteps(r);
  if (!steps) return { memoryMiB: r.memoryMiB, step: null };
  const i = Math.min(Math.max(oomKills, 0), steps.length - 1);
  return { memoryMiB: steps[i], step: { at: i + 1, of: steps.length } };
};

/** The ladder in words: `4G → 8G → 16G`. */
export const ladderWords = (steps: readonly number[]): string => steps.map(formatMemory).join(' → ');

export type OomMove = { kind: 'climb'; memoryMiB: number; left: number; reason: string } | { kind: 'top'; reason: string };

/**
 * After an OOM kill (`oomKills` counts it): the next step up, or the top reached and why.
 * null: no ladder, so the class's cap decides as for any class.
 */
export const afterOom = (r: Resources, oomKills: number): OomMove | null => {
  const steps = ladderSteps(r);
  if (!steps) return null;
  const was = formatMemory(steps[Math.min(oomKills, steps.length) - 1] ?? steps[0]!);
  if (oomKills >= steps.length)
    return { kind: 'top', reason: `OOM_KILLED at ${was}, the top of memory_ladder (${ladderWords(steps)}): raise the ladder's top in checkroom.yaml or make the step use less memory` };
  const next = steps[oomKills]!;
  return { kind: 'climb', memoryMiB: next, left: steps.length - oomKills, reason: `OOM_KILLED at ${was}: the next attempt gets ${formatMemory(next)} (memory_ladder step ${oomKills + 1} of ${steps.length})` };
};

/** One attempt's resources: the step's over its agent's, with the ladder's memory. */
export interface AttemptResources extends Resources {
  /** The ladder's step this attempt runs at; absent without a ladder. */
  ladderStep?: { at: number; of: number };
}

/** THE resources of a cell's next attempt, from its config and its attempts so far. */
export const attemptResources = (agent: Resources | undefined, step: Resources | undefined, history: readonly AttemptRecord[]): AttemptResources => {
  const r = resourcesOf(agent, step);
  const m = memoryFor(r, oomKillsOf(history));
  const { ladder: _l, memoryMiB: _m, ...rest } = r;
  return { ...rest, ...(m.memoryMiB !== undefined ? { memoryMiB: m.memoryMiB } : {}), ...(m.step ? { ladderStep: m.step } : {}) };
};

/** The attempt's resources in words, with the ladder's step and what its executor does with them. */
export const attemptResourcesWords = (r: AttemptResources, executor: string): string => {
  const words = resourcesWords(r).replace(/^memory [^,\s]+/, (m) => (r.ladderStep ? `${m} (memory_ladder step ${r.ladderStep.at} of ${r.ladderStep.of})` : m));
  if (words === '') return '';
  if (executor !== 'local') return `${words} (${executor})`;
  // Locally only memory is applied, as a data limit (executors/local.ts); the rest is said, not hidden.
  const rest = r.cpus !== undefined || r.gpus !== undefined || r.partition || r.account;
  return `${words} (local: ${r.memoryMiB !== undefined ? 'memory as a data limit' : 'nothing applied'}${rest ? '; cpus, gpus, partition, account not applied here' : ''})`;
};

/** As the launch event journals it: sizes in words, so a reader of the journal sees 8G. */
export const journalResources = (r: AttemptResources): Record<string, string | number> | null => {
  const out: Record<string, string | number> = {
    ...(r.memoryMiB !== undefined ? { memory: formatMemory(r.memoryMiB) } : {}),
    ...(r.ladderStep ? { ladder: `${r.ladderStep.at}/${r.ladderStep.of}` } : {}),
    ...(r.cpus !== undefined ? { cpus: r.cpus } : {}),
    ...(r.gpus !== undefined ? { gpus: r.gpus } : {}),
    ...(r.timeMs !== undefined ? { timeMs: r.timeMs } : {}),
    ...(r.partition ? { partition: r.partition } : {}),
    ...(r.account ? { account: r.account } : {}),
  };
  return Object.keys(out).length ? out : null;
};

/** A journalled launch's resources in words (the cell detail of a running attempt). */
export const journalledResourcesWords = (rec: Record<string, string | number> | undefined): string => {
  if (!rec) return '';
  const ladder = typeof rec.ladder === 'string' ? rec.ladder.split('/') : null;
  return [
    rec.memory !== undefined ? `memory ${rec.memory}${ladder ? ` (memory_ladder step ${ladder[0]} of ${ladder[1]})` : ''}` : '',
    rec.cpus !== undefined ? `${rec.cpus} cpus` : '',
    rec.gpus !== undefined ? `${rec.gpus} gpus` : '',
    rec.partition !== undefined ? `partition ${rec.partition}` : '',
    rec.account !== undefined ? `account ${rec.account}` : '',
  ]
    .filter(Boolean)
    .join(', ');
};
