import { cellKey } from '../../types.js';
import type { HealthItem } from '../agents/agents.js';
import type { MatrixRow, PartialItem, PlanItem, SourceItem } from '../store/select.js';

// The identity of an item in each view's list (picked.ts says why identity matters). Apart
// from picked.ts so the view registry (views.ts) can name each list's key without a cycle.

export const partialKey = (i: PartialItem): string => i.file.path;

export const planKey = (i: PlanItem): string =>
  i.kind === 'flight' ? `cell:${i.flight.key}` : i.kind === 'queued' ? `cell:${cellKey(i.redo.unit, i.redo.step)}` : i.step.unit !== null && i.step.step !== null ? `cell:${cellKey(i.step.unit, i.step.step)}` : `plan:${i.step.action}:${i.step.reason}`;

export const healthKey = (i: HealthItem): string => (i.kind === 'agent' ? `agent:${i.agent}` : `cell:${i.cell.key}`);

export const rowKey = (r: MatrixRow): string => r.unit;

export const sourceKey = (i: SourceItem): string => {
  switch (i.kind) {
    case 'discrepancy':
      return `d:${cellKey(i.d.unit, i.d.step)}`;
    case 'todo':
      return `t:${i.t.todoId}`;
    case 'ready':
      return `y:${i.r.todoId}`;
    case 'dangling':
      return `g:${i.dep.todo_id}>${i.dep.depends_on}`;
    case 'resume':
      return `r:${i.text}`;
    case 'warning':
      return `w:${i.w.source}:${i.w.line ?? ''}:${i.w.message}`;
    case 'scheduler':
      return `s:${i.f.kind}:${i.f.jobId ?? cellKey(i.f.unit, i.f.step)}`;
  }
};
