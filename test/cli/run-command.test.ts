import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { copyDemo, tempDir, writeFakeAgentWs, writeFiles } from '../helpers/workspace.js';
import { parseCli, UsageError } from '../../src/cli/args.js';
import { runCommand } from '../../src/cli/commands/run-command.js';
import { readJournal } from '../../src/run/journal/journal.js';
import { acquireDriverLock } from '../../src/run/supervisor/lock.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { openSupervisor } from '../../src/run/supervisor/supervisor.js';

// `checkroom run` through runCommand, on real processes and a real temp workspace.

const o = { paint: (_t: string, s: string) => s, ascii: true, width: 100 };

const makeWs = (faults: Record<string, string> = {}, agents = ['researcher', 'writer', 'reviewer', 'editor', 'panel', 'archivist']): string => {
  const [first, ...rest] = agents;
  return writeFakeAgentWs(tempDir('checkroom-runcmd-'), {
    units: ['ch01', 'ch02'],
    faults,
    speed: 40,
    idle: '10s',
    grace: null,
    agent: first,
    roles: rest,
    tail: ['limits: { backoff_base: 20ms, backoff_max: 50ms }', 'breaker: { threshold: 50 }'],
  });
};

/** Every file under root (the journal and run logs included) with a hash of its bytes. */
const tree = (root: string): Record<string, string> => {
  const files: Record<string, string> = {};
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const abs = join(e.parentPath, e.name);
    files[relative(root, abs)] = createHash('sha256').update(readFileSync(abs)).digest('hex');
  }
  return files;
};

const launchesIn = async (root: string): Promise<string[]> =>
  (await readJournal(root)).events.flatMap((e) => (e.type === 'launch' ? [`${e.unit}/${e.step}`] : []));

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
    expect(r.text).toContain('stopped: one step launched (--next without --auto runs one step)');
    expect(r.text).toContain('steps launched: 1; launches this session: 1 of');
    expect(r.text).not.toContain('launches reached');
  });

  it('--auto --max N stops after N steps, however many launches their retries took', async () => {
    const root = makeWs({ 'ch01/research': 'rate_limit_twice' });
    const r = await run([root, '--next', '--auto', '--max', '2']);
    expect(r.code).toBe(0);
    const launches = await launchesIn(root);
    // ch01 research took three launches (two rate-limited attempts, then done): 2 steps, 4 launches.
    expect(new Set(launches).size).toBe(2);
    expect(launches.filter((c) => c === 'ch01/research')).toHaveLength(3);
    expect(launches).toHaveLength(4);
    expect(r.text).toContain('stopped: --max 2 steps reached\n');
    expect(r.text).toContain('steps launched: 2; launches this session: 4 of 200 (retries included)');
    expect(r.text).not.toContain('launches reached');
    // The stop reason is said once, on the "stopped:" line.
    expect(r.text).not.toContain('nothing more to launch now');
  });

  it('--force goes with <unit> <step> only', async () => {
    const root = makeWs();
    await expect(run([root, '--next', '--force'])).rejects.toThrow('--force goes with <unit> <step>');
    expect(await launchesIn(root)).toEqual([]);
  });
});

