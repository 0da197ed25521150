import { breakerWords, cellStateWords, healthItems, type HealthItem } from './agents.js';
import type { AgentsUi } from './agents-types.js';
import { matchesFilter } from './filter.js';

// Health under the `/` filter, as the other views are (issue 18 item 5: `/` did not filter
// it). An agent row matches by its name and breaker words ("open", "held"); a cell row by its
// unit, step, agent, state words ("escalated", "retrying"), reason and last error. The view,
// its list in views.ts (cursors, keys) and the selected item of R/H/Z all read this one list.

const textOf = (it: HealthItem, a: AgentsUi): (string | null | undefined)[] =>
  it.kind === 'agent'
    ? ['agent', it.agent, breakerWords(it.ledger)]
    : [it.cell.unit, it.cell.step, it.cell.agent, cellStateWords(it.cell, a), it.cell.reason, it.cell.lastError];

export function healthList(a: AgentsUi, filter: string): HealthItem[] {
  const all = healthItems(a);
  return filter.trim() === '' ? all : all.filter((it) => matchesFilter(filter, ...textOf(it, a)));
}
