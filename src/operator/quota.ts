import type { SupervisorSnapshot } from '../run/supervisor/types.js';
import type { OperatorQuota } from './types.js';

// The accounts waiting for their quota's reset (docs/quota.md), from the journal's waits at
// the model's one clock reading: the header's one countdown per account, the same for the
// driver and an observer (both fold the same journal).

export function quotaOf(snap: SupervisorSnapshot | null, at: number): OperatorQuota[] {
  const waits = snap?.ledger.quotaWaits ?? {};
  const out: OperatorQuota[] = [];
  for (const w of Object.values(waits)) {
    if (w.until <= at) continue;
    const agents = new Set([w.agent]);
    let cells = 0;
    for (const c of Object.values(snap!.ledger.cells)) {
      if (c.quota?.account !== w.account) continue;
      cells++;
      if (c.agent) agents.add(c.agent);
    }
    out.push({ account: w.account, label: w.label, deadline: w.until, agents: [...agents].sort(), cells });
  }
  return out.sort((a, b) => a.deadline - b.deadline || a.account.localeCompare(b.account));
}
