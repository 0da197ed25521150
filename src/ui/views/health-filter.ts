import type { OperatorModel } from '../../operator/types.js';
import { breakerWords } from '../../operator/words.js';
import { cellStateWords, type HealthItem } from '../agents/agents.js';
import { matchesFilter } from './filter.js';

// Health under the `/` filter, as the other views are (`/` did not filter
// it). An agent row matches by its name and breaker words ("open", "held"); a cell row by its
// unit, step, agent, state words ("escalated", "retrying"), reason and last error. The view,
// its list in views.ts (cursors, keys) and the selected item of R/H/Z all read this one list,
// the operator model's rows by urgency.

const textOf = (it: HealthItem, m: OperatorModel): (string | null | undefined)[] =>
  it.kind === 'agent'
    ? ['agent', it.agent, breakerWords(it.breaker, m.at)]
    : [it.cell.unit, it.cell.step, it.cell.agent, cellStateWords(it.cell, m), it.cell.escalation?.class, it.cell.reason, it.cell.ledger?.lastError];

export function healthList(m: OperatorModel, filter: string): HealthItem[] {
  return filter.trim() === '' ? m.health : m.health.filter((it) => matchesFilter(filter, ...textOf(it, m)));
}
