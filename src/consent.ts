import type { WorkspaceConfig } from './pipeline/config/types.js';
import type { Ledger } from './run/journal/ledger.js';
import type { NewJournalEvent } from './run/journal/journal.js';
import { agentsHash } from './run/attempt/launch-spec.js';

// Consent to the agent command, shared by `checkroom run` and the control room: before the
// first launch from a workspace the exact command is shown; the journal records that it was
// (a `command_shown` decision keyed by a hash of the agents section), so it is shown again
// only when the agents change.

const SHOWN = 'command shown: agents ';

/** Whether the exact command of this agents section was already shown (per the journal). */
export const commandShown = (ledger: Pick<Ledger, 'decisions'>, config: WorkspaceConfig): boolean => {
  const note = `${SHOWN}${agentsHash(config)}`;
  return ledger.decisions.some((d) => d.kind === 'command_shown' && d.note === note);
};

/** The journal decision recording that the command was shown for this config. */
export const commandShownEvent = (config: WorkspaceConfig, unit: string, step: string, at: number): NewJournalEvent => ({
  type: 'decision',
  at,
  kind: 'command_shown',
  unit,
  step,
  note: `${SHOWN}${agentsHash(config)}`,
});
