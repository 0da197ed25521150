import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { appendJournal, readJournal } from '../../../src/run/journal/journal.js';
import { accountOf } from '../../../src/run/quota/account.js';
import { closeStores, openStore, until } from '../../helpers/store.js';
import { fakeAgentWorkspace } from '../../helpers/workspace.js';

// Enter in the Plan view while the agent's account waits for its quota's reset (docs/quota.md):
// the control room says which reset it waits for and launches nothing; no override key (the
// API refuses before the reset anyway, and the wait ends by itself).

const sups: Supervisor[] = [];
afterEach(async () => {
  await closeStores();
  for (const s of sups.splice(0)) await s.close({ cancel: true });
});

describe('store: Enter while the account waits', () => {
  it('says "waiting for the account\'s reset at HH:MM" and launches nothing', async () => {
    const root = fakeAgentWorkspace('checkroom-store-quota-');
    const config = await loadConfig(root);
    const account = accountOf(config.agents.researcher!);
    const until_ = Date.now() + 600_000;
    await appendJournal(root, { type: 'launch', at: Date.now() - 1000, runId: 'earlier', unit: 'ch01', step: 'research', agent: 'researcher', attempt: 1, argv: ['node'], cwd: root, logPath: `${root}/x.log`, pid: null, procStart: null, outputPath: null });
    await appendJournal(root, {
      type: 'exit', at: Date.now() - 900, runId: 'earlier', unit: 'ch01', step: 'research', agent: 'researcher', exitCode: 1, signal: null, class: 'RATE_LIMITED',
      markerFound: false, cmdFp: 'c', errFp: 'e', keywords: [], errorTail: [], durationMs: 100, quota: { account: account.id, label: account.label, until: until_, source: 'retry-after' },
    });
    // The command was shown before (the journal holds the consent): Enter launches at once.
    await appendJournal(root, { type: 'decision', at: Date.now() - 800, kind: 'command_shown', note: 'x' });
    const sup = await openSupervisor({ root, config });
    sups.push(sup);
    const r = await openStore(root, { agents: { sup, config, flushMs: 10 } });
    await r.press('3', 'enter');
    if (r.s().dialog) await r.press('y');
    await until(() => /waiting for the account's reset/.test(r.s().message?.text ?? ''), 'the refusal');
    expect(r.s().message!.text).toMatch(/ch01 research is not launched: waiting for the account's reset at (?:[A-Z][a-z]{2} \d{1,2} )?\d\d:\d\d(:\d\d)? \(command login\); launch it after the reset/);
    expect((await readJournal(root)).events.filter((e) => e.type === 'launch')).toHaveLength(1);
  });
});
