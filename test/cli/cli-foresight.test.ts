import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendJournal, type NewJournalEvent } from '../../src/run/journal/journal.js';
import type { StatusJson } from '../../src/cli/json.js';
import { copyDemo, REPO } from '../helpers/workspace.js';
import { FORESIGHT_MINUTE_MS, foresightKey } from '../../src/cli/scan-foresight.js';
import { readScanJournal } from '../../src/cli/scan-journal.js';

// `status --json` of the built binary gains `eta` and `forecast`, and `status` text one line
// (docs/foresight.md, docs/status-json.md). They move as steps finish: an exit appended to
// the journal changes them, the status cache (keyed on the forecast's inputs) included.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);
const run = (args: string[]) => spawnSync('node', [CLI, ...args], { env: { ...process.env, NO_COLOR: '1', CHECKROOM_SOCKET: 'off', COLUMNS: '80' }, input: '', encoding: 'utf8', maxBuffer: 64 << 20 });
const statusJson = (root: string): StatusJson => {
  const r = run(['status', '--json', root]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusJson;
};

let seq = 0;
function success(step: string, agent: string, end: number, usd: number): NewJournalEvent[] {
  const runId = `cli-${++seq}`;
  return [
    { type: 'launch', at: end - 60_000, runId, unit: 'ch00', step, agent, attempt: 1, argv: ['x'], cwd: '/x', logPath: '/x/l', pid: null, procStart: null, outputPath: null },
    { type: 'exit', at: end, runId, unit: 'ch00', step, agent, exitCode: 0, signal: null, class: 'SUCCESS', markerFound: true, cmdFp: 'c', errFp: '', keywords: [], errorTail: [], durationMs: 60_000 },
    { type: 'agent_facts', at: end, runId, unit: 'ch00', step, agent, sessionId: null, costUsd: usd, tokensIn: 1, tokensOut: 1, cacheRead: 0, cacheWrite: 0, apiRetries: 0, cutMidTool: false },
  ];
}

const STEPS: [string, string][] = [
  ['research', 'researcher'], ['draft', 'writer'], ['r1', 'reviewer'], ['r2', 'reviewer'], ['r3', 'reviewer'],
  ['review', 'editor'], ['panel', 'panel'], ['memory', 'archivist'], ['final', 'editor'], ['html', 'publisher'],
];

describe('status --json: eta and forecast, on the built binary', () => {
  it('says what is thin, then moves when one more exit lands; the cache does not keep the old answer', async () => {
    const root = copyDemo();
    // A workspace budget of $40 at $1 an attempt: it runs out before the plan is done.
    const yaml = join(root, 'checkroom.yaml');
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('limits:\n', 'limits:\n  max_cost_usd: { workspace: 40 }\n'));
    const now = Date.now();
    for (const [step, agent] of STEPS) for (const i of [1, 2, 3].slice(0, step === 'html' ? 2 : 3)) for (const e of success(step, agent, now - i * 300_000, 1)) await appendJournal(root, e);

    const before = statusJson(root);
    expect(statusJson(root).eta?.batch).toEqual(before.eta?.batch); // a second read, through the cache
    expect(before.eta?.batch).toMatchObject({ id: 1, eta: null, in_ms: null, thin: [{ step: 'html', samples: 2, more: 1 }], unknown: 'after 1 more html step' });
    expect(before.forecast?.durations.steps.find((s) => s.step === 'draft')).toEqual({ step: 'draft', count: 3, median_ms: 60_000, p90_ms: 60_000 });
    // Local runs: no cluster queue, so no queue wait per agent.
    expect(before.forecast?.durations.queue_wait).toEqual([]);
    expect(before.forecast?.done_per_hour.at(-1)).toBe(29);
    expect(before.forecast?.cost_to_complete_usd).toBeGreaterThan(0);
    expect(before.forecast?.runs_out).toMatchObject({ budget: 'limits.max_cost_usd.workspace', what: 'workspace budget' });
    expect(before.forecast?.text).toMatch(/^to finish ~\$\d+\.\d\d · at this rate the workspace budget runs out at ch\d+ \w+$/);

    // Two minutes back: a scan's forecast is made at the minute (cli/scan-foresight.ts).
    for (const e of success('html', 'publisher', Date.now() - 120_000, 1)) await appendJournal(root, e);
    const after = statusJson(root);
    expect(after.eta?.batch?.eta).not.toBeNull();
    expect(after.eta?.batch?.in_ms).toBeGreaterThan(0);
    expect(after.eta?.batch?.unknown).toBeNull();
    expect(after.eta?.text).toMatch(/^ETA batch 1 in \d+m/);
    expect(after.forecast?.done_per_hour.at(-1)).toBe(30);

    // The status cache's key moves with the durations and with the minute, not within it.
    const j = await readScanJournal(root, Date.now());
    const t0 = Math.floor(Date.now() / FORESIGHT_MINUTE_MS) * FORESIGHT_MINUTE_MS;
    expect(JSON.stringify(foresightKey(j, t0 + 1000))).toBe(JSON.stringify(foresightKey(j, t0 + 59_000)));
    expect(JSON.stringify(foresightKey(j, t0 + 61_000))).not.toBe(JSON.stringify(foresightKey(j, t0)));

    const text = run(['status', root]);
    expect(text.status, text.stderr).toBe(0);
    // Wrapped at the terminal's width, not cut: read as one line.
    const flat = text.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain(after.eta!.text.slice(0, 20));
    expect(flat).toContain('at this rate the workspace budget runs out at');
  });

  it('a workspace with no journal: eta says how much data it needs, forecast has no cost', () => {
    const j = statusJson(copyDemo());
    expect(j.eta?.pipeline?.eta).toBeNull();
    expect(j.eta?.pipeline?.unknown).toMatch(/^after (3 more \w+ steps|\d+ cells? that needs? you)$/);
    expect(j.forecast).toMatchObject({ cost_to_complete_usd: null, runs_out: null, text: null });
  });
});
