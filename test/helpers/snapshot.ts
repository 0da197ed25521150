import type { Ledger } from '../../src/run/journal/ledger.js';
import type { SupervisorSnapshot } from '../../src/run/supervisor/types.js';

// A supervisor snapshot as plain values, around a ledger replayed from plain journal events:
// what the operator model's tests (issue 18 item 1) hand the model or the store instead of a
// running supervisor.

export const plainSnapshot = (ledger: Ledger, patch: Partial<SupervisorSnapshot> = {}): SupervisorSnapshot =>
  ({
    role: 'driver',
    holder: null,
    readonlyReason: null,
    ledger,
    runs: [],
    waiting: [],
    autopilot: { on: false, paused: false, reason: '' },
    launchesThisSession: 0,
    limits: { maxLaunches: 100, maxConsecutiveFailures: 10, consecutiveFailures: 0, breakerThreshold: 2 },
    warnings: [],
    notices: [],
    ...patch,
  }) as SupervisorSnapshot;
