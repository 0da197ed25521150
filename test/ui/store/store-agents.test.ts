import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { appendJournal, readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { parseCheckpoint } from '../../../src/checkpoint/parse.js';
import { claimsOf } from '../../../src/state/derive.js';
import { operatorOf } from '../../../src/ui/store/operator.js';
import { openStore, until } from '../../helpers/store.js';
import { copyDemo, DEMO, fakeAgentWorkspace } from '../../helpers/workspace.js';
import { closeStoresWithAgents, openStoreWithAgents } from '../../helpers/store-agents.js';

// The agents slice (store-agents.ts) through `feed`, without React (issue 9 item 3): a real
// supervisor whose agent is the demo's fake agent (real processes, no mocks). What a run does
// is waited for with bounded polls; the keys themselves need no sleep.

const AGENT = join(DEMO, 'agents', 'fake-agent.mjs');

const makeWs = (o: { units?: string[]; faults?: Record<string, string> } = {}): string => fakeAgentWorkspace('checkroom-store-agents-', o);

afterEach(closeStoresWithAgents);

const openWithAgents = openStoreWithAgents;

const journal = async (root: string): Promise<JournalEvent[]> => (await readJournal(root)).events;
const claimOf = async (root: string, key: string) => claimsOf(parseCheckpoint(readFileSync(join(root, 'checkpoint.md'), 'utf8'), (await loadConfig(root)).pipeline)).get(key);

describe('store: launching from the Plan view', () => {
  it('enter shows the exact command once, y runs it, and the marker makes the cell done', async () => {
    const root = makeWs();
    const r = await openWithAgents(root);
    await r.press('3', 'enter');
    const d = r.s().dialog!;
    expect(d.title).toBe('Launch ch01 research: the exact command');
    expect(d.pending).toEqual({ type: 'agents', action: { kind: 'launch', unit: 'ch01', step: 'research', reset: false, consent: true, redo: false, overBudget: false } });
    expect(d.lines.join(' ')).toContain(`${AGENT} --unit ch01 --step research`);
    await r.press('y');
    expect(r.s().message).toEqual({ text: 'launching ch01 research…', tone: 'info' });
    const events = await untilAsync(async () => {
      const j = await journal(root);
      return j.some((e) => e.type === 'exit') ? j : null;
    });
    expect(events.find((e) => e.type === 'exit')).toMatchObject({ unit: 'ch01', step: 'research', class: 'SUCCESS', markerFound: true });
    expect(events.filter((e) => e.type === 'decision' && e.kind === 'command_shown')).toHaveLength(1);
    // The exit is journalled before the cell is marked: wait for the mark, and for the run to leave.
    await untilAsync(async () => ((await claimOf(root, 'ch01/research')) === 'done' ? true : null));
    await until(() => r.sup.snapshot().runs.length === 0, 'the run to end');
    // The next launch needs no consent: the journal holds it.
    await r.press('r');
    await r.press('3', 'g', 'enter');
    expect(r.s().dialog).toBeNull();
    expect(r.s().message?.text).toBe('launching ch01 draft…');
  }, 60_000);
});

/** Polls an async condition (a journal on disk), bounded. */
async function untilAsync<T>(what: () => Promise<T | null>, timeout = 30_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await what();
    if (v) return v;
    if (Date.now() - t0 > timeout) throw new Error('timed out waiting for the journal');
    await new Promise((res) => setTimeout(res, 25));
  }
}

