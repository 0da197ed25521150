import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NewJournalEvent } from '../../src/run/journal/journal.js';

// Attempts with real log files and the journal lines that name them (docs/logs.md): what a
// supervisor leaves in `.checkroom/` after a few launches, written directly so a test of the
// pager, `checkroom logs` or the disk budget needs no agent.

export interface FakeAttempt {
  lines: string[];
  /** Absent: the run is still live (no exit event). */
  class?: string;
  error?: string;
  at?: number;
}

export interface WrittenAttempt {
  runId: string;
  logPath: string;
  unit: string;
  step: string;
  attempt: number;
}

const T0 = Date.UTC(2026, 11, 1, 8, 0, 0);

export function writeAttempts(root: string, cells: { unit: string; step: string; agent?: string; attempts: FakeAttempt[] }[]): WrittenAttempt[] {
  mkdirSync(join(root, '.checkroom', 'runs'), { recursive: true });
  const events: NewJournalEvent[] = [];
  const out: WrittenAttempt[] = [];
  let t = T0;
  for (const c of cells) {
    c.attempts.forEach((a, i) => {
      const attempt = i + 1;
      const runId = `${c.unit}-${c.step}-a${attempt}-${(t += 60_000).toString(36)}`;
      const logPath = join(root, '.checkroom', 'runs', `${runId}.log`);
      writeFileSync(logPath, a.lines.map((l) => `${l}\n`).join(''));
      const at = a.at ?? t;
      const agent = c.agent ?? 'writer';
      events.push({ type: 'launch', at, runId, unit: c.unit, step: c.step, agent, attempt, argv: ['node', 'agent.mjs'], cwd: root, logPath, pid: null, procStart: null, outputPath: null });
      if (a.class !== undefined) {
        events.push({
          type: 'exit', at: at + 30_000, runId, unit: c.unit, step: c.step, agent, exitCode: a.class === 'SUCCESS' ? 0 : 1, signal: null, class: a.class as never,
          markerFound: a.class === 'SUCCESS', cmdFp: 'x', errFp: 'y', keywords: [], errorTail: [], error: a.error ?? '', durationMs: 30_000,
        });
      }
      out.push({ runId, logPath, unit: c.unit, step: c.step, attempt });
    });
  }
  appendFileSync(join(root, '.checkroom', 'journal.jsonl'), events.map((e) => JSON.stringify({ ...e, v: 1 }) + '\n').join(''));
  return out;
}
