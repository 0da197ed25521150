import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorkspace, type LiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../../src/ui/store/store.js';
import { COLOR_THEME, NO_COLOR_THEME } from '../../../src/text/theme.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';
import { setOutputCharset } from '../../../src/text/charset.js';
import { renderRoom, tick, unmountAll, withoutReverse } from '../../helpers/ink.js';

// The "needs you" banner (docs/notify.md, Banner) over a real supervisor: the fake agent is
// denied permission, the cell escalates, the header says so until `A`; the acknowledgement is
// journalled, so a restarted room keeps it; a new escalation brings the banner back.

const makeWs = (): string =>
  writeFakeAgentWs(tempDir('checkroom-needs-you-'), {
    units: ['ch01', 'ch02'],
    faults: { 'ch01/research': 'permission', 'ch02/research': 'permission' },
    speed: 40,
    grace: null,
    roles: [],
    tail: [],
  });

const rooms: { sup: Supervisor; store: AppStore; live: LiveWorkspace }[] = [];
afterEach(async () => {
  setOutputCharset('unicode');
  await unmountAll();
  for (const m of rooms.splice(0)) {
    disposeStore(m.store);
    await m.sup.close({ cancel: true });
  }
});

const open = async (root: string, o: { ascii?: boolean; theme?: typeof COLOR_THEME } = {}) => {
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config });
  const live = await createLiveWorkspace(root, { watch: false });
  const store = createAppStore({ live, ascii: o.ascii, agents: { sup, config, flushMs: 10 } });
  rooms.push({ sup, store, live });
  const room = await renderRoom(store, live, o.theme ?? COLOR_THEME);
  return { sup, ...room };
};

const until = async (what: () => boolean, ms = 15_000): Promise<void> => {
  for (let t = 0; !what() && t < ms; t += 25) await tick();
};

const headerLine = (frame: string): string => frame.split('\n')[2] ?? '';

describe('the "needs you" banner', () => {
  it('shows an escalation until A, survives a restart acknowledged, and comes back with the next escalation', async () => {
    const root = makeWs();
    const a = await open(root);
    expect(headerLine(a.frame())).not.toContain('needs you');
    expect((await a.sup.launch('ch01', 'research')).outcome).toBe('escalated');
    await until(() => headerLine(a.frame()).includes('1 needs you'));
    expect(headerLine(a.frame())).toMatch(/^✋ 1 needs you \(ch01\/research\) · A ack · /);
    // At 80 columns the banner leads its line, whole.
    expect(a.frame().split('\n').every((l) => l.length <= 80)).toBe(true);
    await a.press('A');
    await until(() => !headerLine(a.frame()).includes('needs you') && a.frame().includes('acknowledged'));
    expect(headerLine(a.frame())).not.toContain('needs you');
    expect(a.frame()).toContain('acknowledged: the banner comes back with the next escalation');
    const acks = (await readJournal(root)).events.filter((e) => e.type === 'decision' && e.kind === 'ack_alarms');
    expect(acks).toHaveLength(1);
    await unmountAll();
    for (const m of rooms.splice(0)) {
      disposeStore(m.store);
      await m.live.close();
      await m.sup.close();
    }
    // A restarted room: the acknowledgement is the journal's. Under --ascii (symbols) and NO_COLOR.
    setOutputCharset('symbols');
    const b = await open(root, { ascii: true, theme: NO_COLOR_THEME });
    await tick(100);
    expect(headerLine(b.frame())).not.toContain('needs you');
    expect((await b.sup.launch('ch02', 'research')).outcome).toBe('escalated');
    await until(() => headerLine(b.frame()).includes('needs you'));
    expect(headerLine(b.frame())).toMatch(/^! +1 needs you \(ch02\/research\) - A ack - /);
    expect(withoutReverse(b.raw())).not.toMatch(/\x1b/);
  });
});
