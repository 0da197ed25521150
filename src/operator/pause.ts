import type { Ledger } from '../run/journal/ledger.js';
import { pauseClock, resumeHint, ruleWords, type PauseRule } from '../run/policy/pause.js';
import type { OperatorRun } from './types.js';

// Drain and pause as the operator sees them (docs/drain.md), one derivation for the header,
// Plan, Health, `status` text and `--json` and the socket: from the journal's fold (the
// ledger's `pause`) and the runs in flight.

export interface OperatorPause {
  /** Draining: no new launch; `running`: runs still in flight; `drainedAt`: when the last one ended. */
  drain: { since: number; by: string; running: number; drainedAt: number | null } | null;
  /** The pauses in force, in the order they were set. */
  paused: readonly PauseRule[];
  /** The header's words: "DRAINING (2 running)", "DRAINED", "PAUSED: agent writer, cell ch03/draft"; null when nothing holds. */
  words: string | null;
}

export const NO_OPERATOR_PAUSE: OperatorPause = { drain: null, paused: [], words: null };

/** The header's words, the longest part last so a narrow screen cuts the list, not the state. */
export function pauseHeadline(p: Pick<OperatorPause, 'drain' | 'paused'>): string | null {
  const parts: string[] = [];
  if (p.drain) parts.push(p.drain.drainedAt !== null && p.drain.running === 0 ? 'DRAINED' : `DRAINING (${p.drain.running} running)`);
  if (p.paused.length) parts.push(`PAUSED: ${p.paused.map((r) => (r.scope === 'all' ? 'everything' : ruleWords(r))).join(', ')}`);
  return parts.length ? parts.join(' · ') : null;
}

let last: { pause: Ledger['pause'] | null; running: number; value: OperatorPause } | null = null;

/** From the ledger (null: no journal) and the runs in flight; the same object while neither changed. */
export function pauseOf(ledger: Pick<Ledger, 'pause'> | null, runs: readonly OperatorRun[]): OperatorPause {
  const pause = ledger?.pause ?? null;
  const running = runs.length;
  if (last && last.pause === pause && last.running === running) return last.value;
  let value = NO_OPERATOR_PAUSE;
  if (pause && (pause.drain || pause.rules.length)) {
    const drain = pause.drain ? { since: pause.drain.at, by: pause.drain.by, running, drainedAt: pause.drain.drainedAt } : null;
    value = { drain, paused: pause.rules, words: pauseHeadline({ drain, paused: pause.rules }) };
  }
  last = { pause, running, value };
  return value;
}

/** The pause holding this cell's next launch, for Plan's mark; null when none. */
export function cellPause(p: OperatorPause, unit: string, step: string, agent: string | null, executor: string | null): PauseRule | null {
  return p.paused.find((r) => r.scope === 'all' || (r.scope === 'cell' && r.target === `${unit}/${step}`) || (r.scope === 'agent' && r.target === agent) || (r.scope === 'executor' && r.target === executor)) ?? null;
}

/** `status --json`'s `pause`: null when nothing holds. */
export const pauseJson = (p: OperatorPause) =>
  p.words === null
    ? null
    : {
        drain: p.drain ? { since: new Date(p.drain.since).toISOString(), by: p.drain.by, running: p.drain.running, drained: p.drain.drainedAt !== null && p.drain.running === 0, drainedAt: p.drain.drainedAt === null ? null : new Date(p.drain.drainedAt).toISOString() } : null,
        paused: p.paused.map((r) => ({ scope: r.scope, target: r.target, at: new Date(r.at).toISOString(), by: r.by })),
        words: p.words,
      };

/** `status`'s lines: the headline, then the drain and each pause with who, when and how to end it. */
export function pauseLines(p: OperatorPause): string[] {
  if (p.words === null) return [];
  const out = [p.words];
  if (p.drain) out.push(`  drain since ${pauseClock(p.drain.since)} by ${p.drain.by}${p.drain.drainedAt !== null && p.drain.running === 0 ? `, drained at ${pauseClock(p.drain.drainedAt)}` : ''}; undrain with :undrain or checkroom drain --off`);
  for (const r of p.paused) out.push(`  ${ruleWords(r)} paused at ${pauseClock(r.at)} by ${r.by}; ${resumeHint(r)}`);
  return out;
}

/** Plan's and Health's mark on a cell the drain or a pause holds: "draining: not launched", "paused (agent writer, by root via p)"; null when free. */
export function cellPauseMark(p: OperatorPause, unit: string, step: string, agent: string | null, executor: string | null = null): string | null {
  if (p.drain) return 'draining: not launched until :undrain';
  const r = cellPause(p, unit, step, agent, executor);
  return r ? `paused (${ruleWords(r)}, by ${r.by}): not launched until resumed` : null;
}
