import type { HistoryFilter } from './filter.js';
import type { HistoryRow } from './timeline.js';
import { rowText } from './words.js';

// `checkroom history --json` (docs/history.md, JSON): versioned like status --json; fields are
// only ever added. Times are ISO 8601 (UTC); raw workspace text is escaped by escapeJsonText.

export const HISTORY_JSON_VERSION = 1;

const iso = (at: number | null): string | null => (at === null ? null : new Date(at).toISOString());

export function historyJson(rows: readonly HistoryRow[], shown: readonly number[], f: HistoryFilter, warnings: readonly string[]) {
  return {
    version: HISTORY_JSON_VERSION,
    since: f.since == null ? null : iso(f.since),
    cell: f.cell ?? null,
    total: rows.length,
    warnings,
    rows: shown.map((i) => {
      const r = rows[i];
      const run = r.run;
      return {
        at: iso(r.at),
        kind: r.kind,
        cell: r.key,
        agent: r.agent,
        text: rowText(r),
        ...(run
          ? {
              run: {
                runId: run.runId,
                attempt: run.attempt,
                executor: run.executor,
                outcome: run.outcome,
                class: run.class,
                launchedAt: iso(run.launchedAt),
                endedAt: iso(run.endedAt),
                durationMs: run.durationMs,
                queueWaitMs: run.queueWaitMs,
                waitMs: run.waitMs,
                exitCode: run.exitCode,
                signal: run.signal,
                error: run.error,
                costUsd: run.costUsd,
                tokensIn: run.tokens?.in ?? null,
                tokensOut: run.tokens?.out ?? null,
                logPath: run.logPath,
              },
            }
          : {}),
      };
    }),
  };
}
