import type { CellLedger } from '../journal/ledger.js';
import type { ExitEvent } from '../journal/journal.js';
import { quotaWords, type QuotaWait } from './gate.js';

// The journal's quota waits (docs/quota.md), folded one exit at a time beside the ledger
// (ledger-fold.ts): per account the latest reset announced, and the cells stopped on it, so
// that a later reset moves every one of them to the same deadline (one countdown).

type Quota = NonNullable<ExitEvent['quota']>;

/** The exit's quota when it is a well-formed wait on a failure, or null (older or odd lines count as before). */
export const quotaOfExit = (e: ExitEvent): Quota | null => {
  const q = e.quota;
  if (!q || typeof q.account !== 'string' || typeof q.until !== 'number' || !Number.isFinite(q.until)) return null;
  if (e.class === 'SUCCESS' || e.class === 'CANCELLED') return null;
  return { account: q.account, label: String(q.label ?? q.account), until: q.until, source: String(q.source ?? '') };
};

export class QuotaFold {
  private readonly waits = new Map<string, QuotaWait>();
  private readonly cells = new Map<string, Map<string, { unit: string; step: string }>>();

  /** A quota exit: the account waits until its latest reset, and so does every cell stopped on it. `cellOf`: the fold's own copy of a cell. */
  exit(e: ExitEvent, q: Quota, cellOf: (unit: string, step: string) => CellLedger): void {
    const had = this.waits.get(q.account);
    if (!had || had.until < q.until) this.waits.set(q.account, { account: q.account, label: q.label, until: q.until, at: e.at, agent: e.agent, source: q.source });
    const wait = this.waits.get(q.account)!;
    const c = cellOf(e.unit, e.step);
    c.agent = e.agent;
    if (c.runId === e.runId) c.runId = null;
    c.quota = { account: q.account, until: wait.until, at: e.at };
    c.quotaStreak++;
    let stopped = this.cells.get(q.account);
    if (!stopped) this.cells.set(q.account, (stopped = new Map()));
    stopped.set(c.key, { unit: e.unit, step: e.step });
    for (const [key, ref] of stopped) {
      const other = key === c.key ? c : cellOf(ref.unit, ref.step);
      // Launched since (a launch clears its mark): no longer waiting on this account.
      if (other.quota?.account !== q.account) {
        stopped.delete(key);
        continue;
      }
      other.state = 'retrying';
      other.quota = { ...other.quota, until: wait.until };
      other.nextRetryAt = wait.until;
      other.reason = quotaWords(wait, e.at);
    }
  }

  /** The accounts still waiting at `now`, by account id. */
  view(now: number): Record<string, QuotaWait> {
    return Object.fromEntries([...this.waits].filter(([, w]) => w.until > now));
  }
}
