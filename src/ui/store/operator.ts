import { buildOperatorModel } from '../../operator/model.js';
import type { OperatorModel } from '../../operator/types.js';
import type { WorkspaceState } from '../../types.js';
import type { AgentsUi } from '../agents/types.js';

// The control room's operator model: built once per change of the store's
// workspace or agents (the agents feed pushes a new `agents` with its one clock reading `at`
// per flush and per 1 s tick), and shared by every component and store action that asks.
// Keyed by the `agents` object: a store holds one at a time, and several stores (tests) keep
// their own.

const last = new WeakMap<AgentsUi, { ws: WorkspaceState; model: OperatorModel }>();

export function operatorOf(s: { ws: WorkspaceState; agents: AgentsUi }): OperatorModel {
  const hit = last.get(s.agents);
  if (hit?.ws === s.ws) return hit.model;
  const a = s.agents;
  const model = buildOperatorModel(s.ws, { snap: a.snap, limits: a.limits, concurrency: a.concurrency ?? Object.fromEntries(a.agentNames.map((n) => [n, null])), accounts: a.accounts }, a.at || s.ws.scannedAt);
  last.set(s.agents, { ws: s.ws, model });
  return model;
}
