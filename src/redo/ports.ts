import type { WorkspaceConfig } from '../pipeline/config/types.js';
import { appendJournal, type NewJournalEvent } from '../run/journal/journal.js';
import { markCell } from '../run/attempt/launch-checkpoint.js';
import { liveOf } from './gather.js';
import type { RedoPorts } from './apply.js';

// The redo's ports over the workspace itself, for whoever holds the driver lock outside a
// supervisor (`checkroom redo`); the control room hands its supervisor's journal instead.

export const diskPorts = (root: string, config: WorkspaceConfig, append: (e: NewJournalEvent) => Promise<void> = (e) => appendJournal(root, e)): RedoPorts => ({
  append,
  mark: async (unit, step, claim) => void (await markCell(root, config, unit, step, claim, Date.now())),
  live: (paths) => liveOf(root, config.pipeline, paths),
  now: () => Date.now(),
});
