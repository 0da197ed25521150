import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeStores, openStore, until } from '../../helpers/store.js';
import { copyDemo } from '../../helpers/workspace.js';
import { MIN, exitEv, launchEv, recordedPast, writeJournal } from '../../helpers/history-journal.js';
import { historyRows, historyRowAt } from '../../../src/ui/history/list.js';
import { asShown, travelCommand, travelTo } from '../../../src/ui/history/time-travel.js';
import { initialAgents, type AgentsUi } from '../../../src/ui/agents/types.js';
import { operatorOf } from '../../../src/ui/store/operator.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { SupervisorSnapshot } from '../../../src/run/supervisor/supervisor.js';
import { awayMessage } from '../../../src/ui/history/feed.js';
import { initialHistory } from '../../../src/ui/history/types.js';
import { postMortemKey } from '../../../src/ui/history/keys.js';
import { historyOf } from '../../../src/history/timeline.js';
import { postMortemLines } from '../../../src/history/post-mortem.js';
import { historyJson } from '../../../src/history/json.js';
import { readJournal } from '../../../src/run/journal/journal.js';

// History in the store (docs/history.md): the feed's fold, the list, time travel's state and
// its refusals, the post-mortem; on a copy of the demo with a recorded past.

afterEach(async () => {
  await closeStores();
});

async function room() {
  const root = copyDemo();
  const now = Date.now();
  writeJournal(root, recordedPast(now));
  const r = await openStore(root, { history: { intervalMs: 20 } });
  await until(() => r.s().history.fold, 'the first read of the journal');
  return { ...r, now };
}

describe('history in the store', () => {
  it('the feed folds the journal once, then only the lines appended', async () => {
    const r = await room();
    const fold = r.s().history.fold!;
    expect(fold.count).toBe(20);
    appendFileSync(join(r.root, '.checkroom', 'journal.jsonl'), JSON.stringify({ ...launchEv('r9', r.now, 'ch03', 'research'), v: 1 }) + '\n');
    await until(() => r.s().history.fold!.count === 21, 'the appended line');
    // The same fold, grown: the 20 lines read before were not parsed again.
    expect(r.s().history.fold).toBe(fold);
    expect(historyRows(r.s().history, '').rows[0]).toBe(11);
  });

  it('the list is newest first and kept while neither the journal nor the filter changed', async () => {
    const r = await room();
    const a = historyRows(r.s().history, '');
    expect(historyRows(r.s().history, '')).toBe(a);
    expect(historyRowAt(r.s().history, '', 0)!.key).toBe('ch02/research');
    expect(historyRows(r.s().history, 'hold').rows).toHaveLength(1);
    expect(historyRows(initialHistory(), '').rows).toEqual([]);
  });

  it('enter goes to the row’s moment; the views read the past, actions are refused; esc comes back', async () => {
    const r = await room();
    await r.press('6', 'j', 'enter');
    const past = r.s().past!;
    // The second row, newest first: the operator's reset of ch02 research, 89 minutes back.
    expect(past.at).toBe(r.now - 89 * MIN);
    expect(past.ws.cells.find((c) => c.unit === 'ch02' && c.step === 'research')!.status).toBe('not_started');
    expect(asShown(r.s()).ws).toBe(past.ws);
    expect(r.s().ws.cells.find((c) => c.unit === 'ch02' && c.step === 'research')!.status).toBe('done');
    await r.press('2', 'b');
    expect(r.s().message?.text).toMatch(/^"back up" is off while looking at the past \(\d\d:\d\d:\d\d\); esc returns to now$/);
    expect(r.s().dialog).toBeNull();
    await r.press('esc');
    expect(r.s().past).toBeNull();
    expect(asShown(r.s())).toBe(r.s());
  });

  it(':at takes a moment, and says what to type when it cannot read one', async () => {
    const r = await room();
    expect(travelCommand(r.s(), 'at 1h', r.now)!.past!.at).toBe(r.now - 60 * MIN);
    expect(travelCommand(r.s(), 'at noon', r.now)!.message!.text).toMatch(/^:at "noon" is not a moment: give a duration back/);
    expect(travelCommand(r.s(), 'plan', r.now)).toBeNull();
  });

  it('P opens the post-mortem of the selected row’s cell, and of the Progress cell', async () => {
    const r = await room();
    await r.press('6', 'P');
    expect(r.s().postMortem).toBe('ch02/research');
    await r.press('esc', '1', 'P');
    expect(r.s().view).toBe('history');
    expect(r.s().postMortem).toBe('ch01/research');
    const said: unknown[] = [];
    postMortemKey({ set: (x) => said.push(x) }, { ...r.s(), view: 'history', cursors: { ...r.s().cursors, history: 3 } });
    expect(said).toEqual([{ message: { text: 'this row is of no cell: P on a run, an escalation or a decision', tone: 'warn' } }]);
  });

  it('the digest on start names what changed since the last session ended', async () => {
    const r = await room();
    const m = awayMessage(r.s(), r.s().history.events)!;
    expect(m.text).toMatch(/^while you were away: since .*: 1 launch, 1 done, 0 failed, 0 escalated, \$0\.75 spent · first: .* · 6: History$/);
    expect(awayMessage(r.s(), [])).toBeNull();
  });
});

