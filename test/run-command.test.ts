import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO, PHASE_1_2, summaries, tempDir, writeFiles } from './helpers/workspace.js';
import { parseCli, UsageError } from '../src/cli/args.js';
import { runCommand } from '../src/cli/run-command.js';
import { readJournal } from '../src/run/journal.js';
import { acquireDriverLock } from '../src/run/lock.js';

// `checkroom run` through runCommand, on real processes and a real temp workspace.

const AGENT = join(DEMO, 'agents', 'fake-agent.mjs');
const o = { paint: (_t: string, s: string) => s, ascii: true, width: 100 };

const makeWs = (faults: Record<string, string> = {}, agents = ['researcher', 'writer', 'reviewer', 'editor', 'panel', 'archivist']): string => {
  const root = tempDir('checkroom-runcmd-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'faults.json': JSON.stringify({ ...faults, '*/*': 'ok' }) });
  const [first, ...rest] = agents;
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      'units: { list: [ch01, ch02] }',
      'batches: [{ id: 1, units: [ch01, ch02] }]',
      'agents:',
      `  ${first}: &a`,
      `    command: [node, ${JSON.stringify(AGENT)}, --unit, '{unit}', --step, '{step}', --output, '{output}', --marker, '{marker}', --attempt, '{attempt}', --workspace, '{workspace}', --faults, ${JSON.stringify(join(root, 'faults.json'))}]`,
      "    env: { CHECKROOM_FAKE_SPEED: '40' }",
      '    idle_timeout: 10s',
      ...rest.map((a) => `  ${a}: *a`),
      'limits: { backoff_base: 20ms, backoff_max: 50ms }',
      'breaker: { threshold: 50 }',
      '',
    ].join('\n'),
  );
  return root;
};

const run = async (argv: string[]): Promise<{ code: number; text: string }> => {
  let text = '';
  const code = await runCommand(parseCli(['run', ...argv]), o, { write: (s) => void (text += s) });
  return { code, text };
};

describe('checkroom run <unit> <step>', () => {
  it('exits 0 on success, prints the exact command once per config version', async () => {
    const root = makeWs({ 'ch01/research': 'rate_limit_twice' });
    const first = await run([root, 'ch01', 'research']);
    expect(first.code).toBe(0);
    expect(first.text).toContain('checkroom will run (agent researcher');
    expect(first.text).toContain(`--unit ch01 --step research --output ${join(root, 'research/ch01-research.md')}`);
    expect(first.text).toContain('implies consent');
    expect(first.text).toMatch(/ch01 research: attempt 1 of 5 failed \(RATE_LIMITED\), retrying in \d+\.\d s/);
    expect(first.text).toContain('ch01 research: done');
    const second = await run([root, 'ch01', 'draft']);
    expect(second.code).toBe(0);
    expect(second.text).not.toContain('checkroom will run');
    const shown = (await readJournal(root)).events.filter((e) => e.type === 'decision' && e.kind === 'command_shown');
    expect(shown).toHaveLength(1);
    // A changed agents section is a new config version: shown again.
    writeFileSync(join(root, 'checkroom.yaml'), readFileSync(join(root, 'checkroom.yaml'), 'utf8').replace('idle_timeout: 10s', 'idle_timeout: 9s'));
    expect((await run([root, 'ch01', 'r1'])).text).toContain('checkroom will run');
  });

  it('exits 1 on an escalation, naming the log', async () => {
    const root = makeWs({ 'ch01/research': 'permission' });
    const r = await run([root, 'ch01', 'research']);
    expect(r.code).toBe(1);
    expect(r.text).toMatch(/ch01 research: attempt 1 failed \(PERMISSION\); escalated to a human .*log: .*\.checkroom\/runs\/.*\.log/);
    expect(r.text).toContain('ch01 research: escalated after 1 attempt');
  });

  it('usage errors are UsageError (exit 2 at the entry); a missing agent exits 2', async () => {
    const root = makeWs({}, ['researcher']);
    await expect(run([root, 'ch01'])).rejects.toThrow(UsageError);
    await expect(run([root, '--next', 'ch01'])).rejects.toThrow(UsageError);
    await expect(run([root, 'ch01', 'research', '--auto'])).rejects.toThrow(UsageError);
    const r = await run([root, 'ch01', 'draft']);
    expect(r.code).toBe(2);
    expect(r.text).toContain("no agent 'writer' in checkroom.yaml: add agents.writer.command");
    expect((await readJournal(root)).events.some((e) => e.type === 'launch')).toBe(false);
  });

  it('read-only when another instance drives: exits 1 and says so', async () => {
    const root = makeWs();
    const lock = acquireDriverLock(root);
    try {
      // Same process holds it: the run command must still refuse.
      const r = await run([root, 'ch01', 'research']);
      expect(r.code).toBe(1);
      expect(r.text).toContain('read-only');
    } finally {
      lock.release();
    }
  });
});

describe('checkroom run --next', () => {
  it('launches only the plan’s next step without --auto', async () => {
    const root = makeWs();
    const r = await run([root, '--next']);
    expect(r.code).toBe(0);
    const launches = (await readJournal(root)).events.filter((e) => e.type === 'launch');
    expect(launches.map((e) => `${(e as { unit: string }).unit}/${(e as { step: string }).step}`)).toEqual(['ch01/research']);
    expect(r.text).toContain('stopped: --max 1 launches reached');
  });

  it('--auto --max N stops after N launches', async () => {
    const root = makeWs();
    const r = await run([root, '--next', '--auto', '--max', '3']);
    expect(r.code).toBe(0);
    expect((await readJournal(root)).events.filter((e) => e.type === 'launch')).toHaveLength(3);
    expect(r.text).toContain('launches this session: 3 of');
  });
});
