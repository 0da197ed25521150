import { afterEach, describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore } from '../../../src/ui/store/store.js';
import { operatorOf } from '../../../src/ui/store/operator.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { makePaint } from '../../../src/text/paint.js';
import { initialAgents } from '../../../src/ui/agents/types.js';
import { appendJournal, readJournal, type NewJournalEvent } from '../../../src/run/journal/journal.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { bulkRecordOf } from '../../../src/bulk/apply.js';
import { statusCommand, statusJsonText } from '../../../src/cli/commands/core-commands.js';
import { statusJson, toJson, type StatusJson } from '../../../src/cli/json.js';
import { liveStatusText } from '../../../src/socket/status-text.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { planOf } from '../../../src/operator/plan.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { plainSnapshot } from '../../helpers/snapshot.js';
import { copyDemo } from '../../helpers/workspace.js';
import { launchEv } from '../../helpers/history-journal.js';

// One truth on every screen (src/operator/model.ts): a redrive's queue and skips, as the
// journal holds them, are said alike by the header (80x24, NO_COLOR and --ascii), `status`
// text, `status --json` and the room's socket, all from the operator model's one derivation
// (src/operator/queues.ts). When the queue drains and the skip is undone, every one of them
// stops saying it.

afterEach(() => unmountAll());

const NAME = 'rate-limit-0200';

const capture = async (f: (out: { write(s: string): void }) => Promise<void>): Promise<string> => {
  const parts: string[] = [];
  await f({ write: (s) => parts.push(s) });
  return parts.join('');
};

/** The demo with a redrive in its journal: three cells queued for relaunch, two skipped, under one name. */
async function redrivenDemo() {
  const root = copyDemo();
  const ws = await loadWorkspace(root);
  // Cells the Plan lists: its rows say the redrive in place of their reasons.
  const open = planOf(ws.next).flatMap((n) => (n.unit !== null && n.step !== null ? [{ unit: n.unit, step: n.step }] : [])).slice(0, 5);
  expect(open).toHaveLength(5);
  const now = Date.now();
  const relaunch = bulkRecordOf({ action: 'relaunch', name: NAME, filter: 'class=RATE_LIMITED', cells: open.slice(0, 3) }, now - 60_000);
  const skip = bulkRecordOf({ action: 'skip', name: NAME, filter: 'class=RATE_LIMITED', cells: open.slice(3) }, now - 50_000);
  for (const e of [relaunch, skip]) await appendJournal(root, e);
  return { root, now, queued: open.slice(0, 3), skip };
}

/** Every surface's reading of the same workspace: the scan's JSON and text, the room's model, socket and header frames. */
async function surfaces(root: string, now: number) {
  const config = await loadConfig(root);
  const o = { paint: makePaint(false), ascii: false, width: 80 };
  const scan = JSON.parse(await capture((out) => statusCommand([root], true, o, out))) as StatusJson;
  const text = await capture((out) => statusCommand([root], false, o, out));
  const ledger = replayJournal((await readJournal(root)).events, now, { breaker: config.breaker, limits: config.limits });
  const frames: string[] = [];
  let socket: StatusJson | null = null;
  let model = null as ReturnType<typeof operatorOf> | null;
  let wide = '';
  let plan = '';
  for (const ascii of [false, true]) {
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, ascii });
    store.setState({ agents: { ...initialAgents(), enabled: true, snap: plainSnapshot(ledger), at: now, agentNames: Object.keys(config.agents) } });
    model = operatorOf(store.getState());
    const socketText = liveStatusText({ doc: statusJson, json: toJson, whole: statusJsonText }, () => ledger.costs, () => null, () => null, () => model!.pause, () => operatorOf(store.getState()).queues);
    socket = JSON.parse(Buffer.concat(socketText(store.getState().ws)).toString('utf8')) as StatusJson;
    const { frame, size, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
    await tick();
    frames.push(frame());
    if (ascii) continue;
    size(24, 140);
    await tick();
    wide = frame();
    await press('3');
    plan = frame();
  }
  return { scan, text, socket: socket!, model: model!, frames, wide, plan };
}

