import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planCommand, statusCommand } from '../../src/cli/commands/core-commands.js';
import { readScanJournal } from '../../src/cli/scan-journal.js';
import { makePaint } from '../../src/text/paint.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { openSupervisor } from '../../src/run/supervisor/supervisor.js';
import { runsOf } from '../../src/operator/runs.js';
import type { StatusJson } from '../../src/cli/json.js';
import type { NewJournalEvent } from '../../src/run/journal/journal.js';
import { doneFile, pathOf, PHASE_1_2, summaries, tempDir, writeFiles } from '../helpers/workspace.js';

// Issue 18 items 1-2: a scan (`status`, `status --json` without a room, `plan`) says of a run
// in flight what a running control room says: it reads the journal's runs in flight as a
// read-only observer does (cli/scan-journal.ts), counts them running (or waiting for their
// retry), marks their cells running and takes them out of the next steps. Before, a scan
// counted them as their disk said (the property test's known disagreement).

const AT = Date.UTC(2026, 10, 30, 5, 0, 0);
const o = { paint: makePaint(false), ascii: false, width: 160 };

/** A book: ch01 done through the panel; ch02's draft half-written (a half-product) and its research done. */
function book(): string {
  const root = tempDir('checkroom-scanruns-');
  const files: Record<string, string> = { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries(['ch01']) };
  for (const s of ['research', 'draft', 'r1', 'r2', 'r3', 'review', 'panel']) Object.assign(files, Object.fromEntries([doneFile('ch01', s)]));
  Object.assign(files, Object.fromEntries([doneFile('ch02', 'research')]));
  files[pathOf('ch02', 'draft')] = `# ch02 draft\n\n${'文'.repeat(300)}，然后`;
  writeFiles(root, files);
  return root;
}

const launch = (root: string, runId: string, unit: string, step: string, at: number): NewJournalEvent => ({ type: 'launch', at, runId, unit, step, agent: 'writer', attempt: 1, argv: ['node'], cwd: root, logPath: join(root, '.checkroom', 'runs', `${runId}.log`), pid: 999_999, procStart: 1, outputPath: join(root, pathOf(unit, step)) });

/** The driver's journal: ch02 draft launched (no exit yet: in flight); ch01 final failed once and waits for its retry. */
function journal(root: string): void {
  const events: NewJournalEvent[] = [
    { type: 'session', at: AT, kind: 'start', pid: 999_998 },
    launch(root, 'run-a', 'ch02', 'draft', AT + 1000),
    launch(root, 'run-b', 'ch01', 'final', AT + 2000),
    { type: 'exit', at: AT + 3000, runId: 'run-b', unit: 'ch01', step: 'final', agent: 'writer', exitCode: 1, signal: null, class: 'UNKNOWN', markerFound: false, cmdFp: '', errFp: '', keywords: [], errorTail: [], durationMs: 1000 },
    { type: 'retry_scheduled', at: AT + 3000, unit: 'ch01', step: 'final', attempt: 2, delayMs: 600_000, reason: 'UNKNOWN: retry 2 of 3 in 600 s' },
  ];
  mkdirSync(join(root, '.checkroom', 'runs'), { recursive: true });
  writeFileSync(join(root, '.checkroom', 'journal.jsonl'), events.map((e) => JSON.stringify({ ...e, v: 1 }) + '\n').join(''));
}

const capture = async (f: (out: { write(s: string): void }) => Promise<void>): Promise<string> => {
  let s = '';
  await f({ write: (x) => (s += x) });
  return s;
};

describe('a scan reads the journal\'s runs in flight as a running control room does (issue 18 items 1-2)', () => {
  it('status --json counts the run in flight running and the cell waiting for its retry waiting, and marks both cells running', async () => {
    const root = book();
    journal(root);
    const json = JSON.parse(await capture((out) => statusCommand([root], true, o, out))) as StatusJson;
    expect(json.counts).toMatchObject({ running: 1, waiting: 1, pending: 0 });
    const cell = (u: string, s: string) => json.cells.find((c) => c.unit === u && c.step === s)!;
    expect(cell('ch02', 'draft').status).toBe('running');
    expect(cell('ch01', 'final').status).toBe('running');
    // The same document through the facts cache (the CLI's default path).
    const cached = JSON.parse(await capture((out) => statusCommand([root], true, o, out, { cache: { write: true } }))) as StatusJson;
    expect(cached.counts).toEqual(json.counts);
    // The run ends: the cached answer is not reused (the runs in flight are part of its key).
    writeFileSync(join(root, '.checkroom', 'journal.jsonl'), '');
    const after = JSON.parse(await capture((out) => statusCommand([root], true, o, out, { cache: { write: true } }))) as StatusJson;
    expect(after.counts).toMatchObject({ running: 0, waiting: 0 });
  });

  it('`status` text says what the room\'s header says: 1 running', async () => {
    const root = book();
    journal(root);
    const text = await capture((out) => statusCommand([root], false, o, out));
    expect(text).toMatch(/ · 1 running\b/);
  });

  it('`plan` and `plan --json` leave the cells in flight out of the next steps, as the room\'s Plan does', async () => {
    const root = book();
    const before = JSON.parse(await capture((out) => planCommand([root], true, o, out))) as { unit: string; step: string }[];
    // Without the journal ch02's half-written draft is a next step.
    expect(before.some((n) => n.unit === 'ch02' && n.step === 'draft')).toBe(true);
    journal(root);
    const next = JSON.parse(await capture((out) => planCommand([root], true, o, out))) as { unit: string; step: string }[];
    expect(next.filter((n) => (n.unit === 'ch02' && n.step === 'draft') || (n.unit === 'ch01' && n.step === 'final'))).toEqual([]);
    const text = await capture((out) => planCommand([root], false, o, out));
    expect(text).not.toMatch(/ch02\s+draft/);
  });

  it('the runs are the ones a read-only observer\'s snapshot has (one derivation)', async () => {
    const root = book();
    journal(root);
    const config = await loadConfig(root);
    const sup = await openSupervisor({ root, config, readonly: true, now: () => AT + 4000 });
    try {
      const room = runsOf(sup.snapshot()).map((r) => ({ ...r, reason: r.reason }));
      const scan = (await readScanJournal(root, AT + 4000, config)).runs;
      expect(scan.map((r) => [r.key, r.state])).toEqual([
        ['ch01/final', 'waiting'],
        ['ch02/draft', 'running'],
      ]);
      expect(scan).toEqual(room);
    } finally {
      await sup.close();
    }
  });

  it('without a journal, nothing: no fold, no config read, nothing written', async () => {
    const root = book();
    // A checkroom.yaml that does not parse: reading it would throw.
    writeFileSync(join(root, 'checkroom.yaml'), 'preset: [');
    await expect(readScanJournal(root, AT)).resolves.toMatchObject({ runs: [] });
    expect(existsSync(join(root, '.checkroom'))).toBe(false);
  });
});
