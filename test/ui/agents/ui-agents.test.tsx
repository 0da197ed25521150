import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore, disposeStore } from '../../../src/ui/store/store.js';
import { COLOR_THEME, NO_COLOR_THEME, type Theme } from '../../../src/text/theme.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor } from '../../../src/run/supervisor/supervisor.js';
import { readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { parseCheckpoint } from '../../../src/checkpoint/parse.js';
import { claimsOf } from '../../../src/state/derive.js';
import { ControlRoom } from '../../../components/ControlRoom.js';
import { closeAgentsRooms, mountAgentsRoom } from '../../helpers/agents-room.js';
import { helpRows } from '../../../src/ui/keys/keymap.js';
import { FAST_BACKOFF, tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';

// The control room driving real agents: a real supervisor on a temp workspace whose agent
// is the demo's fake agent (real processes, no mocks). Frames are polled until the text
// appears, with generous timeouts; nothing asserts on wall-clock time.

const tick = (ms = 25) => new Promise((r) => setTimeout(r, ms));

interface WsOpts {
  units?: string[];
  faults?: Record<string, string>;
  speed?: number;
  breaker?: string;
}

function makeWs(o: WsOpts = {}): string {
  return writeFakeAgentWs(tempDir('checkroom-ui-agents-'), {
    units: o.units,
    faults: o.faults,
    speed: o.speed ?? 40,
    concurrency: 2,
    tail: [...FAST_BACKOFF, 'breaker:', ...(o.breaker ?? '  threshold: 50\n  cooldown: 1s').split('\n')],
  });
}

afterEach(closeAgentsRooms);

/** The room over a real supervisor (test/helpers/agents-room.tsx), noting the tallest frame it drew. */
async function mount(root: string, o: { theme?: Theme; ascii?: boolean } = {}) {
  const m = await mountAgentsRoom(root, { theme: o.theme, store: { ascii: o.ascii } });
  let tallest = 0;
  const look = () => {
    const f = m.frame();
    tallest = Math.max(tallest, f.split('\n').length);
    return f;
  };
  const waitFor = (what: string | RegExp | (() => boolean), timeout?: number) => m.waitFor(what, timeout, look);
  return { ...m, frame: look, waitFor, tallest: () => tallest };
}

const journal = async (root: string): Promise<JournalEvent[]> => (await readJournal(root)).events;
const claimOf = async (root: string, key: string) => {
  const cfg = await loadConfig(root);
  return claimsOf(parseCheckpoint(readFileSync(join(root, 'checkpoint.md'), 'utf8'), cfg.pipeline)).get(key);
};
/** The matrix row of a unit (Progress view), e.g. "› ch01 …". */
const rowOf = (frame: string, unit: string) => frame.split('\n').find((l) => new RegExp(`^[ ›]${unit} `).test(l)) ?? '';

describe('launching agents from the control room', () => {
  // Issue 17 item 4: the keys ask the supervisor's one budget decision. A spent workspace
  // launch budget used to be no reason to ask, and launchCell then counted only the session.
  it('past a spent workspace launch budget, enter asks and names it; y goes, journalled; Health shows the workspace count', async () => {
    const root = makeWs({ speed: 40 });
    writeFileSync(join(root, 'checkroom.yaml'), readFileSync(join(root, 'checkroom.yaml'), 'utf8').replace('limits:\n', 'limits:\n  max_launches: { workspace: 1 }\n'));
    const first = await openSupervisor({ root, config: await loadConfig(root) });
    expect((await first.launch('ch01', 'research')).outcome).toBe('done');
    await first.close();
    const m = await mount(root);
    await m.press('3');
    await m.waitFor(/› P3 ch01 draft\s+run/);
    await m.press('\r');
    await m.waitFor('(budget spent)');
    expect(m.frame().replace(/\s+/g, ' ')).toContain('launch budget of this workspace used (1 of 1, limits.max_launches.workspace)');
    await m.press('y');
    await m.waitFor('ch01 draft: done');
    const ev = await journal(root);
    expect(ev.filter((e) => e.type === 'decision' && e.kind === 'over_budget')).toHaveLength(1);
    expect(ev.filter((e) => e.type === 'launch')).toHaveLength(2);
    await m.press('5');
    await m.waitFor('(2 of 1 in the workspace)');
  }, 60_000);

  it('shows the exact command before the first launch, runs it, then ✅ in the matrix and in checkpoint.md', async () => {
    const root = makeWs({ speed: 1 });
    const m = await mount(root);
    await m.press('3');
    await m.waitFor(/› P3 ch01 research\s+run/);
    expect(m.frame()).toMatch(/enter launch/);
    await m.press('\r');
    await m.waitFor('Confirm: Launch ch01 research: the exact command');
    // The exact command: the agent's argv with the placeholders filled in.
    expect(m.frame().replace(/\s+/g, '')).toContain('fake-agent.mjs--unitch01--stepresearch'.replace(/\s+/g, ''));
    expect((await journal(root)).some((e) => e.type === 'decision' && e.kind === 'command_shown')).toBe(false);
    await m.press('y');
    // In flight: listed first in the Plan view with its pid, and ⏳ running in the live state.
    await m.waitFor(/› ⏳ch01 research\s+running\s+running pid \d+/);
    await m.waitFor(() => m.store.getState().ws.cells.find((c) => c.unit === 'ch01' && c.step === 'research')?.status === 'running');
    expect(m.frame()).toContain('── log');
    expect((await journal(root)).filter((e) => e.type === 'decision' && e.kind === 'command_shown')).toHaveLength(1);
    // Done: the marker proves it; ✅ on disk and in the matrix.
    await m.waitFor('ch01 research: done');
    const t0 = Date.now();
    while ((await claimOf(root, 'ch01/research')) !== 'done' && Date.now() - t0 < 20_000) await tick(50);
    expect(await claimOf(root, 'ch01/research')).toBe('done');
    expect(readFileSync(join(root, 'checkpoint.md'), 'utf8')).toMatch(/ch01.*✅/);
    await m.press('1');
    await m.waitFor(() => rowOf(m.frame(), 'ch01').includes('✅'));
    expect(m.store.getState().ws.cells.find((c) => c.unit === 'ch01' && c.step === 'research')?.status).toBe('done');
    // The second launch does not ask again: the journal says the command was shown.
    await m.press('3', 'g');
    await m.waitFor(/› P3 ch01 draft\s+run/);
    await m.press('\r');
    await m.waitFor(/ch01 draft: (attempt 1 started|done)/);
    expect(m.frame()).not.toContain('Confirm:');
    await m.waitFor('ch01 draft: done');
    expect(m.tallest()).toBeLessThanOrEqual(24);
  }, 60_000);

  it('autopilot launches more than one step, and a toggles it off', async () => {
    const root = makeWs({ units: ['ch01', 'ch02'] });
    const m = await mount(root);
    await m.press('3');
    await m.waitFor('autopilot off');
    await m.press('a');
    await m.waitFor('Confirm: Autopilot: the exact command');
    await m.press('y');
    await m.waitFor('autopilot on');
    await m.waitFor(/^auto on · live: /m);
    const launches = async () => (await journal(root)).filter((e) => e.type === 'launch').length;
    const t0 = Date.now();
    while ((await launches()) < 3 && Date.now() - t0 < 30_000) await tick(100);
    expect(await launches()).toBeGreaterThanOrEqual(3);
    const units = new Set((await journal(root)).flatMap((e) => (e.type === 'launch' ? [e.unit] : [])));
    expect(units).toEqual(new Set(['ch01', 'ch02']));
    await m.press('a');
    await m.waitFor(/autopilot off/);
    expect(m.sup.snapshot().autopilot.on).toBe(false);
    expect(m.tallest()).toBeLessThanOrEqual(24);
  }, 60_000);

  it('x cancels the selected run after a confirmation; the cell goes back', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'hang' } });
    const m = await mount(root, { theme: NO_COLOR_THEME });
    await m.press('3', '\r');
    await m.waitFor('Confirm: Launch');
    await m.press('y');
    await m.waitFor(/› ⏳ch01 research\s+running/);
    // The selected run's output under the plan; o makes the pane tall (L is the log pager).
    await m.waitFor('waiting for the model');
    const small = m.frame().split('\n').length;
    await m.press('o');
    await m.waitFor(() => m.store.getState().agents.logOpen);
    expect(m.frame()).toContain('── log ch01 research · attempt 1 · pid');
    expect(m.frame().split('\n').length).toBe(small);
    await m.press('o');
    await m.press('x');
    await m.waitFor('Confirm: Cancel ch01 research');
    expect(m.frame().replace(/\s+/g, ' ')).toContain('is not counted as a failure');
    await m.press('n');
    expect(m.sup.snapshot().runs).toHaveLength(1);
    await m.press('x');
    await m.waitFor('Confirm: Cancel ch01 research');
    await m.press('y');
    await m.waitFor('ch01 research: cancelled by the operator');
    await m.waitFor(() => m.sup.snapshot().runs.length === 0);
    const exit = (await journal(root)).find((e) => e.type === 'exit');
    expect(exit && exit.type === 'exit' && exit.class).toBe('CANCELLED');
    // NO_COLOR: no escape sequences at all.
    expect(m.raw()).not.toMatch(/\u001b\[/);
    expect(m.tallest()).toBeLessThanOrEqual(24);
  }, 60_000);

  it('quitting with a run in flight asks: stay, cancel them, or leave them running', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'hang' } });
    const m = await mount(root);
    await m.press('3', '\r', 'y');
    await m.waitFor(/› ⏳ch01 research\s+running/);
    await m.press('q');
    await m.waitFor('Confirm: Quit with 1 run in flight');
    expect(m.frame()).toContain('l: leave them running and quit');
    await m.press('n');
    expect(m.store.getState().quit).toBe(false);
    await m.press('q', 'l');
    expect(m.store.getState().quit).toBe(true);
    expect(m.store.getState().agents.quitMode).toBe('leave');
  }, 60_000);

  it('Health: a failing agent opens its breaker (countdown, class counts); R resets it after a confirmation', async () => {
    const root = makeWs({ faults: { 'ch01/research': 'permission' }, breaker: '  threshold: 1\n  cooldown: 60s' });
    const m = await mount(root);
    await m.press('3', '\r', 'y');
    // The final failure is surfaced once, with the log path.
    await m.waitFor(/ch01 research: escalated, needs a human \(PERMISSION\)/);
    // …with its log: the pane under the plan keeps the run's last lines and the log path.
    await m.waitFor(/── log ch01 research · ended: escalated/);
    const logRow = m.frame().split('\n').find((l) => /^\s+\.checkroom\/runs\/ch01-research-a1-\S+\.log$/.test(l));
    expect(logRow).toBeDefined();
    expect(readFileSync(join(root, logRow!.trim()), 'utf8')).toContain('EACCES: permission denied');
    // The pane's tail reads the log after the run's end is drawn (under load a frame or more later).
    await m.waitFor('EACCES: permission denied');
    // The plan entry now waits on a human: enter offers to reset the cell and relaunch.
    await m.waitFor(/› P1 ch01 research\s+needs you\s+escalated: PERMISSION/);
    await m.press('\r');
    await m.waitFor('Confirm: Reset ch01 research and relaunch it');
    await m.press('n');
    await m.press('5');
    await m.waitFor(/agent researcher\s+open \d+ s left/);
    const f = m.frame();
    // The escalated cell has no next attempt (issue 18).
    expect(f).toMatch(/ch01 research\s+escalated\s+1 att · PERMISSION 1/);
    expect(f).not.toMatch(/ch01 research.*next attempt/);
    expect(f).toMatch(/trips 1 · 1 failure in a row \(opens at 1\)/);
    expect(f).toContain('launches 1 of');
    expect(f).toContain('consecutive failures 1 of');
    // The selected agent's detail names the failure that opened it.
    await m.press('g');
    expect(m.store.getState().cursors.health).toBe(0);
    // Rows by urgency, not by name (issue 18): the escalated cell, then the open breaker, then the idle agents.
    const rows = f.split('\n').filter((l) => /^[ ›] (agent \S+|ch\d+ \S+) /.test(l)).map((l) => /^(agent \S+|ch\d+ \S+)/.exec(l.slice(2))![1]);
    expect(rows.slice(0, 3)).toEqual(['ch01 research', 'agent researcher', 'agent archivist']);
    await m.press('j');
    await m.waitFor(/› agent researcher/);
    await m.waitFor('opened by: PERMISSION');
    await m.press('R');
    await m.waitFor('Confirm: Reset breaker researcher');
    await m.press('y');
    await m.waitFor(/agent researcher\s+closed/);
    expect((await journal(root)).some((e) => e.type === 'breaker' && e.event === 'reset' && e.agent === 'researcher')).toBe(true);
    // H holds the breaker open (confirm first); H again releases it.
    await m.press('H');
    await m.waitFor(/Confirm: Hold/);
    await m.press('y');
    await m.waitFor(/agent researcher\s+held/);
    await m.press('H');
    await m.waitFor(/Confirm: Release/);
    await m.press('y');
    await m.waitFor(/agent researcher\s+closed/);
    const events = (await journal(root)).filter((e) => e.type === 'breaker' && e.agent === 'researcher').map((e) => (e as { event: string }).event);
    expect(events).toEqual(['reset', 'hold', 'release']);
    // Z on the escalated cell, the first row (Health by urgency): reset its counters (confirm first).
    await m.press('g');
    await m.waitFor(/› ch01 research/);
    // Its detail says the state in words, not the raw needs_human.
    await m.waitFor('ch01 research (researcher): escalated (needs a human)');
    await m.press('Z');
    await m.waitFor('Confirm: Reset the counters of ch01 research');
    await m.press('y');
    await m.waitFor('ch01 research: counters reset');
    expect(m.tallest()).toBeLessThanOrEqual(24);
  }, 60_000);

  it('a second instance is read-only: the header names the driver, launching is refused', async () => {
    const root = makeWs();
    const first = await mount(root);
    const m = await mount(root);
    expect(first.sup.snapshot().role).toBe('driver');
    expect(m.sup.snapshot().role).toBe('readonly');
    await m.waitFor(new RegExp(`read-only: pid ${process.pid}@\\S+ drives`));
    expect(m.frame()).toContain('READ-ONLY');
    await m.press('3');
    await m.waitFor(/› P3 ch01 research/);
    expect(m.frame()).not.toContain('enter launch');
    await m.press('\r');
    await m.waitFor(/read-only mode: "launch" is disabled/);
    await m.press('a');
    await m.waitFor(/read-only mode: "autopilot" is disabled/);
    expect((await journal(root)).filter((e) => e.type === 'launch')).toHaveLength(0);
  }, 60_000);

  it("a read-only observer shows the driver's autopilot, read from the journal (issue 18: it said off while the driver had it on)", async () => {
    const root = makeWs();
    const first = await mount(root);
    const m = await mount(root);
    expect(m.sup.snapshot().role).toBe('readonly');
    await m.waitFor(/auto off · /);
    await first.sup.setAutopilot(true);
    // The observer re-reads the driver's journal every second.
    await m.waitFor(/auto on · /);
    await m.press('5');
    await m.waitFor(/autopilot on/);
    await first.sup.setAutopilot(false);
    await m.waitFor(/auto off · /);
  }, 60_000);

  it('--readonly has no supervisor: the Health view says why, the keys are refused and listed as disabled', async () => {
    const root = makeWs();
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, readonly: true, agentsWhy: 'started with --readonly: nothing is launched and nothing is written' });
    const r = render(<ControlRoom store={store} theme={COLOR_THEME} />);
    try {
      await tick(50);
      r.stdin.write('5');
      await tick(50);
      expect(stripVTControlCharacters(r.lastFrame() ?? '')).toContain('no agent supervisor: started with --readonly');
      r.stdin.write('3');
      await tick(30);
      r.stdin.write('\r');
      await tick(50);
      expect(stripVTControlCharacters(r.lastFrame() ?? '')).toContain('read-only mode: "launch" is disabled');
      const rows = helpRows(true).filter((h) => ['a', 'x', 'R', 'H', 'Z'].includes(h.keys) && /plan|health/.test(h.where));
      expect(rows).toHaveLength(5);
      expect(rows.every((h) => h.disabled)).toBe(true);
      expect(helpRows(false).find((h) => h.keys === 'o')?.description).toMatch(/output pane/);
      expect(helpRows(false).find((h) => h.keys === 'L')?.description).toMatch(/logs, full screen/);
      expect((await readJournal(root)).events).toHaveLength(0);
    } finally {
      r.unmount();
      disposeStore(store);
      await live.close();
    }
  });
});
