import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeAgentWorkspace, REPO } from '../../helpers/workspace.js';
import { appendJournal, readJournal } from '../../../src/run/journal/journal.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';

// Issue 17: a half-open breaker admits exactly one probe, whoever asks. It let several
// through: two cells of the same agent 17 ms apart under autopilot, 4 at once from a storm of
// launches, because the ledger learns of the probe only from its launch event, after the
// backup, the checkpoint write and the spawn. Everything is fired together here — launch
// requests (the keys', the socket's), autopilot, and `checkroom run` in another process —
// and the journal's launches are counted.

const BIN = join(REPO, 'dist/bundle/checkroom.js');
const runCli = (args: string[]): Promise<{ status: number | null; stdout: string }> =>
  new Promise((resolve) => {
    const p = spawn('node', [BIN, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    p.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    p.on('close', (status) => resolve({ status, stdout }));
  });

const UNITS = ['ch01', 'ch02', 'ch03', 'ch04', 'ch05'];

/** Every research cell hangs (the probe stays in flight); researcher's breaker tripped a minute ago, cooldown 1 s: half-open now. */
async function halfOpen(): Promise<string> {
  const root = fakeAgentWorkspace('checkroom-probe-', { units: UNITS, faults: Object.fromEntries(UNITS.map((u) => [`${u}/research`, 'hang'])) });
  appendFileSync(join(root, 'checkroom.yaml'), 'breaker: { threshold: 1, cooldown: 1s }\n');
  const t = Date.now() - 60_000;
  await appendJournal(root, { type: 'session', at: t, kind: 'start', pid: 1 });
  await appendJournal(root, { type: 'breaker', at: t, agent: 'researcher', event: 'failure', summary: 'UNKNOWN: boom' });
  await appendJournal(root, { type: 'session', at: t + 1, kind: 'stop', pid: 1 });
  return root;
}

const open: Supervisor[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});

const launchEvents = async (root: string) => (await readJournal(root)).events.filter((e) => e.type === 'launch');

describe('a half-open breaker admits exactly one probe', () => {
  it('launch requests, autopilot and a concurrent checkroom run, all together: 1 launch', async () => {
    const root = await halfOpen();
    const config = await loadConfig(root);
    // Concurrency high enough that only the breaker can hold the others back.
    config.agents.researcher!.concurrency = 8;
    const s = await openSupervisor({ root, config });
    open.push(s);
    expect(s.snapshot().ledger.agents.researcher?.view.state).toBe('half_open');
    const other = runCli(['run', root, '--yes', 'ch05', 'research']);
    const asks = UNITS.slice(0, 4).map((u) => s.launch(u, 'research', { reason: 'test' }).then(() => 'ended', (e: Error) => e.message));
    const pilot = s.setAutopilot(true);
    // The probe's launch event is journalled once it has spawned.
    await pilot;
    const cli = await other;
    for (;;) {
      if ((await launchEvents(root)).length > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await s.tick();
    await s.tick();
    const launched = await launchEvents(root);
    expect(launched).toHaveLength(1);
    // The other process could not launch: this one drives the workspace.
    expect(cli.status).toBe(1);
    expect(cli.stdout).toContain('read-only');
    // The requests that lost the race were told why.
    const said = await Promise.all(asks.filter((_, i) => `${UNITS[i]}/research` !== `${launched[0]!.unit}/${launched[0]!.step}`));
    expect(said).toHaveLength(3);
    for (const m of said) expect(m).toContain('half-open: its one probe is in flight');
  }, 60_000);

  it('cells waiting to retry behind an open breaker: at each half-open, one probe, the next only after its exit', async () => {
    const root = fakeAgentWorkspace('checkroom-probe-', { units: ['ch01', 'ch02'], faults: { 'ch01/research': 'same_error', 'ch02/research': 'same_error' } });
    appendFileSync(join(root, 'checkroom.yaml'), 'breaker: { threshold: 1, cooldown: 300ms, max_cooldown: 1s }\n');
    const config = await loadConfig(root);
    config.agents.researcher!.concurrency = 4;
    const s = await openSupervisor({ root, config });
    open.push(s);
    // Closed: both first attempts go; their failures trip the breaker and both retries wait.
    await Promise.all([s.launch('ch01', 'research'), s.launch('ch02', 'research')]);
    const ev = (await readJournal(root)).events;
    const retries = ev.filter((e) => e.type === 'launch' && e.attempt === 2);
    expect(retries).toHaveLength(2);
    const [first, second] = retries as Extract<(typeof ev)[number], { type: 'launch' }>[];
    const firstExit = ev.find((e) => e.type === 'exit' && e.runId === first!.runId)!;
    // The second retry went only after the first probe's verdict was journalled.
    expect(ev.indexOf(second!)).toBeGreaterThan(ev.indexOf(firstExit));
  }, 60_000);
});
