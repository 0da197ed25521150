import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO, tempDir, writeFakeAgentWs } from '../../../helpers/workspace.js';
import { until } from '../../../helpers/until.js';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent } from '../../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../../../src/run/supervisor/supervisor.js';

// The OOM ladder on real processes (issue 22 item 5). Locally the memory is a data limit
// (prlimit --data): the agent's allocation past it is refused ("Array buffer allocation
// failed"), not a kernel OOM kill — no cgroup is set up here — and the OOM_KILLED class's
// sign reads that. The next attempt gets the next step, journalled with the launch; at the
// top the cell escalates and says why. A new supervisor (a restart) climbs on from the journal.

const HOG = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'hog-agent.mjs');

const workspace = (maxLaunches?: number, o: { units?: string[]; roles?: string[] } = {}): string => {
  const root = tempDir('checkroom-oom-');
  writeFakeAgentWs(root, {
    units: o.units ?? ['ch01', 'ch02'],
    ...(o.roles ? { roles: o.roles } : {}),
    tail: [
      'steps:',
      '  - id: research',
      '    resources: { memory_ladder: [128M, 256M, 512M] }',
      'limits:',
      '  backoff_base: 20ms',
      '  backoff_max: 100ms',
      ...(maxLaunches ? [`  max_launches: ${maxLaunches}`] : []),
    ],
  });
  // Every agent is the hog: ch01 needs 320 MiB (fits at the third step), ch02 900 MiB (never).
  const yaml = join(root, 'checkroom.yaml');
  writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(/command: \[.*\]/, `command: [node, ${JSON.stringify(HOG)}, '{output}', '{marker}', '{unit}', ch01=320, ch02=900]`));
  return root;
};

const open: Supervisor[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});

const sup = async (root: string, events: SupervisorEvent[] = []): Promise<Supervisor> => {
  const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5, onEvent: (e) => events.push(e) });
  open.push(s);
  return s;
};

const launches = (ev: JournalEvent[], unit: string) => ev.flatMap((e) => (e.type === 'launch' && e.unit === unit ? [e.resources?.memory] : []));
const exits = (ev: JournalEvent[], unit: string) => ev.flatMap((e) => (e.type === 'exit' && e.unit === unit ? [e.class] : []));

describe('the OOM ladder, local agents under a data limit (prlimit --data, not a kernel OOM kill)', () => {
  it('an attempt refused memory is retried one step up, journalled with the launch, until it fits', async () => {
    const root = workspace();
    const events: SupervisorEvent[] = [];
    const r = await (await sup(root, events)).launch('ch01', 'research');
    const ev = (await readJournal(root)).events;
    expect(launches(ev, 'ch01')).toEqual(['128M', '256M', '512M']);
    expect(exits(ev, 'ch01')).toEqual(['OOM_KILLED', 'OOM_KILLED', 'SUCCESS']);
    expect(r.outcome).toBe('done');
    const retries = events.filter((e) => e.type === 'retry').map((e) => e.message);
    expect(retries.join('\n')).toContain('OOM_KILLED at 128M: the next attempt gets 256M (memory_ladder step 2 of 3)');
    expect(retries.join('\n')).toContain('OOM_KILLED at 256M: the next attempt gets 512M (memory_ladder step 3 of 3)');
    const journalled = ev.flatMap((e) => (e.type === 'retry_scheduled' ? [e.reason] : []));
    expect(journalled).toEqual([expect.stringContaining('gets 256M'), expect.stringContaining('gets 512M')]);
  });

  it('an OOM kill at the top escalates with that reason', async () => {
    const root = workspace();
    const r = await (await sup(root)).launch('ch02', 'research');
    const ev = (await readJournal(root)).events;
    expect(launches(ev, 'ch02')).toEqual(['128M', '256M', '512M']);
    expect(r.outcome).toBe('escalated');
    const esc = ev.filter((e): e is Extract<JournalEvent, { type: 'escalate' }> => e.type === 'escalate');
    expect(esc.map((e) => e.class)).toEqual(['OOM_KILLED']);
    expect(esc[0]!.reason).toContain('OOM_KILLED at 512M, the top of memory_ladder (128M → 256M → 512M)');
  });

  it('checkroom run --next --auto (the built CLI) climbs the same ladder and says so before the first launch', () => {
    const root = workspace();
    const r = spawnSync(process.execPath, [join(REPO, 'dist/bundle/checkroom.js'), 'run', root, '--next', '--auto', '--max', '1', '--yes'], { encoding: 'utf8', env: { ...process.env, CHECKROOM_SOCKET: 'off' } });
    expect(r.stdout).toContain('with memory 128M (memory_ladder step 1 of 3) (local: memory as a data limit)');
    const ev = readFileSync(join(root, '.checkroom', 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as JournalEvent);
    expect(launches(ev, 'ch01')).toEqual(['128M', '256M', '512M']);
    expect(exits(ev, 'ch01')).toEqual(['OOM_KILLED', 'OOM_KILLED', 'SUCCESS']);
  }, 60_000);

  it('autopilot climbs the same ladder', async () => {
    // Only the researcher has an agent: autopilot runs ch01 research and then has nothing to launch.
    const root = workspace(undefined, { units: ['ch01'], roles: [] });
    const s = await sup(root);
    await s.setAutopilot(true);
    await until('ch01 research proven', async () => exits((await readJournal(root)).events, 'ch01').includes('SUCCESS'), 60_000);
    expect(launches((await readJournal(root)).events, 'ch01')).toEqual(['128M', '256M', '512M']);
  }, 90_000);

  it('survives a restart: the next session climbs on from the journal, not from the bottom', async () => {
    const root = workspace(1);
    const first = await (await sup(root)).launch('ch01', 'research');
    expect(first.outcome).not.toBe('done');
    await open.pop()!.close({ cancel: true });
    expect(launches((await readJournal(root)).events, 'ch01')).toEqual(['128M']);
    // A second session: the ledger folded from the journal says one OOM kill so far, and the
    // launch preview says so before anything runs.
    const second = await sup(root);
    expect(second.describeCommand('ch01', 'research').resources).toBe('memory 256M (memory_ladder step 2 of 3) (local: memory as a data limit)');
    await second.launch('ch01', 'research');
    const ev = (await readJournal(root)).events;
    expect(launches(ev, 'ch01')).toEqual(['128M', '256M']);
    expect(exits(ev, 'ch01')).toEqual(['OOM_KILLED', 'OOM_KILLED']);
  });
});
