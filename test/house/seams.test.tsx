import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig, parseConfig } from '../../src/pipeline/config/config.js';
import { registerAdapter } from '../../src/run/adapters/index.js';
import { configSchema } from '../../src/pipeline/config/rows.js';
import { rawConfigSchemaOf } from '../../src/pipeline/schema.js';
import { registerExecutor } from '../../src/run/executors/registry.js';
import { registerPreset } from '../../src/pipeline/presets/index.js';
import { buildCommand, targetOf } from '../../src/run/attempt/launch-spec.js';
import { planCommand, statusCommand } from '../../src/cli/commands/core-commands.js';
import { statusKey } from '../../src/cli/status-cache.js';
import { recoverReport } from '../../src/recover/report.js';
import { renderRecover } from '../../src/recover/render.js';
import { readSources } from '../../src/workspace.js';
import { openSupervisor } from '../../src/run/supervisor/supervisor.js';
import { createLiveWorkspace } from '../../src/live/live-workspace.js';
import { createAppStore } from '../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../src/text/theme.js';
import { makePaint } from '../../src/text/paint.js';
import { renderRoom, tick, unmountAll } from '../helpers/ink.js';
import { tempDir, writeFiles } from '../helpers/workspace.js';
import { fakeAdapter, fakeOptionsOf } from '../fixtures/seams/fake-adapter.js';
import { fakeExecutor, fakeQueueOf, QUEUE_FILE } from '../fixtures/seams/fake-executor.js';
import { fakePreset, STAMPS } from '../fixtures/seams/fake-preset.js';

// Every seam is one file plus one registry row (docs/architecture.md, How to add): a fake
// adapter, a fake executor and a fake preset, each one file under test/fixtures/seams/ and
// one register… call here, show up in config validation, the plan, a launch, the Sources
// view, the cell detail, recover and `status --json` — with no other file of src/ knowing
// them. A system test: registering rows changes module state that an unit file sharing the
// thread would read (the agent schema's keys and enums).

const YAML = [
  'preset: stamped-notes',
  'executor: fake-queue',
  'fake_queue:',
  '  lane: night',
  'agents:',
  '  scribe:',
  '    adapter: fake-cli',
  '    command: [scribe, "{unit}", "--marker={marker}"]',
  '    voice: calm',
  '    fake_queue:',
  '      slots: 2',
  '',
].join('\n');

const NOTE = `# u1 note\n\n${'words '.repeat(60)}\n\n<!-- NOTE_DONE -->\n`;
const JOBS = [{ id: 'J7', state: 'RUNNING', runId: 'by-hand', unit: 'u2', step: 'note' }];
const o = { paint: makePaint(false), ascii: true, width: 100 };

/** u1's note done and stamped; u2 not started, with a job nobody launched in the fake queue. */
function workspace(): string {
  const root = tempDir('checkroom-seams-');
  writeFiles(root, { 'checkroom.yaml': YAML, 'notes/u1-note.md': NOTE, [STAMPS]: 'u1 approved by ana\n', [QUEUE_FILE]: JSON.stringify(JOBS) });
  return root;
}

