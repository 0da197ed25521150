import type { WorkspaceConfig } from '../pipeline/config/types.js';
import type { WorkspaceState } from '../types.js';
import type { Foresight } from '../foresight/types.js';
import { breakersOf } from '../operator/breakers.js';
import { foresightFrom } from '../operator/foresight.js';
import { FORESIGHT_CLOCK_MS } from '../operator/model.js';
import { quotaOf } from '../operator/quota.js';
import { accountsOf } from '../run/quota/account.js';
import type { ScanJournal } from './scan-journal.js';

// A scan's foresight (docs/foresight.md): the journal's fold, runs in flight and breakers as
// a control room's operator model has them, quota waits included, so `status` and its `--json`
// say the room's ETA and its waits.

const concurrencyOf = (config: WorkspaceConfig): Record<string, number> => Object.fromEntries(Object.entries(config.agents).map(([n, a]) => [n, a.concurrency]));

export function scanForesight(state: WorkspaceState, config: WorkspaceConfig, j: ScanJournal, at: number): Foresight {
  const breakers = breakersOf(j.ledger ? { ledger: j.ledger } : null, j.runs, { concurrency: concurrencyOf(config) }, at);
  const quota = quotaOf(j.ledger ? { ledger: j.ledger } : null, at, accountsOf(config.agents));
  return foresightFrom(state, j.ledger, j.runs, breakers, config.limits, at, quota);
}

/** The forecast's clock is the minute, as the operator model's (operator/model.ts); status-cache.ts keys on it. */
export const FORESIGHT_MINUTE_MS = FORESIGHT_CLOCK_MS;

/**
 * What the forecast reads besides what the status cache already keys on (the facts, the
 * spend, the runs in flight): the durations, the breakers, the quota waits, and the clock to the minute.
 */
export const foresightKey = (j: ScanJournal, at: number): unknown => [
  j.ledger?.durations ?? null,
  Object.values(j.ledger?.agents ?? {}).map((a) => [a.agent, a.breaker.status, a.breaker.until]),
  Object.values(j.ledger?.cells ?? {}).flatMap((c) => (c.state === 'needs_human' || c.hold ? [c.key] : [])),
  Object.values(j.ledger?.quotaWaits ?? {}).map((w) => [w.account, w.until]),
  Object.values(j.ledger?.cells ?? {}).flatMap((c) => (c.quota ? [[c.key, c.quota.account]] : [])),
  j.ledger ? [j.ledger.launchesThisSession, j.ledger.launchesInWorkspace] : null,
  Math.floor(at / FORESIGHT_MINUTE_MS),
];