describe('store: runs in flight', () => {
  it('x asks before cancelling the selected run; n keeps it, y stops it and the exit is CANCELLED', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'hang' } });
    const r = await openWithAgents(root);
    await r.press('3', 'enter', 'y');
    await until(() => r.s().agents.snap?.runs.length === 1 && r.s().agents.snap?.runs[0].pid, 'the run to start');
    await r.press('g', 'x');
    expect(r.s().dialog?.title).toBe('Cancel ch01 research');
    await r.press('n');
    expect(r.sup.snapshot().runs).toHaveLength(1);
    await r.press('x', 'y');
    expect(r.s().message).toEqual({ text: 'cancelling ch01 research…', tone: 'info' });
    const events = await untilAsync(async () => {
      const j = await journal(root);
      return j.some((e) => e.type === 'exit') ? j : null;
    });
    expect(events.find((e) => e.type === 'exit')).toMatchObject({ unit: 'ch01', step: 'research', class: 'CANCELLED' });
    await until(() => r.sup.snapshot().runs.length === 0, 'the run to end');
  }, 60_000);

  it('q with a run in flight asks; l leaves it running and quits', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'hang' } });
    const r = await openWithAgents(root);
    await r.press('3', 'enter', 'y');
    await until(() => r.sup.snapshot().runs.length === 1, 'the run to start');
    await r.press('q');
    expect(r.s().dialog?.pending).toEqual({ type: 'agents', action: { kind: 'quit', runs: 1 } });
    await r.press('n');
    expect(r.s().quit).toBe(false);
    await r.press('q', 'l');
    expect(r.s().quit).toBe(true);
    expect(r.s().agents.quitMode).toBe('leave');
  }, 60_000);

  it('a with the workspace budget spent says paused, as the header does (issue 18: it said "autopilot on: launching")', async () => {
    const root = makeWs({ units: ['ch01', 'ch02'] });
    appendFileSync(join(root, 'checkroom.yaml'), '  max_launches: { session: 200, workspace: 1 }\n');
    await appendJournal(root, { type: 'launch', at: 1, runId: 'r0', unit: 'ch02', step: 'research', agent: 'researcher', attempt: 1, argv: [], cwd: root, logPath: join(root, 'l'), pid: null, procStart: null, outputPath: null });
    await appendJournal(root, { type: 'exit', at: 2, runId: 'r0', unit: 'ch02', step: 'research', agent: 'researcher', exitCode: 0, signal: null, class: 'SUCCESS', markerFound: true, cmdFp: 'c', errFp: 'e', keywords: [], errorTail: [], durationMs: 1 } as never);
    const r = await openWithAgents(root);
    await r.press('3', 'a');
    if (r.s().dialog) await r.press('y');
    await until(() => r.s().message?.text.startsWith('autopilot'), 'a word on autopilot');
    // The header's state: paused (AgentsBadge reads the operator model).
    expect(r.sup.snapshot().autopilot.paused).toBe(true);
    expect(r.s().message?.text).not.toMatch(/^autopilot on/);
    expect(r.s().message?.text).toMatch(/^autopilot paused: /);
  }, 60_000);

  it('a toggles autopilot after showing the command once; a again turns it off', async () => {
    const root = makeWs({ units: ['ch01', 'ch02'] });
    const r = await openWithAgents(root);
    await r.press('3', 'a');
    expect(r.s().dialog?.title).toBe('Autopilot: the exact command, before the first launch');
    await r.press('y');
    expect(r.sup.snapshot().autopilot.on).toBe(true);
    expect(r.s().message?.text).toMatch(/^autopilot on: /);
    await untilAsync(async () => ((await journal(root)).some((e) => e.type === 'launch') ? true : null));
    await r.press('a');
    expect(r.sup.snapshot().autopilot.on).toBe(false);
    expect(r.s().message).toEqual({ text: 'autopilot off: runs in flight go on; nothing new starts', tone: 'ok' });
  }, 60_000);
});

describe('store: breakers and counters in the Health view (agents-planners.ts through feed)', () => {
  it('H holds the selected agent\'s breaker, H again releases it, R resets it; the journal records each', async () => {
    const root = makeWs();
    const r = await openWithAgents(root);
    await r.press('5', 'g');
    const first = operatorOf(r.s()).health[0];
    expect(first.kind).toBe('agent');
    const agent = first.kind === 'agent' ? first.agent : '';
    const stateOf = () => r.s().agents.snap?.ledger.agents[agent]?.view.state;
    await r.press('H');
    expect(r.s().dialog?.title).toBe(`Hold breaker ${agent} open`);
    await r.press('y');
    await until(() => stateOf() === 'held', 'the hold to reach the store');
    expect(r.s().message).toEqual({ text: `breaker ${agent}: held open`, tone: 'ok' });
    await r.press('H');
    expect(r.s().dialog?.title).toBe(`Release breaker ${agent}`);
    await r.press('y');
    await until(() => stateOf() !== 'held', 'the release to reach the store');
    await r.press('R');
    expect(r.s().dialog?.pending).toEqual({ type: 'agents', action: { kind: 'breaker', agent, op: 'reset' } });
    await r.press('y');
    expect(r.s().message).toEqual({ text: `breaker ${agent}: reset (closed)`, tone: 'ok' });
    const said = (await journal(root)).flatMap((e) => (e.type === 'breaker' && e.agent === agent ? [e.event] : []));
    expect(said).toEqual(['hold', 'release', 'reset']);
  }, 60_000);

  it('Z on an agent row, x with nothing running and C without a session say why; nothing is asked', async () => {
    const r = await openWithAgents(makeWs());
    await r.press('5', 'g', 'Z');
    expect(r.s().message).toEqual({ text: 'select a cell (Health lists agents and cells by urgency)', tone: 'warn' });
    await r.press('3', 'x');
    expect(r.s().message).toEqual({ text: 'nothing is running', tone: 'warn' });
    await r.press('g', 'C');
    expect(r.s().message?.text).toMatch(/^ch01 research: nothing to continue from/);
    expect(r.s().dialog).toBeNull();
  });
});

describe('store: without a supervisor', () => {
  it('the run keys say why instead of launching', async () => {
    const r = await openStore(copyDemo(), { agentsWhy: 'no agents section in checkroom.yaml' });
    for (const k of ['a', 'enter', 'x']) {
      await r.press('3', k);
      expect(r.s().message).toEqual({ text: 'no agent supervisor: no agents section in checkroom.yaml', tone: 'warn' });
      expect(r.s().dialog).toBeNull();
    }
    expect(r.s().agents.enabled).toBe(false);
  });
});