describe('a redrive in the journal: the header, status, status --json and the socket say the same queue', () => {
  it('3 queued · 2 skipped everywhere; drained and undone, nowhere', async () => {
    const { root, now, queued, skip } = await redrivenDemo();
    const s = await surfaces(root, now);
    const words = `redrive ${NAME}: 3 queued · 2 skipped`;

    // The model, then every surface reading it.
    expect(s.model.queues.words).toBe(words);
    expect(s.scan.queues).toMatchObject({ words, queued: 3, skipped: 2, held: 0, redrives: [{ name: NAME, actions: ['relaunch', 'skip'], queued: 3, skipped: 2, held: 0 }] });
    expect(s.scan.queues!.redrives[0]!.cells.queued).toEqual(queued);
    expect(s.socket.queues).toEqual(s.scan.queues);
    expect(s.text.split('\n')).toContain(words);
    expect(s.text.replace(/\n {4,}/g, ' ')).toContain(`undo: checkroom redrive --undo ${NAME} --yes`);
    for (const l of s.text.split('\n')) expect(stringWidth(l)).toBeLessThanOrEqual(80);
    for (const f of s.frames) {
      const header = f.split('\n')[0]!;
      expect(stringWidth(header)).toBeLessThanOrEqual(80);
      // The counts always; the name when the line has room for it.
      expect(header).toMatch(new RegExp(`redrive( ${NAME})?: 3 queued · 2 skipped`));
    }
    expect(s.wide.split('\n')[0]).toContain(` · ${words}`);
    // Plan: the summary counts them, each row says it in place of its reason.
    expect(s.plan).toContain('· redrive: 3 queued · 2 skipped ·');
    expect(s.plan.split('\n').filter((l) => l.includes(`queued by redrive ${NAME}: launched as slots free`))).toHaveLength(3);
    expect(s.plan.split('\n').filter((l) => l.includes(`skipped by ${NAME}: autopilot and run --next leave it alone`))).toHaveLength(2);

    // The launcher takes the three queued cells and the skip is undone: nothing waits any more.
    const drain: NewJournalEvent[] = [...queued.map((c, i) => launchEv(`r${i}`, now - 40_000 + i, c.unit, c.step)), { type: 'bulk_undo', at: now - 30_000, id: skip.id, name: NAME }];
    for (const e of drain) await appendJournal(root, e);
    const after = await surfaces(root, now);
    expect(after.model.queues.words).toBeNull();
    expect(after.scan.queues).toBeNull();
    expect(after.socket.queues).toBeNull();
    expect(after.text).not.toContain('redrive');
    for (const f of [...after.frames, after.wide]) expect(f.split('\n')[0]).not.toContain('redrive');
    expect(after.plan).not.toContain('redrive');
  });

  it('at 80 columns the name gives way before the counts: a long name leaves the counts whole', async () => {
    const { root, now } = await redrivenDemo();
    // A name from the journal is workspace text: a terminal escape in it is drawn escaped, and JSON gives it back whole.
    const long = bulkRecordOf({ action: 'hold', name: 'a-very-long-incident-name-from-the-night-shift\u001b]0;pwned\u0007', filter: 'marked', cells: [{ unit: 'ch01', step: 'draft' }] }, now - 10_000);
    await appendJournal(root, long);
    const s = await surfaces(root, now);
    expect(s.scan.queues!.words).toBe(`redrive ${long.name}: 1 held · redrive ${NAME}: 3 queued · 2 skipped`);
    expect(s.text).not.toMatch(/[\u0007\u001b]/);
    expect(s.text).toContain('night-shift\\e]0;pwned\\a: 1 held');
    for (const f of s.frames) {
      const header = f.split('\n')[0]!;
      expect(stringWidth(header)).toBeLessThanOrEqual(80);
      expect(header).toContain('redrive: 3 queued · 2 skipped · 1 held');
    }
  });
});
