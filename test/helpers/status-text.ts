import { liveStatusText, type StatusText } from '../../src/socket/status-text.js';
import type { CostLedger } from '../../src/run/journal/costs.js';
import type { OperatorRun } from '../../src/operator/types.js';
import { statusJsonText } from '../../src/cli/core-commands.js';
import { statusJson, toJson } from '../../src/cli/json.js';

/** The control socket's status text as the entry wires it (src/ui/entry/entry.ts). */
export const statusText = (costs?: () => CostLedger | undefined, runs?: () => readonly OperatorRun[] | null): StatusText => liveStatusText({ doc: statusJson, json: toJson, whole: statusJsonText }, costs, runs);
