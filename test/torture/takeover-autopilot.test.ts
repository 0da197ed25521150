import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_SUPERVISOR, killChildren, quietAgentScript, startChild, supervisorScript } from '../helpers/child-supervisor.js';
import { until } from '../helpers/until.js';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../helpers/workspace.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { readJournal } from '../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../src/run/supervisor/supervisor.js';

// Issue 17 item 3: when a driver goes and an observer takes over, the new driver starts with
// autopilot as the driver had it. A real driver process (the built supervisor) turns autopilot
// on and is killed with kill -9 mid-run; the observer (this process) takes the stale lock over
// at its next refresh and drives on with autopilot on. Before, it said "autopilot is off here
// until turned on (a)" and the pipeline stopped with its driver.

// Writes its output slowly, prints one line (its keeper holds the pipe after the kill).
const AGENT = quietAgentScript(6, 400);

const DRIVER = supervisorScript(`s.subscribe((e) => { if (e.type === 'launch') process.stdout.write('LAUNCHED\\n'); });
await s.setAutopilot(true);
setInterval(() => {}, 1000);
`);

let sup: Supervisor | null = null;
afterEach(async () => {
  await sup?.close({ cancel: true });
  sup = null;
  killChildren();
});

const makeWs = (): string => {
  const root = tempDir('checkroom-takeover-pilot-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'agent.mjs': AGENT, 'driver.mjs': DRIVER });
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      'units: { list: [ch01, ch02] }',
      'agents:',
      '  researcher:',
      `    command: [node, ${JSON.stringify(join(root, 'agent.mjs'))}, '{output}', '{marker}']`,
      '    idle_timeout: 60s',
      '    grace: 300ms',
      '    concurrency: 1',
      '',
    ].join('\n'),
  );
  return root;
};

describe('torture: a take-over keeps the driver autopilot (issue 17 item 3)', () => {
  it('the driver had autopilot on and is killed with kill -9: the observer that takes over drives on with autopilot on', { timeout: 120_000 }, async () => {
    expect(existsSync(DIST_SUPERVISOR), 'run `npm run build` first').toBe(true);
    const root = makeWs();
    const { child: driver, text: said } = startChild(join(root, 'driver.mjs'), [root]);
    await until(() => `the driver to launch (${said()})`, () => said().includes('LAUNCHED'));

    const events: SupervisorEvent[] = [];
    sup = await openSupervisor({ root, config: await loadConfig(root), onEvent: (e) => events.push(e) });
    expect(sup.snapshot().role).toBe('readonly');
    // The observer shows the driver's autopilot, from its journal (issue 18 item 2: it said off).
    expect(sup.snapshot().autopilot.on).toBe(true);

    driver.kill('SIGKILL');
    await new Promise((r) => driver.once('exit', r));
    await sup.refresh();
    expect(sup.snapshot().role).toBe('driver');
    expect(sup.snapshot().autopilot.on).toBe(true);
    const notice = events.filter((e) => e.type === 'notice').map((e) => e.message).join('\n');
    expect(notice).toMatch(/took over .*autopilot stays on, as the driver had it/s);
    const pilot = (await readJournal(root)).events.filter((e) => e.type === 'autopilot');
    expect(pilot.at(-1)).toMatchObject({ on: true, reason: 'kept on at the take-over: the driver that went had it on' });
    // It drives on: the adopted run ends by its marker, and autopilot launches the next cell itself.
    await until('autopilot to launch ch02 research', () => events.some((e) => e.type === 'launch' && e.unit === 'ch02' && e.step === 'research'));
  });
});
