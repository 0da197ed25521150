import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { operatorOf } from '../../../src/ui/store/operator.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { makePaint } from '../../../src/text/paint.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import { appendJournal, readJournal, type NewJournalEvent } from '../../../src/run/journal/journal.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { accountOf, accountsOf } from '../../../src/run/quota/account.js';
import { resetClock } from '../../../src/run/quota/gate.js';
import { statusCommand, statusJsonText } from '../../../src/cli/commands/core-commands.js';
import { statusJson, toJson, type StatusJson } from '../../../src/cli/json.js';
import { liveStatusText } from '../../../src/socket/status-text.js';
import { renderRoom, unmountAll } from '../../helpers/ink.js';
import { plainSnapshot } from '../../helpers/snapshot.js';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// `status --json` carries the quota waits (docs/status-json.md, docs/quota.md): the account's
// id and label (never the key), the reset, the agents on it and the cells stopped on it; the
// text `status` has one line per waiting account. A scan of the journal, the room's socket and
// the room's Health countdown say the same reset, agents and cells.

afterEach(() => unmountAll());

const SECRET = 'sk-ant-do-not-print-me';
const agent = (name: string, key: string): string[] => [`  ${name}:`, '    adapter: claude-code', '    bin: claude', "    prompt: 'Write {output}'", `    env: { ANTHROPIC_API_KEY: ${key} }`];

/** researcher and writer share one key; reviewer has another. researcher hit the account's limit on ch01 research, the reset 2 h ahead. */
async function waitingWorkspace(now: number, reset: number): Promise<string> {
  const root = tempDir('checkroom-quota-status-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
  const yaml = ['preset: book', 'units: { list: [ch01, ch02] }', 'batches: [{ id: 1, units: [ch01, ch02] }]', 'agents:', ...agent('researcher', SECRET), ...agent('writer', SECRET), ...agent('reviewer', 'another-key'), ''];
  writeFileSync(join(root, 'checkroom.yaml'), yaml.join('\n'));
  const config = await loadConfig(root);
  const a = accountOf(config.agents.researcher!);
  const events: NewJournalEvent[] = [
    { type: 'launch', at: now - 60_000, runId: 'q1', unit: 'ch01', step: 'research', agent: 'researcher', attempt: 1, argv: ['claude'], cwd: root, logPath: join(root, 'q1.log'), pid: null, procStart: null, outputPath: null },
    {
      type: 'exit', at: now - 50_000, runId: 'q1', unit: 'ch01', step: 'research', agent: 'researcher', exitCode: 1, signal: null, class: 'RATE_LIMITED', markerFound: false,
      cmdFp: 'c', errFp: 'e', keywords: [], errorTail: [], durationMs: 10_000, quota: { account: a.id, label: a.label, until: reset, source: 'usage-limit' },
    },
  ];
  for (const e of events) await appendJournal(root, e);
  return root;
}

const capture = async (f: (out: { write(s: string): void }) => Promise<void>): Promise<string> => {
  const parts: string[] = [];
  await f({ write: (s) => parts.push(s) });
  return parts.join('');
};

describe('status --json and status carry the quota waits; the room agrees', () => {
  it('a scan lists the account (label, until, agents, cells), never the key; the text has its line; the socket and Health say the same', async () => {
    const now = Date.now();
    const reset = now + 2 * 3600_000;
    const root = await waitingWorkspace(now, reset);
    const config = await loadConfig(root);
    const o = { paint: makePaint(false), ascii: false, width: 80 };

    const jsonText = await capture((out) => statusCommand([root], true, o, out));
    expect(jsonText).not.toContain(SECRET);
    const scan = JSON.parse(jsonText) as StatusJson;
    const a = accountOf(config.agents.researcher!);
    expect(scan.quota).toEqual([{ account: a.id, label: a.label, until: new Date(reset).toISOString(), in_ms: expect.any(Number), agents: ['researcher', 'writer'], cells: [{ unit: 'ch01', step: 'research' }] }]);
    expect(scan.quota![0]!.in_ms).toBeGreaterThan(3600_000);

    const text = await capture((out) => statusCommand([root], false, o, out));
    expect(text).not.toContain(SECRET);
    const lines = text.split('\n').filter((l) => l.startsWith('quota reset'));
    expect(lines).toHaveLength(1);
    expect(text.replace(/\n {4}/g, ' ')).toMatch(new RegExp(`quota reset \\d h \\d\\d m left \\(${resetClock(reset, now)}\\) · researcher, writer wait \\(1 cell\\) · claude-code key`));
    for (const l of text.split('\n')) expect(l.length).toBeLessThanOrEqual(80);

    // The room on the same journal: its model, its socket's answer and its Health line.
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live });
    const ledger = replayJournal((await readJournal(root)).events, now, { breaker: config.breaker, limits: config.limits });
    store.setState({ agents: { ...initialAgents(), enabled: true, snap: plainSnapshot(ledger), at: now, agentNames: Object.keys(config.agents), accounts: accountsOf(config.agents) } });
    const socketText = liveStatusText({ doc: statusJson, json: toJson, whole: statusJsonText }, () => ledger.costs, () => null, () => operatorOf(store.getState()).foresight);
    const socket = JSON.parse(Buffer.concat(socketText(store.getState().ws)).toString('utf8')) as StatusJson;
    const clockless = (j: StatusJson) => j.quota?.map(({ in_ms: _, ...q }) => q);
    expect(clockless(socket)).toEqual(clockless(scan));

    const m = operatorOf(store.getState());
    expect(m.quota.map((q) => ({ until: new Date(q.deadline).toISOString(), label: q.label, agents: q.agents, cells: q.cells }))).toEqual(
      scan.quota!.map((q) => ({ until: q.until, label: q.label, agents: q.agents, cells: q.cells.length })),
    );
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 30, 160);
    await press('5');
    const health = frame().split('\n').find((l) => /quota reset .* left/.test(l)) ?? frame();
    const q = scan.quota![0]!;
    expect(health).toContain(`(${resetClock(Date.parse(q.until), now)}) · ${q.agents.join(', ')} wait (${q.cells.length} cell)`);
    expect(health).toContain(q.label);
    expect(frame()).not.toContain(SECRET);
  });
});
