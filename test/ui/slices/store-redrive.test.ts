import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { closeStores, openStore, until } from '../../helpers/store.js';
import { tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';
import { exitEv, HOUR, launchEv, MIN, writeJournal } from '../../helpers/history-journal.js';
import type { NewJournalEvent } from '../../../src/run/journal/journal.js';

// `:redrive` through the store's feed (docs/redrive.md): the preview dialog read from the disk,
// y records one named action, `:redrive undo NAME` asks and reverts it, a bad filter is a
// message that says what to write.

const sups: Supervisor[] = [];
afterEach(async () => {
  await closeStores();
  for (const s of sups.splice(0)) await s.close({ cancel: true });
});

const NOW = Date.now();
const failed = (id: string, unit: string, cls: string): NewJournalEvent[] => [launchEv(id, NOW - HOUR - MIN, unit, 'draft'), exitEv(id, NOW - HOUR, unit, 'draft', cls, MIN)];

async function room() {
  const root = writeFakeAgentWs(tempDir('checkroom-store-redrive-'), { units: ['ch01', 'ch02', 'ch03'] });
  writeJournal(root, [...failed('a', 'ch01', 'RATE_LIMITED'), ...failed('b', 'ch02', 'INFRA'), ...failed('c', 'ch03', 'RATE_LIMITED')]);
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config });
  sups.push(sup);
  return { root, sup, r: await openStore(root, { agents: { sup, config, flushMs: 10 } }) };
}

describe('store: :redrive', () => {
  it('previews in a dialog, y records one named action; :redrive undo reverts it as one more', async () => {
    const { root, sup, r } = await room();
    await r.press(':', 'redrive class=RATE_LIMITED since=2h action=hold name=night-hold', 'enter');
    const d = await until(() => r.s().dialog, 'the preview dialog');
    expect(d.title).toBe('Redrive night-hold: hold 2 cells');
    expect(d.lines[0]).toBe('night-hold: hold (nothing starts them until released) 2 cells');
    expect(d.lines).toContain('filter: class=RATE_LIMITED since=2h');
    expect(d.lines.filter((l) => /^ {2}ch0\d\/draft/.test(l)).map((l) => l.trim().split(' ')[0])).toEqual(['ch01/draft', 'ch03/draft']);
    expect(d.lines.at(-1)).toBe('One journal record; :redrive undo night-hold reverts it whole.');
    await r.press('y');
    await until(() => /night-hold: hold 2 cells/.test(r.s().message?.text ?? ''), 'the action said');
    expect(sup.snapshot().ledger.cells['ch01/draft'].hold?.why).toBe('held by night-hold');
    await r.press(':', 'redrive undo night-hold', 'enter');
    const u = await until(() => r.s().dialog, 'the undo dialog');
    expect(u.title).toBe('Undo night-hold');
    expect(u.lines[1]).toBe('2 cells released: ch01/draft ch03/draft');
    await r.press('y');
    await until(() => /undid night-hold: 2 cells released/.test(r.s().message?.text ?? ''), 'the undo said');
    const events = (await readJournal(root)).events;
    expect(events.filter((e) => e.type === 'bulk_action' || e.type === 'bulk_undo').map((e) => e.type)).toEqual(['bulk_action', 'bulk_undo']);
    expect(sup.snapshot().ledger.cells['ch01/draft'].hold).toBeNull();
  });

  it('n cancels with nothing written; a bad term says what to write; nothing to act on is said', async () => {
    const { root, r } = await room();
    await r.press(':', 'redrive class=RATE_LIMITED since=2h action=skip', 'enter');
    await until(() => r.s().dialog, 'the preview dialog');
    await r.press('n');
    expect(r.s().dialog).toBeNull();
    await r.press(':', 'redrive klass=RATE_LIMITED', 'enter');
    await until(() => /not a filter term/.test(r.s().message?.text ?? ''), 'the error');
    expect(r.s().message!.text).toContain('"klass=RATE_LIMITED" is not a filter term: write key=value with key one of status, class');
    expect(r.s().message!.tone).toBe('fail');
    await r.press(':', 'redrive class=CONTEXT_EXHAUSTED', 'enter');
    await until(() => /no cell to relaunch/.test(r.s().message?.text ?? ''), 'nothing to do');
    expect((await readJournal(root)).events.some((e) => e.type === 'bulk_action')).toBe(false);
  });
});
