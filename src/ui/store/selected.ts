import type { HealthItem } from '../agents/agents.js';
import { healthList } from '../views/health-filter.js';
import { operatorOf } from './operator.js';
import { goneWhy, healthKey, partialKey, planKey, resolvePick, rowKey, type Picked } from './picked.js';
import { repick, type NavState } from '../views/nav.js';
import { matrixOf, partialItems, planItems, type MatrixRow, type PartialItem, type PlanItem } from './select.js';
import type { Message, UiState } from './types.js';
import type { ViewId } from '../views/views.js';

// The item a key acts on, per list: the picked one (picked.ts), never whatever row slid
// under the cursor. Every action that takes "the selected item" asks here.

type S = NavState & Pick<UiState, 'picked'>;

export const selectedPartial = (s: S): Picked<PartialItem> => resolvePick(partialItems(s.ws, s.filter, s.skipped), partialKey, s.cursors.partials, s.picked.partials);

export const selectedPlan = (s: S): Picked<PlanItem> => resolvePick(planItems(operatorOf(s).plan, s.filter, s.redoQueue, operatorOf(s).runs), planKey, s.cursors.plan, s.picked.plan);

export const selectedHealth = (s: S): Picked<HealthItem> => resolvePick(healthList(operatorOf(s), s.filter), healthKey, s.cursors.health, s.picked.health);

export const selectedRow = (s: S): Picked<MatrixRow> => resolvePick(matrixOf(s.ws, s.filter).rows, rowKey, s.cell.row, s.picked.progress);

/** The refusal when the picked item left its list: say so, and pick the row now shown. */
export const goneUpdate = (s: S, view: ViewId, key: string): Partial<UiState> => {
  const message: Message = { text: goneWhy(key), tone: 'warn' };
  return { message, ...repick(s, view) };
};

/** The file the backups panel opens on: the picked partial, the detail's cell, or the matrix cell under the cursor. */
export function selectedFile(s: S & Pick<UiState, 'detail'>): Picked<string> {
  if (s.view === 'partials') {
    const p = selectedPartial(s);
    return p && 'item' in p ? { item: p.item.file.path } : p;
  }
  if (s.view !== 'progress') return null;
  if (s.detail) {
    const path = s.ws.cells.find((c) => c.unit === s.detail!.unit && c.step === s.detail!.step)?.path;
    return path === undefined ? null : { item: path };
  }
  const p = selectedRow(s);
  if (!p || 'gone' in p) return p;
  const path = p.item.cells[s.cell.col]?.path;
  return path === undefined ? null : { item: path };
}