describe('Health in the past', () => {
  it('the supervisor as it was then: the escalation standing then, none now; the model’s clock at the moment', async () => {
    const r = await room();
    const cfg = { breaker: { threshold: 9, cooldownMs: 1_000, maxCooldownMs: 8_000 }, limits: { maxLaunches: 99, maxConsecutiveFailures: 99 } };
    const events = r.s().history.events;
    const agents: AgentsUi = {
      ...initialAgents(),
      enabled: true,
      at: r.now,
      agentNames: ['writer'],
      snap: {
        role: 'driver',
        holder: null,
        readonlyReason: null,
        ledger: replayJournal(events, r.now, cfg),
        runs: [],
        waiting: [],
        autopilot: { on: false, paused: false, reason: 'off' },
        launchesThisSession: 0,
        limits: { maxLaunches: 99, maxConsecutiveFailures: 99, consecutiveFailures: 0, breakerThreshold: 9 },
        warnings: [],
        notices: [],
      } satisfies SupervisorSnapshot,
    };
    r.store.setState({ agents, history: { ...r.s().history, ledger: cfg } });
    expect(operatorOf(r.s()).escalations).toEqual([]);
    r.store.setState(travelTo(r.s(), r.now - 130 * MIN));
    const then = operatorOf(asShown(r.s()));
    expect(then.at).toBe(r.now - 130 * MIN);
    expect(then.escalations.map((e) => `${e.key} ${e.class}`)).toEqual(['ch02/research PERMISSION']);
    expect(then.cells.get('ch01/draft')!.attempts).toBe(2);
    // Now is untouched: the store's own agents still say what the journal says today.
    expect(operatorOf(r.s()).escalations).toEqual([]);
  });
});

describe('post-mortem and history JSON', () => {
  it('every attempt with class, duration, cost and log, and what was done between', async () => {
    const root = copyDemo();
    const now = Date.now();
    writeJournal(root, [...recordedPast(now), launchEv('r6', now, 'ch01', 'draft', 3), exitEv('r6', now + 1, 'ch01', 'draft', 'CANCELLED', 0)]);
    const h = historyOf((await readJournal(root)).events);
    const lines = postMortemLines(h, 'ch01/draft');
    expect(lines[0]).toBe('ch01/draft: 3 attempts · 17 m 00 s in all · $1.50');
    expect(lines.filter((l) => l.includes(' attempt #'))).toHaveLength(3);
    expect(lines).toContain('         log: .checkroom/runs/ch01-draft-3.log');
    expect(postMortemLines(h, 'ch09/final')).toEqual(['ch09/final: 0 attempts', '  the journal records nothing of this cell (never launched by checkroom)']);
    const doc = historyJson(h.rows, [1], { since: null }, []);
    expect(doc).toMatchObject({
      version: 1,
      since: null,
      cell: null,
      total: h.rows.length,
      rows: [
        {
          kind: 'run',
          cell: 'ch01/research',
          run: { attempt: 1, class: 'SUCCESS', durationMs: 9 * MIN, costUsd: 0.25, tokensIn: 1000, tokensOut: 500, outcome: 'exited' },
        },
      ],
    });
  });
});
