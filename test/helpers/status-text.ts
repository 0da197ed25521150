import { liveStatusText, type StatusText } from '../../src/socket/status-text.js';
import type { CostLedger } from '../../src/run/journal/costs.js';
import type { OperatorRun } from '../../src/operator/types.js';
import { statusJsonText } from '../../src/cli/commands/core-commands.js';
import { statusJson, toJson } from '../../src/cli/json.js';
import { buildOperatorModel } from '../../src/operator/model.js';
import type { Foresight } from '../../src/foresight/types.js';
import type { WorkspaceState } from '../../src/types.js';

/** The control socket's status text as the entry wires it (src/ui/entry/room.ts); its foresight is the room's operator model's (the entry's `operatorOf`), by default that of a room without a supervisor (docs/foresight.md). */
export const statusText = (costs?: () => CostLedger | undefined, runs?: () => readonly OperatorRun[] | null, foresight?: (s: WorkspaceState) => Foresight | null): StatusText =>
  liveStatusText({ doc: statusJson, json: toJson, whole: statusJsonText }, costs, runs, foresight ?? ((s) => buildOperatorModel(s, null, Date.now()).foresight));
