import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NewJournalEvent } from '../../src/run/journal/journal.js';

// Journals with a recorded past, written as the supervisor writes them (one JSON line per
// event), with timestamps the test chooses: History and time travel read them back.

export const HOUR = 3_600_000;
export const MIN = 60_000;

export const launchEv = (runId: string, at: number, unit: string, step: string, attempt = 1, agent = 'writer'): NewJournalEvent => ({
  type: 'launch',
  at,
  runId,
  unit,
  step,
  agent,
  attempt,
  argv: [agent, unit],
  cwd: '/w',
  logPath: `.checkroom/runs/${unit}-${step}-${attempt}.log`,
  pid: 1000 + attempt,
  procStart: 1,
  outputPath: null,
});

export const exitEv = (runId: string, at: number, unit: string, step: string, cls: string, durationMs: number, agent = 'writer'): NewJournalEvent =>
  ({
    type: 'exit',
    at,
    runId,
    unit,
    step,
    agent,
    exitCode: cls === 'SUCCESS' ? 0 : 1,
    signal: null,
    class: cls,
    markerFound: cls === 'SUCCESS',
    cmdFp: 'c',
    errFp: 'e',
    keywords: [],
    errorTail: cls === 'SUCCESS' ? [] : [`${cls} tail`],
    error: cls === 'SUCCESS' ? undefined : `${cls}: the agent said no`,
    durationMs,
  }) as NewJournalEvent;

export const factsEv = (runId: string, at: number, unit: string, step: string, costUsd: number): NewJournalEvent => ({
  type: 'agent_facts',
  at,
  runId,
  unit,
  step,
  agent: 'writer',
  sessionId: null,
  costUsd,
  tokensIn: 1000,
  tokensOut: 500,
  cacheRead: 0,
  cacheWrite: 0,
  apiRetries: 0,
  cutMidTool: false,
});

/**
 * A recorded past ending at `now`: a session from 3 h to 2 h back in which ch01 research and
 * draft were done (draft on its second attempt) and ch02 research failed and was escalated;
 * then, after the session ended, a second one (1 h 30 back) in which ch02 research was reset
 * and done. An hour back ch01's research and draft were done and ch02's research reset (not started).
 */
export function recordedPast(now: number): NewJournalEvent[] {
  const t = (minsBack: number) => now - minsBack * MIN;
  return [
    { type: 'session', at: t(180), kind: 'start', pid: 11 },
    launchEv('r1', t(179), 'ch01', 'research'),
    exitEv('r1', t(170), 'ch01', 'research', 'SUCCESS', 9 * MIN),
    factsEv('r1', t(170), 'ch01', 'research', 0.25),
    launchEv('r2', t(169), 'ch01', 'draft'),
    exitEv('r2', t(160), 'ch01', 'draft', 'UNKNOWN', 9 * MIN),
    { type: 'retry_scheduled', at: t(160), unit: 'ch01', step: 'draft', attempt: 2, delayMs: 60_000, reason: 'backoff' },
    launchEv('r3', t(158), 'ch01', 'draft', 2),
    exitEv('r3', t(150), 'ch01', 'draft', 'SUCCESS', 8 * MIN),
    factsEv('r3', t(150), 'ch01', 'draft', 1.5),
    launchEv('r4', t(149), 'ch02', 'research'),
    exitEv('r4', t(140), 'ch02', 'research', 'PERMISSION', 9 * MIN),
    { type: 'escalate', at: t(140), unit: 'ch02', step: 'research', class: 'PERMISSION', reason: 'PERMISSION: the key was refused' },
    { type: 'breaker', at: t(139), agent: 'writer', event: 'hold', summary: 'operator' },
    { type: 'session', at: t(120), kind: 'stop', pid: 11, reason: 'quit' },
    { type: 'session', at: t(90), kind: 'start', pid: 12 },
    { type: 'decision', at: t(89), kind: 'reset_cell', unit: 'ch02', step: 'research' },
    launchEv('r5', t(30), 'ch02', 'research'),
    exitEv('r5', t(20), 'ch02', 'research', 'SUCCESS', 10 * MIN),
    factsEv('r5', t(20), 'ch02', 'research', 0.75),
  ] as NewJournalEvent[];
}

/** Write events as the journal file of `root` (created), one line each. */
export function writeJournal(root: string, events: readonly NewJournalEvent[]): void {
  mkdirSync(join(root, '.checkroom'), { recursive: true });
  writeFileSync(join(root, '.checkroom', 'journal.jsonl'), events.map((e) => JSON.stringify({ ...e, v: 1 })).join('\n') + '\n');
}