describe('checkroom run <unit> <step>: refusals write nothing', () => {
  it('an unknown unit exits 2 naming the known units; a typo gets a hint; nothing launched or written', async () => {
    const root = copyDemo();
    const before = tree(root);
    const unknown = await run([root, 'ch99', 'research']);
    expect(unknown.code).toBe(2);
    expect(unknown.text).toBe('cannot run: "ch99" is not a unit of this pipeline; units: ch01, ch02, ch03, …, ch09, ch10 (10 units); a new unit needs a row in checkpoint.md or a batch in checkroom.yaml\n');
    const typo = await run([root, 'ch010', 'research']);
    expect(typo.code).toBe(2);
    expect(typo.text).toContain('cannot run: "ch010" is not a unit of this pipeline; units: ch01, ch02, ch03, …, ch09, ch10 (10 units); did you mean ch10?');
    // The same words as a step typo, which already exited 2.
    const step = await run([root, 'ch01', 'reserch']);
    expect(step.code).toBe(2);
    expect(step.text).toContain('cannot run: no step "reserch" in this pipeline; steps: research, draft, r1');
    // No checkpoint rewrite, no backup, no journal, no output file: the tree is byte for byte the same.
    expect(tree(root)).toEqual(before);
  });

  it('the unit check comes before the breaker check', async () => {
    const root = makeWs();
    const s = await openSupervisor({ root, config: await loadConfig(root) });
    await s.holdBreaker('researcher');
    await s.close();
    const before = tree(root);
    const r = await run([root, 'ch03', 'research']);
    expect(r.code).toBe(2);
    expect(r.text).toBe('cannot run: "ch03" is not a unit of this pipeline; units: ch01, ch02; a new unit goes in units.list in checkroom.yaml\n');
    expect(tree(root)).toEqual(before);
    // The breaker is really held: a known unit is refused by it (exit 1), not by the unit check.
    const held = await run([root, 'ch01', 'research']);
    expect(held.code).toBe(1);
    expect(held.text).toContain('researcher');
    expect(held.text).not.toContain('not a unit');
  });

  it('unmet dependencies exit 2 naming them; --force launches anyway', async () => {
    const root = makeWs();
    writeFiles(root, { 'research/ch01-research.md': '# ch01 research\n\ncut off mid-sen' });
    const before = tree(root);
    const draft = await run([root, 'ch01', 'draft']);
    expect(draft.code).toBe(2);
    expect(draft.text).toBe('cannot run: ch01 draft depends on research (a file without its marker); run it first (checkroom run ch01 research), or pass --force to launch anyway\n');
    const review = await run([root, 'ch02', 'review']);
    expect(review.code).toBe(2);
    expect(review.text).toContain('cannot run: ch02 review depends on r1 (not done), r2 (not done), r3 (not done); run them first (checkroom run ch02 r1)');
    expect(tree(root)).toEqual(before);
    expect(await launchesIn(root)).toEqual([]);

    const forced = await run([root, 'ch01', 'draft', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.text).toContain('ch01 draft: done after 1 attempt');
    expect(await launchesIn(root)).toEqual(['ch01/draft']);
  });

  it('an output that cannot be read (a directory under its name) exits 2, even with --force, and nothing is touched', async () => {
    const root = makeWs();
    writeFiles(root, { 'research/ch01-research.md/inner.txt': 'not an artifact' });
    const before = tree(root);
    for (const extra of [[], ['--force']]) {
      const r = await run([root, 'ch01', 'research', ...extra]);
      expect(r.code).toBe(2);
      expect(r.text).toBe('cannot run: ch01 research is not launched: research/ch01-research.md: not a regular file; fix that first (checkroom backs a file up before a run and cannot here)\n');
    }
    expect(tree(root)).toEqual(before);
    expect(await launchesIn(root)).toEqual([]);
  });

  it('a step already done exits 2 naming the later steps built on it; --force redoes it after a backup', async () => {
    const demo = copyDemo();
    const demoBefore = tree(demo);
    const done = await run([demo, 'ch01', 'research']);
    expect(done.code).toBe(2);
    expect(done.text).toContain(
      'cannot run: ch01 research is already done (marker RESEARCH_COMPLETE is the last line of research/ch01-research.md); later steps built on it: draft, r1, r2, r3, review, panel, memory; pass --force to redo it (the current output is backed up first)',
    );
    const started = await run([demo, 'ch03', 'research']);
    expect(started.code).toBe(2);
    expect(started.text).toMatch(/later steps built on it: draft, r1, r3; pass --force/);
    expect(tree(demo)).toEqual(demoBefore);

    const root = makeWs();
    expect((await run([root, 'ch02', 'research'])).code).toBe(0);
    const before = tree(root);
    const again = await run([root, 'ch02', 'research']);
    expect(again.code).toBe(2);
    expect(again.text).toContain('ch02 research is already done');
    expect(again.text).toContain('no later step is built on it yet');
    expect(tree(root)).toEqual(before);
    expect(await launchesIn(root)).toEqual(['ch02/research']);

    const forced = await run([root, 'ch02', 'research', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.text).toMatch(/backed up research\/ch02-research\.md to research\/ch02-research\.md\.bak\.\S+ before attempt/);
    expect(await launchesIn(root)).toEqual(['ch02/research', 'ch02/research']);
    expect(Object.keys(tree(root)).some((f) => f.startsWith('research/ch02-research.md.bak.'))).toBe(true);
  });
});
