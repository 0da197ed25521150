import type { SupervisorSnapshot } from '../run/supervisor/types.js';
import type { OperatorQuota } from './types.js';

// The accounts waiting for their quota's reset (docs/quota.md), from the journal's waits at
// the model's one clock reading: the header's one countdown per account, the same for the
// driver and an observer (both fold the same journal). Foresight counts the same list: the
// agents on a waiting account start nothing before its reset, as the quota gate decides.

/**
 * `accounts`: each configured agent's account id (run/quota/account.ts), so an agent on the
 * same key that has not hit the limit yet is counted as waiting too; absent, the agents the
 * journal saw waiting.
 */
export function quotaOf(snap: Pick<SupervisorSnapshot, 'ledger'> | null, at: number, accounts: Readonly<Record<string, string>> = {}): OperatorQuota[] {
  const waits = snap?.ledger.quotaWaits ?? {};
  const out: OperatorQuota[] = [];
  for (const w of Object.values(waits)) {
    if (w.until <= at) continue;
    const agents = new Set([w.agent]);
    for (const [agent, account] of Object.entries(accounts)) if (account === w.account) agents.add(agent);
    const waiting: { unit: string; step: string; key: string }[] = [];
    for (const c of Object.values(snap!.ledger.cells)) {
      if (c.quota?.account !== w.account) continue;
      waiting.push({ unit: c.unit, step: c.step, key: c.key });
      if (c.agent) agents.add(c.agent);
    }
    waiting.sort((a, b) => a.key.localeCompare(b.key, 'en', { numeric: true }));
    out.push({ account: w.account, label: w.label, deadline: w.until, agents: [...agents].sort(), cells: waiting.length, waiting: waiting.map(({ unit, step }) => ({ unit, step })) });
  }
  return out.sort((a, b) => a.deadline - b.deadline || a.account.localeCompare(b.account));
}