const errorOf = (text: string): ConfigError => {
  try {
    parseConfig(text, 'checkroom.yaml');
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError, got a config');
};

const captured = () => {
  let text = '';
  return { out: { write: (s: string) => void (text += s) }, text: () => text };
};

beforeAll(() => {
  registerAdapter(fakeAdapter);
  registerExecutor(fakeExecutor);
  registerPreset(fakePreset);
});

afterAll(unmountAll);

describe('a fake adapter, executor and preset: one file and one row each', () => {
  it('config: a checkroom.yaml naming them loads, and each resolves its own options with its defaults', async () => {
    const config = await loadConfig(workspace());
    expect(config.preset).toBe('stamped-notes');
    expect(config.pipeline.steps.map((s) => s.id)).toEqual(['note']);
    const scribe = config.agents.scribe!;
    expect(scribe.adapter).toBe('fake-cli');
    expect(scribe.executor).toBe('fake-queue');
    expect(fakeOptionsOf(scribe)).toEqual({ voice: 'calm', loudness: 5 });
    // The top-level mapping, the agent's own over it, the rest from the executor's defaults.
    expect(fakeQueueOf(scribe)).toEqual({ lane: 'night', slots: 2 });
    // The built-in executors' options still resolve beside it.
    expect(scribe.slurm.pollMs).toBe(1_000);
  });

  it.each([
    { name: 'a wrong value in the adapter fragment', edit: (y: string) => y.replace('voice: calm', 'voice: calm\n    loudness: 12'), at: '10:15', words: ['agents.scribe.loudness', 'an integer from 1 to 11'] },
    { name: 'the adapter rule', edit: (y: string) => y.replace('    voice: calm\n', ''), at: '7:5', words: ['adapter fake-cli needs a voice:'] },
    { name: 'the adapter key on another adapter', edit: (y: string) => y.replace('adapter: fake-cli', 'adapter: command'), at: '9:12', words: ['voice is for adapter fake-cli'] },
    { name: 'a wrong value in the executor fragment', edit: (y: string) => y.replace('slots: 2', 'slots: 0'), at: '11:14', words: ['agents.scribe.fake_queue.slots', 'an integer from 1 to 8'] },
    { name: 'an unknown key in the executor fragment', edit: (y: string) => y.replace('  lane: night', '  lanes: night'), at: '4:3', words: ['fake_queue', 'one of: lane, slots'] },
    { name: 'an executor that is not registered', edit: (y: string) => y.replace('executor: fake-queue', 'executor: fake-queues'), at: '2:11', words: ['one of: local, slurm, kubernetes, fake-queue'] },
  ])('config: $name is a file:line error', ({ edit, at, words }) => {
    const e = errorOf(edit(YAML));
    expect(e.message.startsWith(`checkroom.yaml:${at}: `), e.message).toBe(true);
    for (const w of words) expect(e.message).toContain(w);
  });

  it('the schema is built once for the rows, and again when a row is registered', () => {
    const before = configSchema();
    expect(configSchema()).toBe(before);
    registerAdapter({ ...fakeAdapter, id: 'fake-cli-2' });
    expect(configSchema()).not.toBe(before);
    expect(() => parseConfig(YAML.replace('adapter: fake-cli', 'adapter: fake-cli-2'), 'checkroom.yaml')).not.toThrow();
  });

  it('a row whose key is already another kind\'s is refused when the schema is built, naming both', () => {
    const command = { id: 'command' };
    expect(() => rawConfigSchemaOf([command, { id: 'shell', keys: { env: configSchema().shape.name } }], [{ id: 'local' }])).toThrow(`adapter shell's key "env" is already a key of every agent`);
    expect(() => rawConfigSchemaOf([command], [{ id: 'local' }, { id: 'q', options: { key: 'adapter', schema: configSchema().shape.name } }])).toThrow(`executor q's options key "adapter" is already a key of every agent`);
    expect(() => rawConfigSchemaOf([command, { id: 'x', keys: { slurm: configSchema().shape.name } }], [{ id: 'local' }, { id: 'slurm', options: { key: 'slurm', schema: configSchema().shape.name } }])).toThrow(`adapter x's key "slurm" is already a key of executor slurm`);
  });

  it('the plan: plan --json names the preset’s next step, and the launch is built by the fake adapter', async () => {
    const root = workspace();
    const c = captured();
    await planCommand([root], true, o, c.out);
    const next = JSON.parse(c.text()) as { unit: string; step: string; action: string }[];
    expect(next.map((n) => [n.unit, n.step, n.action])).toEqual([['u2', 'note', 'run']]);
    const config = await loadConfig(root);
    const built = buildCommand(root, 'u2', targetOf(root, config, 'u2', 'note'), { attempt: 1 } as never);
    expect(built.argv).toEqual(['scribe', 'u2', '--marker=NOTE_DONE', '--voice=calm', '--loudness=5']);
  });

  it('a launch runs through the fake executor to ✅; the journal names it; status --json shows the adapter’s cost and the preset’s cells', async () => {
    const root = workspace();
    const config = await loadConfig(root);
    const s = await openSupervisor({ root, config });
    try {
      const r = await s.launch('u2', 'note');
      expect(r.outcome, r.reason).toBe('done');
    } finally {
      await s.close({ cancel: true });
    }
    const events = readFileSync(join(root, '.checkroom', 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; executor?: string; jobId?: string });
    const launch = events.find((e) => e.type === 'launch')!;
    expect(launch.executor).toBe('fake-queue');
    expect(launch.jobId).toMatch(/^fq-/);
    const c = captured();
    await statusCommand([root], true, o, c.out);
    const st = JSON.parse(c.text()) as { pipeline: string; counts: { done: number; total: number }; spend: { agents: Record<string, { cost_usd: number | null }> } };
    expect(st.pipeline).toBe('stamped notes');
    expect(st.counts).toMatchObject({ done: 2, total: 2 });
    expect(st.spend.agents.scribe?.cost_usd).toBe(0.25);
  });

  it('recover: the fake queue’s jobs against the cells, and the preset’s own section', async () => {
    const root = workspace();
    const r = await recoverReport(root, { dryRun: true });
    expect(r.sources.scheduler?.executor).toBe('fake-queue');
    expect(r.sources.scheduler?.findings.map((f) => [f.kind, f.jobId])).toEqual([['job_not_launched', 'J7']]);
    expect(r.own).toEqual({ stamps: { u1: 'approved by ana' } });
    const text = renderRecover(r, { ...o, width: 200 });
    expect(text).toMatch(/\n {2}fake-queue +1 job of this workspace; 1 disagree with the cells\n/);
    expect(text).toContain('fakeq drop J7 unless someone started it by hand');
    expect(text).toContain('\nStamps\n  u1: approved by ana\n');
  });

  it('status cache: the preset’s cache keys say what of its state keys the answer', async () => {
    const root = workspace();
    const src = await readSources(root);
    const keyed = { ...src, scan: { ...src.scan, factsId: 'facts-1' } };
    const key = statusKey(keyed, { session: {}, agents: {} } as never);
    expect(key).not.toBeNull();
    // When it was read is not a key; a new stamp is.
    expect(statusKey({ ...keyed, own: { stamps: { u1: 'approved by ana' }, readAt: 1 } }, { session: {}, agents: {} } as never)).toBe(key);
    expect(statusKey({ ...keyed, own: { stamps: { u1: 'approved by bo' }, readAt: 1 } }, { session: {}, agents: {} } as never)).not.toBe(key);
  });

  it('the Sources view shows the fake queue’s finding, and the cell detail the preset’s stamp (80x24, NO_COLOR, ascii)', async () => {
    const root = workspace();
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, ascii: true });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 24, 80);
    await press('4');
    for (let i = 0; i < 200 && !frame().includes('job J7'); i++) await tick(50);
    const sources = frame();
    expect(sources).toContain('job J7');
    expect(sources).toMatch(/u2 note: job J7 \(RUNNING\) was submitted/);
    for (const line of sources.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    await press('1', '\r');
    for (let i = 0; i < 100 && !frame().includes('(esc back'); i++) await tick(20);
    const detail = frame();
    expect(detail).toMatch(/stamp\s+approved by ana/);
    expect(detail).toContain('stamps.txt: stamped');
  });
});
