import { cellKey } from '../../types.js';
import type { AppState } from '../store/types.js';
import type { SetState } from '../store/kit.js';
import { historyRowAt } from './list.js';
import { selectedRow } from '../store/selected.js';
import { travelTo } from './time-travel.js';

// History's keys (docs/history.md): Enter on a row goes to its moment; P opens the post-mortem
// of the run's cell (History) or of the selected cell (Progress), in the History view.

type CommandHandler = (k: { set: SetState }, s: AppState) => void;

export const travelKey: CommandHandler = (k, s) => {
  const row = historyRowAt(s.history, s.filter, s.cursors.history);
  if (!row) return k.set({ message: { text: 'no row here (the journal is empty, or the filter hides every row)', tone: 'warn' } });
  // A run's row says how it ended: its moment is its end (or its launch while in flight).
  k.set(travelTo(s, row.run?.endedAt ?? row.at));
};

export const postMortemKey: CommandHandler = (k, s) => {
  if (s.view === 'history') {
    const row = historyRowAt(s.history, s.filter, s.cursors.history);
    if (!row?.key) return k.set({ message: { text: 'this row is of no cell: P on a run, an escalation or a decision', tone: 'warn' } });
    return k.set({ postMortem: row.key });
  }
  const picked = selectedRow(s);
  const cell = picked && !('gone' in picked) ? picked.item.cells[s.cell.col] : undefined;
  if (!cell) return k.set({ message: { text: 'no cell here (the filter hides every row?)', tone: 'warn' } });
  k.set({ view: 'history', postMortem: cellKey(cell.unit, cell.step), detail: null });
};
