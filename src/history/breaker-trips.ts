import { breakerInit, breakerReduce, type BreakerEvent, type BreakerState } from '../run/policy/breaker.js';
import type { BreakerConfig } from '../pipeline/config/types.js';
import { DEFAULT_BREAKER } from '../pipeline/defaults.js';
import type { JournalEvent } from '../run/journal/journal.js';
import { duration } from '../operator/words.js';
import { failureSummary } from '../run/journal/ledger.js';

// Breaker trips for the timeline (docs/history.md): an agent's breaker opens by the journal's
// exits, not by a journal line of its own, so History replays each agent's breaker as the
// ledger does (ledger-fold.ts: a success closes, an operator cancel or a cluster fault is
// abandoned, any other failure counts; the operator's breaker lines apply) and says when one
// opened. The agents' own breakers only: a cluster executor's infra breaker is left to Health.

export class BreakerTrips {
  private readonly states = new Map<string, BreakerState>();
  private readonly agentOf = new Map<string, string>();

  constructor(private readonly cfg: BreakerConfig = DEFAULT_BREAKER) {}

  /** The words of a trip this event caused, or null. */
  apply(e: JournalEvent): { agent: string; text: string } | null {
    switch (e.type) {
      case 'launch':
        this.agentOf.set(e.runId, e.agent);
        return this.feed(e.agent, { type: 'launch', at: e.at });
      case 'exit':
        this.agentOf.delete(e.runId);
        if (e.class === 'SUCCESS') return this.feed(e.agent, { type: 'success', at: e.at });
        if (e.class === 'CANCELLED' || e.class === 'INFRA') return this.feed(e.agent, { type: 'abandon', at: e.at });
        return this.feed(e.agent, { type: 'failure', at: e.at, summary: failureSummary(e.class, e.error ?? e.errorTail.at(-1) ?? '') });
      case 'reaped': {
        const agent = this.agentOf.get(e.runId);
        this.agentOf.delete(e.runId);
        return agent ? this.feed(agent, { type: 'abandon', at: e.at }) : null;
      }
      case 'breaker':
        return this.feed(e.agent, e.event === 'failure' ? { type: 'failure', at: e.at, summary: e.summary } : { type: e.event, at: e.at });
      default:
        return null;
    }
  }

  private feed(agent: string, e: BreakerEvent): { agent: string; text: string } | null {
    const before = this.states.get(agent) ?? breakerInit();
    const after = breakerReduce(before, e, this.cfg);
    this.states.set(agent, after);
    if (after.trips <= before.trips || after.status !== 'open') return null;
    return {
      agent,
      text: `breaker ${agent} opened (trip ${after.trips}, cooling down ${duration(after.cooldownMs)}): ${after.openedBy.slice(-1)[0] ?? 'failures'}`,
    };
  }
}
