import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO, PHASE_1_2, REPO, summaries, tempDir, writeFiles } from '../helpers/workspace.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { readJournal, type LaunchEvent } from '../../src/run/journal/journal.js';
import { isSameProcessAlive } from '../../src/run/process/proc.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../src/run/supervisor/supervisor.js';

// Issue 17 item 6: `kill -9` of checkroom used to kill the agent it was running — its stdout
// and stderr were pipes to checkroom, so its next write died of EPIPE — and the restart then
// counted the death as an UNKNOWN failure. Now the run's keeper holds the pipes: the agent
// (the fake agent's `chatty` fault: a line every 50 ms for 6 s, then its file and marker)
// keeps running after the built `checkroom run` is killed, the next start adopts it, and the
// cell ends done at attempt 1 with no UNKNOWN in the journal.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);
const AGENT = join(DEMO, 'agents', 'fake-agent.mjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (ok: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> => {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
};

const makeWs = (): string => {
  const root = tempDir('checkroom-keeper-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'faults.json': JSON.stringify({ 'ch01/research': 'chatty', '*/*': 'ok' }) });
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      'units: { list: [ch01, ch02] }',
      'agents:',
      '  researcher: &a',
      `    command: [node, ${JSON.stringify(AGENT)}, --unit, '{unit}', --step, '{step}', --output, '{output}', --marker, '{marker}', --attempt, '{attempt}', --workspace, '{workspace}', --faults, ${JSON.stringify(join(root, 'faults.json'))}]`,
      "    env: { CHECKROOM_FAKE_SPEED: '20', CHECKROOM_FAKE_CHATTY_MS: '6000' }",
      '    idle_timeout: 60s',
      '    grace: 300ms',
      '  writer: *a',
      '',
    ].join('\n'),
  );
  return root;
};

const launchOf = async (root: string): Promise<LaunchEvent | undefined> =>
  (await readJournal(root)).events.find((e): e is LaunchEvent => e.type === 'launch' && e.unit === 'ch01' && e.step === 'research');

describe('torture: kill -9 of checkroom mid-run (issue 17 item 6)', () => {
  const pids: { pid: number; start: number | null }[] = [];
  let sup: Supervisor | null = null;
  afterAll(async () => {
    await sup?.close({ cancel: true });
    for (const p of pids) if (isSameProcessAlive(p.pid, p.start)) process.kill(-p.pid, 'SIGKILL');
  });

  it('the agent keeps writing, finishes with its marker; the next start adopts it: done at attempt 1, no UNKNOWN', { timeout: 120_000 }, async () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    const root = makeWs();
    const room = spawn(process.execPath, [CLI, 'run', root, 'ch01', 'research', '--yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    room.stdout.on('data', (d) => (out += d));
    room.stderr.on('data', (d) => (out += d));
    await until(async () => {
      const l = await launchOf(root);
      return !!l && existsSync(l.logPath) && /thinking 10\b/.test(readFileSync(l.logPath, 'utf8'));
    }, `the agent mid-run (checkroom said: ${out})`);
    const launch = (await launchOf(root))!;
    pids.push({ pid: launch.pid!, start: launch.procStart });
    expect(isSameProcessAlive(launch.pid!, launch.procStart)).toBe(true);
    // The keeper is journaled with the launch: an adopter waits for it before the log's last read.
    expect(isSameProcessAlive(launch.keeper!.pid, launch.keeper!.procStart)).toBe(true);

    room.kill('SIGKILL');
    await new Promise((r) => room.once('exit', r));
    // Long enough for a dozen more writes: with its stdout a pipe to the dead checkroom, it died of EPIPE on the first.
    await sleep(1500);
    expect(isSameProcessAlive(launch.pid!, launch.procStart), 'the agent outlived its checkroom').toBe(true);
    const file = join(root, 'research/ch01-research.md');
    expect(existsSync(file) ? readFileSync(file, 'utf8') : '').not.toContain('RESEARCH_COMPLETE');

    const events: SupervisorEvent[] = [];
    const config = await loadConfig(root);
    sup = await openSupervisor({ root, config, onEvent: (e) => events.push(e) });
    expect(sup.snapshot().runs).toMatchObject([{ runId: launch.runId, origin: 'adopted', attempt: 1 }]);
    await until(() => events.some((e) => e.type === 'done' || e.type === 'failed'), 'the adopted run to end');
    expect(events.find((e) => e.type === 'failed')).toBeUndefined();
    // The agent's last line, written just before it exited, reached the adopted run's pane.
    expect(events.some((e) => e.type === 'output' && /done: /.test(e.line))).toBe(true);
    expect(readFileSync(join(root, 'research/ch01-research.md'), 'utf8').trimEnd().split('\n').pop()).toBe('<!-- RESEARCH_COMPLETE -->');

    const j = (await readJournal(root)).events;
    expect(j.filter((e) => e.type === 'exit' && e.class === 'UNKNOWN')).toEqual([]);
    expect(j.filter((e) => e.type === 'reaped')).toEqual([]);
    expect(j.filter((e) => e.type === 'launch')).toHaveLength(1);
    expect(j.filter((e) => e.type === 'exit')).toMatchObject([{ runId: launch.runId, class: 'SUCCESS' }]);
    const cell = sup.snapshot().ledger.cells['ch01/research']!;
    expect(cell.state).toBe('done');
    expect(cell.attempts).toMatchObject([{ attempt: 1, class: 'SUCCESS' }]);
    // What the agent said after its checkroom was gone reached the log through its keeper.
    const log = readFileSync(launch.logPath, 'utf8');
    const after = log.split('checkroom left the run running')[1] ?? '';
    expect(after).toMatch(/thinking \d+/);
    expect(after).toMatch(/done: /);
  });

  it('SIGHUP to checkroom run (on_hangup default): the run is left to its keeper, journaled with the stop, said after the fact (issue 17 item 3)', { timeout: 120_000 }, async () => {
    const root = makeWs();
    const room = spawn(process.execPath, [CLI, 'run', root, 'ch01', 'research', '--yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    room.stdout.on('data', (d) => (out += d));
    room.stderr.on('data', (d) => (out += d));
    await until(async () => {
      const l = await launchOf(root);
      return !!l && existsSync(l.logPath) && /thinking 5\b/.test(readFileSync(l.logPath, 'utf8'));
    }, `the agent mid-run (checkroom said: ${out})`);
    const launch = (await launchOf(root))!;
    pids.push({ pid: launch.pid!, start: launch.procStart });
    room.kill('SIGHUP');
    const code = await new Promise((r) => room.once('exit', (c) => r(c)));
    expect(code).toBe(129);
    expect(out).toMatch(/interrupted \(SIGHUP\): left 1 run running; the next checkroom on this workspace adopts it/);
    expect(isSameProcessAlive(launch.pid!, launch.procStart)).toBe(true);
    const j = (await readJournal(root)).events;
    expect(j.filter((e) => e.type === 'exit')).toEqual([]);
    expect(j.filter((e) => e.type === 'session' && e.kind === 'stop').at(-1)).toMatchObject({ reason: 'SIGHUP', left: [{ runId: launch.runId, unit: 'ch01', step: 'research' }] });
  });
});
