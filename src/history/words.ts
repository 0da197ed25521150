import { duration } from '../operator/words.js';
import type { RunRecord } from './run-records.js';
import type { HistoryRow } from './timeline.js';

// A history row in words, the same in the view, `checkroom history` and the post-mortem. Raw
// workspace text stays in (unit, step, paths, errors): each surface sanitizes for its output.

export const money = (n: number): string => (n > 0 && n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`);

const tok = (n: number): string => (n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1_000 ? `${(n / 1_000).toFixed(1)}k` : String(n));

/** `HH:MM:SS` local: the timeline's time column. */
export const clockOf = (at: number): string => {
  const d = new Date(at);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
};

/** What came of a run: its class, `running`, or `reaped`. */
export const runOutcome = (r: RunRecord): string => (r.outcome === 'running' ? 'running' : r.outcome === 'reaped' ? 'reaped' : (r.class ?? '?'));

/** A run's facts after its cell: attempt, agent, outcome, duration, cost, tokens, wait, exit. */
export function runFacts(r: RunRecord): string {
  const parts = [`#${r.attempt}`, r.agent + (r.executor !== 'local' ? `@${r.executor}` : ''), runOutcome(r)];
  if (r.durationMs !== null) parts.push(duration(r.durationMs));
  if (r.queueWaitMs !== null) parts.push(`queued ${duration(r.queueWaitMs)}`);
  if (r.costUsd !== null) parts.push(money(r.costUsd));
  if (r.tokens) parts.push(`${tok(r.tokens.in + r.tokens.out)} tok`);
  if (r.waitMs !== null && r.waitMs > 0) parts.push(`waited ${duration(r.waitMs)}`);
  if (r.outcome === 'exited' && r.class !== 'SUCCESS') parts.push(r.signal ? `signal ${r.signal}` : `exit ${r.exitCode ?? '?'}`);
  return parts.join(' ');
}

/** The row's text after its time and cell. */
export const rowText = (row: HistoryRow): string =>
  row.run ? runFacts(row.run) + (row.run.error && row.run.class !== 'SUCCESS' ? ` — ${row.run.error}` : '') : row.text;

/** The whole row in words (what `/` searches). */
export const rowWords = (row: HistoryRow): string => `${clockOf(row.at)} ${row.kind} ${row.key ?? row.agent ?? ''} ${rowText(row)}`;
