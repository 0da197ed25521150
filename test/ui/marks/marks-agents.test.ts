import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../../src/run/journal/journal.js';
import { until } from '../../helpers/store.js';
import { fakeAgentWorkspace } from '../../helpers/workspace.js';
import { closeStoresWithAgents, openStoreWithAgents } from '../../helpers/store-agents.js';

// enter and x on marked Plan rows, Z on marked Health cells (issue 21 item 3), through the
// store's keys with a real supervisor whose agent is the demo's fake agent (real processes):
// one preview each, every marked row launched, cancelled or reset as its single key would,
// the rows that cannot be refused in the preview and named again in the result.

afterEach(closeStoresWithAgents);

const openWithAgents = openStoreWithAgents;

const decisions = async (root: string, kind: string): Promise<string[]> =>
  (await readJournal(root)).events.flatMap((e) => (e.type === 'decision' && e.kind === kind ? [`${e.unit} ${e.step}`] : []));

/** The cells of the journal's events of `type`, sorted, once there are `n` of them (bounded poll). */
async function journalled(root: string, type: string, n: number): Promise<string[]> {
  for (let i = 0; ; i++) {
    const cells = (await readJournal(root)).events.flatMap((e) => (e.type === type && 'unit' in e ? [`${e.unit} ${e.step}`] : [])).sort();
    if (cells.length >= n || i > 400) return cells;
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe('marked rows with a supervisor', () => {
  it('enter on two marked steps: one preview, both launched; x on the marked runs and a row not running: one preview, both cancelled, the other refused', async () => {
    const root = fakeAgentWorkspace('checkroom-marks-agents-', { units: ['ch01', 'ch02', 'ch03'], faults: { 'ch01/research': 'hang', 'ch02/research': 'hang' } });
    const r = await openWithAgents(root);
    await r.press('3', ' ', ' ', 'enter');
    const d = r.s().dialog!;
    expect(d.title).toBe('Launch 2 marked steps');
    expect(d.lines.slice(0, 2)).toEqual(['ch01 research: launched', 'ch02 research: launched']);
    // The first launch from this config shows the exact command, once for the set.
    expect(d.lines.join('\n')).toContain('First launch from this checkroom.yaml');
    expect(d.pending).toMatchObject({ type: 'agents', action: { kind: 'launches', launches: [{ unit: 'ch01', step: 'research', reset: false }, { unit: 'ch02', step: 'research', reset: false }], refused: [] } });
    await r.press('y');
    expect(r.s().marks.plan).toEqual([]);
    await until(() => r.sup.snapshot().runs.length === 2, 'both runs');
    // Each journalled as one launch is (the agent's own events then take the status line).
    expect(await journalled(root, 'launch', 2)).toEqual(['ch01 research', 'ch02 research']);
    await until(() => r.s().agents.snap?.runs.length === 2, 'the flush');
    // The runs are listed first; V marks them and the next step.
    await r.press('V', 'x');
    const c = r.s().dialog!;
    expect(c.title).toBe('Cancel 2 marked runs');
    expect(c.lines).toContain('refused: ch03 research: not running');
    await r.press('y');
    expect(r.s().message?.text).toBe('cancelling ch01 research, ch02 research; refused ch03 research (not running)');
    await until(() => r.sup.snapshot().runs.length === 0, 'both cancelled');
  }, 60_000);

  it('Z on marked Health rows: the cells are reset in one preview, an agent row is refused with why', async () => {
    const root = fakeAgentWorkspace('checkroom-marks-reset-', { units: ['ch01', 'ch02'], faults: { 'ch01/research': 'permission', 'ch02/research': 'permission' } });
    const r = await openWithAgents(root);
    await r.press('3', 'V', 'enter', 'y');
    await until(() => ['ch01/research', 'ch02/research'].every((k) => r.sup.snapshot().ledger.cells[k]?.state === 'needs_human'), 'both escalated');
    await until(() => r.s().agents.snap?.ledger.cells['ch02/research']?.state === 'needs_human', 'the flush');
    await r.press('5', 'V', 'Z');
    const d = r.s().dialog!;
    expect(d.title).toBe('Reset the counters of 2 marked cells');
    expect(d.lines.filter((l) => l.startsWith('refused: agent '))).not.toHaveLength(0);
    await r.press('y');
    await until(() => ['ch01/research', 'ch02/research'].every((k) => r.sup.snapshot().ledger.cells[k]?.state !== 'needs_human'), 'both reset');
    expect((await decisions(root, 'reset_cell')).sort()).toEqual(['ch01 research', 'ch02 research']);
    // Health lists by urgency; the agents, refused for one reason, are named together.
    await until(() => /^counters reset for ch0[12] research, ch0[12] research; refused agent researcher, agent \w+, .*\(an agent, not a cell \(R resets its breaker\)\)$/.test(r.s().message?.text ?? ''), 'the result line');
  }, 60_000);
});
