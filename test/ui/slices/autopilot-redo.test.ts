import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DEMO, PHASE_1_2, doneFile, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { settle } from '../../helpers/settle.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { createLiveWorkspace, type LiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../../src/ui/store/store.js';
import { openSupervisor, type Supervisor, type SupervisorEvent } from '../../../src/run/supervisor/supervisor.js';
import { readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { parseCheckpoint } from '../../../src/checkpoint/parse.js';
import { claimsOf } from '../../../src/state/derive.js';
import { rewriteCheckpoint } from '../../../src/checkpoint/rewrite.js';
import { formatStamp } from '../../../src/backups/stamp.js';
import { lastBackupOf } from '../../../src/run/supervisor/cell.js';
import type { CommandId } from '../../../src/ui/keys/keymap.js';

// The known gap "autopilot launching the redo queue": the operator marks a half-product for
// redo in the Partials view (`d` or `c`: the file is moved to file.bak.<stamp> and the step
// is queued), then turns autopilot on (`a`). Everything here is real: temp workspaces on
// disk, the demo's fake agent as a real process, the store driven through the same command
// ids its keys dispatch, and the supervisor the control room uses. Conditions are polled
// with generous timeouts; nothing asserts on wall-clock time.

const AGENT = join(DEMO, 'agents', 'fake-agent.mjs');
/** What the supervisor said in the current test, for a timeout's message. */
const story: (() => string)[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The clock the store names its backups with (pinned, so the names are known exactly). */
const AT = new Date(2026, 10, 28, 14, 3, 12);
const STAMP = formatStamp(AT);

interface WsOpts {
  units: string[];
  files: Record<string, string>;
  faults?: Record<string, string>;
  /** Agents to define (the preset's other steps then have no launcher: autopilot leaves them). */
  agents?: string[];
  concurrency?: Record<string, number>;
  limits?: string[];
  /** Units per batch (default: all in batch 1). */
  batches?: string[][];
}

function makeWs(o: WsOpts): string {
  const root = tempDir('checkroom-redo-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'faults.json': JSON.stringify({ ...(o.faults ?? {}), '*/*': 'ok' }), ...o.files });
  const agents = o.agents ?? ['researcher', 'writer'];
  const cmd = `[node, ${JSON.stringify(AGENT)}, --unit, '{unit}', --step, '{step}', --output, '{output}', --marker, '{marker}', --attempt, '{attempt}', --workspace, '{workspace}', --faults, ${JSON.stringify(join(root, 'faults.json'))}]`;
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      `units: { list: [${o.units.join(', ')}] }`,
      `batches: [${(o.batches ?? [o.units]).map((b, i) => `{ id: ${i + 1}, units: [${b.join(', ')}] }`).join(', ')}]`,
      'agents:',
      ...agents.flatMap((a) => [
        `  ${a}:`,
        `    command: ${cmd}`,
        "    env: { CHECKROOM_FAKE_SPEED: '40' }",
        '    idle_timeout: 20s',
        '    grace: 200ms',
        `    concurrency: ${o.concurrency?.[a] ?? 2}`,
      ]),
      'limits:',
      '  backoff_base: 20ms',
      '  backoff_max: 100ms',
      ...(o.limits ?? []),
      'breaker:',
      '  threshold: 50',
      '  cooldown: 1s',
      '',
    ].join('\n'),
  );
  // Left by a session that died: past the quiet window (issue 17 item 1), or b / d / c would refuse.
  settle(root);
  return root;
}

/** Short, no marker: under 100 characters, so the triage says almost_certainly_partial. */
const HALF = (unit: string) => `# ${unit} draft\n\nThe page header is`;

const opened: { store: AppStore | null; live: LiveWorkspace | null; sup: Supervisor }[] = [];
afterEach(async () => {
  for (const m of opened.splice(0).reverse()) {
    if (m.store) disposeStore(m.store);
    await m.live?.close();
    await m.sup.close({ cancel: true });
  }
});

/** The control room without Ink: the store the keys drive, on a live workspace and a real supervisor. */
async function room(root: string) {
  const config = await loadConfig(root);
  const events: SupervisorEvent[] = [];
  const sup = await openSupervisor({ root, config, onEvent: (e) => events.push(e) });
  const live = await createLiveWorkspace(root, { watch: false });
  const store = createAppStore({ live, now: () => AT, agents: { sup, config, flushMs: 50 } });
  opened.push({ store, live, sup });
  story.splice(0, story.length, () => events.map((e) => e.message).join('\n'));
  let pushes = 0;
  store.subscribe((s, prev) => {
    if (s.agents.at !== prev.agents.at) pushes++;
  });
  const st = () => store.getState();
  /** Run a command id as its key would, then wait for the disk actions it started. */
  const run = async (id: CommandId) => {
    st().run(id);
    await st().idle();
  };
  return { store, st, run, sup, live, events, pushes: () => pushes };
}

async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeout = 30_000): Promise<NonNullable<T>> {
  const t0 = Date.now();
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${what}; events so far:\n${story.map((f) => f()).join('\n')}`);
    await sleep(25);
  }
}

const journal = async (root: string): Promise<JournalEvent[]> => (await readJournal(root)).events;
type Launch = Extract<JournalEvent, { type: 'launch' }>;
type Exit = Extract<JournalEvent, { type: 'exit' }>;
const launchesOf = (ev: JournalEvent[], key?: string): Launch[] => ev.filter((e): e is Launch => e.type === 'launch' && (!key || `${e.unit}/${e.step}` === key));
const exitsOf = (ev: JournalEvent[], key: string): Exit[] => ev.filter((e): e is Exit => e.type === 'exit' && `${e.unit}/${e.step}` === key);

/** Research done and a half-product draft, for each unit. */
const researchedWithHalfDrafts = (units: readonly string[]): Record<string, string> => {
  const files: Record<string, string> = {};
  for (const u of units) {
    const [p, t] = doneFile(u, 'research');
    files[p] = t;
    files[`drafts/${u}-draft.md`] = HALF(u);
  }
  return files;
};

/** Most runs of `agent` in flight at once, replayed from the journal. */
const mostAtOnce = (ev: JournalEvent[], agent: string): number => {
  const live = new Set<string>();
  let most = 0;
  for (const e of ev) {
    if (e.type === 'launch' && e.agent === agent) live.add(e.runId);
    if (e.type === 'exit' && e.agent === agent) live.delete(e.runId);
    most = Math.max(most, live.size);
  }
  return most;
};

const claims = async (root: string) => {
  const cfg = await loadConfig(root);
  return claimsOf(parseCheckpoint(readFileSync(join(root, 'checkpoint.md'), 'utf8'), cfg.pipeline));
};
const lastLine = (root: string, rel: string): string => readFileSync(join(root, rel), 'utf8').trimEnd().split('\n').pop() ?? '';
const backupsOf = (root: string, rel: string): string[] =>
  readdirSync(join(root, dirname(rel)))
    .filter((f) => f.startsWith(`${basename(rel)}.bak.`))
    .map((f) => `${dirname(rel)}/${f}`)
    .sort();

/** Autopilot on through the store, confirming the one-time "exact command" dialog. */
async function autopilotOn(r: Awaited<ReturnType<typeof room>>): Promise<void> {
  await r.run('run.autopilot');
  const d = r.st().dialog;
  expect(d?.title).toBe('Autopilot: the exact command, before the first launch');
  await r.run('dialog.confirm');
  await waitFor('autopilot on', () => r.sup.snapshot().autopilot.on);
}

describe('autopilot relaunches the redo queue', () => {
  it('d on a half-product: backed up first (never overwritten), relaunched by autopilot, marker last, checkpoint.md cell ✅', async () => {
    const half = HALF('ch01');
    const root = makeWs({ units: ['ch01'], files: Object.fromEntries([doneFile('ch01', 'research'), ['drafts/ch01-draft.md', half]]) });
    await rewriteCheckpoint(root);
    const textBefore = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    const checkpointBefore = await claims(root);
    expect(checkpointBefore.get('ch01/draft')).toBe('in_progress');
    expect(checkpointBefore.get('ch01/research')).toBe('done');

    const r = await room(root);
    expect(r.st().ws.partials.map((p) => [p.path, p.verdict])).toEqual([['drafts/ch01-draft.md', 'almost_certainly_partial']]);
    expect(r.st().ws.next.find((n) => n.unit === 'ch01' && n.step === 'draft')?.action).toBe('backup_redo');

    // d (redo), shown first, then confirmed: the half-product moves aside, the step is queued.
    await r.run('view.partials');
    await r.run('partial.redo');
    const backup = `drafts/ch01-draft.md.bak.${STAMP}`;
    expect(r.st().dialog?.title).toBe('Redo ch01 draft: back up the file and queue the step');
    expect(r.st().dialog?.lines).toEqual([`drafts/ch01-draft.md → ${backup}`, 'queue ch01 draft for relaunch (shown in the Plan view)']);
    // Nothing has touched the disk before the confirmation.
    expect(readFileSync(join(root, 'drafts/ch01-draft.md'), 'utf8')).toBe(half);
    expect(backupsOf(root, 'drafts/ch01-draft.md')).toEqual([]);
    await r.run('dialog.confirm');
    expect(r.st().redoQueue.map((q) => [q.unit, q.step, q.path, q.backup])).toEqual([['ch01', 'draft', 'drafts/ch01-draft.md', backup]]);
    expect(existsSync(join(root, 'drafts/ch01-draft.md'))).toBe(false);
    expect(readFileSync(join(root, backup), 'utf8')).toBe(half);
    expect((await journal(root)).filter((e) => e.type === 'launch')).toEqual([]);
    // The decision is journalled: RESUME.md's key decisions, and the agent's {backup}.
    expect((await journal(root)).filter((e) => e.type === 'decision' && e.kind === 'redo')).toMatchObject([{ unit: 'ch01', step: 'draft', path: 'drafts/ch01-draft.md', backupPath: backup, at: AT.getTime() }]);
    expect(lastBackupOf(root, r.sup.snapshot().ledger, 'ch01', 'draft')).toBe(join(root, backup));

    // a: autopilot (the exact command is shown once), which launches the queued redo.
    await autopilotOn(r);
    await waitFor('ch01 draft done', () => r.events.some((e) => e.type === 'done' && e.unit === 'ch01' && e.step === 'draft'));

    // The redone artifact ends with its completion marker.
    expect(lastLine(root, 'drafts/ch01-draft.md')).toBe('<!-- DRAFT_COMPLETE -->');
    expect(readFileSync(join(root, 'drafts/ch01-draft.md'), 'utf8')).not.toBe(half);
    // The half-product survives, byte for byte, as the only backup: nothing was overwritten,
    // and the supervisor found no output to move aside a second time.
    expect(backupsOf(root, 'drafts/ch01-draft.md')).toEqual([backup]);
    expect(readFileSync(join(root, backup), 'utf8')).toBe(half);
    // One launch, one proven success.
    const ev = await journal(root);
    expect(launchesOf(ev, 'ch01/draft').map((l) => l.attempt)).toEqual([1]);
    expect(exitsOf(ev, 'ch01/draft').map((e) => [e.class, e.markerFound])).toEqual([['SUCCESS', true]]);
    // checkpoint.md: that cell went ⏳ → ✅, its neighbour is untouched.
    await waitFor('checkpoint ch01/draft ✅', async () => (await claims(root)).get('ch01/draft') === 'done');
    const after = await claims(root);
    expect(after.get('ch01/draft')).toBe('done');
    expect(after.get('ch01/research')).toBe('done');
    // One cell edited in place (plus its "last updated" line), not a rebuild: no copy of the old file.
    const textAfter = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    const changed = textAfter.split('\n').filter((l, i) => l !== textBefore.split('\n')[i]);
    expect(textAfter.split('\n')).toHaveLength(textBefore.split('\n').length);
    expect(changed.filter((l) => !/^\| ch01\s/.test(l))).toHaveLength(changed.length - 1);
    expect(changed.find((l) => /^\| ch01\s/.test(l))).toMatch(/^\| ch01\s+\| ✅\s+\| ✅\s+\| —/);
    expect(backupsOf(root, 'checkpoint.md')).toEqual([]);
    // Launched: no longer waiting in the queue; the store sees the cell done.
    await waitFor('queue drained', () => r.st().redoQueue.length === 0);
    await waitFor('store sees ✅', () => r.st().ws.cells.find((c) => c.unit === 'ch01' && c.step === 'draft')?.status === 'done');
  });

  it('c on several half-products: relaunched in plan order, never more writers than the concurrency', async () => {
    const units = ['ch01', 'ch02', 'ch03'];
    const files = researchedWithHalfDrafts(units);
    const root = makeWs({ units, files, concurrency: { writer: 1 } });
    await rewriteCheckpoint(root);
    const r = await room(root);
    await r.run('view.partials');
    // The conservative strategy: back up and redo every almost-certain partial.
    await r.run('partial.conservative');
    expect(r.st().dialog?.title).toBe('Conservative strategy: back up 3 almost-certain partials and redo');
    await r.run('dialog.confirm');
    expect(r.st().redoQueue.map((q) => `${q.unit}/${q.step}`)).toEqual(['ch01/draft', 'ch02/draft', 'ch03/draft']);
    for (const u of units) expect(readFileSync(join(root, `drafts/${u}-draft.md.bak.${STAMP}`), 'utf8')).toBe(HALF(u));

    await autopilotOn(r);
    await waitFor('three drafts done', () => units.every((u) => r.events.some((e) => e.type === 'done' && e.unit === u && e.step === 'draft')), 60_000);

    const ev = await journal(root);
    // Plan order: ch01, ch02, ch03 (batch, unit, step), one attempt each.
    expect(launchesOf(ev).filter((l) => l.step === 'draft').map((l) => `${l.unit}/${l.attempt}`)).toEqual(['ch01/1', 'ch02/1', 'ch03/1']);
    // Concurrency (writer: 1): replayed from the journal, never two writers at once.
    expect(mostAtOnce(ev, 'writer')).toBe(1);
    for (const u of units) {
      expect(lastLine(root, `drafts/${u}-draft.md`)).toBe('<!-- DRAFT_COMPLETE -->');
      expect(backupsOf(root, `drafts/${u}-draft.md`)).toEqual([`drafts/${u}-draft.md.bak.${STAMP}`]);
      expect(readFileSync(join(root, `drafts/${u}-draft.md.bak.${STAMP}`), 'utf8')).toBe(HALF(u));
    }
    await waitFor('checkpoint: three drafts ✅', async () => [...(await claims(root))].filter(([k, v]) => k.endsWith('/draft') && v === 'done').length === 3);
    await waitFor('queue drained', () => r.st().redoQueue.length === 0);
  });

  it('a queue in another order than the plan: launched in queue order, one launcher, never over the writer cap', async () => {
    const units = ['ch01', 'ch02', 'ch03', 'ch04'];
    const files = researchedWithHalfDrafts(units);
    const root = makeWs({ units, files, concurrency: { writer: 1 } });
    await rewriteCheckpoint(root);
    const r = await room(root);
    await r.run('view.partials');
    // d on the last partial each time: the queue is ch04, ch03, ch02, ch01 (against the plan).
    for (let i = 0; i < units.length; i++) {
      await r.run('move.bottom');
      await r.run('partial.redo');
      await r.run('dialog.confirm');
    }
    expect(r.st().redoQueue.map((q) => q.unit)).toEqual(['ch04', 'ch03', 'ch02', 'ch01']);

    await autopilotOn(r);
    await waitFor('four drafts done', () => units.every((u) => r.events.some((e) => e.type === 'done' && e.unit === u && e.step === 'draft')), 90_000);
    const ev = await journal(root);
    expect(launchesOf(ev).filter((l) => l.step === 'draft').map((l) => `${l.unit}/${l.attempt}`)).toEqual(['ch04/1', 'ch03/1', 'ch02/1', 'ch01/1']);
    expect(mostAtOnce(ev, 'writer')).toBe(1);
    await waitFor('queue drained', () => r.st().redoQueue.length === 0);
  });

  it('a queued redo in a later batch goes first: it was launchable before its backup and stays so', async () => {
    // ch01 (batch 1) is unsettled, so batch 2 is closed for new work; ch02's draft was a
    // half-product there (the plan offers those whatever the batch), redone with d.
    const files = { ...researchedWithHalfDrafts(['ch02']), ...Object.fromEntries([doneFile('ch01', 'research')]) };
    const root = makeWs({ units: ['ch01', 'ch02'], batches: [['ch01'], ['ch02']], files, concurrency: { writer: 1 } });
    await rewriteCheckpoint(root);
    const r = await room(root);
    await r.run('view.partials');
    await r.run('partial.redo');
    await r.run('dialog.confirm');
    expect(r.st().redoQueue.map((q) => `${q.unit}/${q.step}`)).toEqual(['ch02/draft']);
    expect(r.st().ws.next.some((n) => n.unit === 'ch02' && n.step === 'draft')).toBe(false); // batch 2 is closed
    await autopilotOn(r);
    await waitFor('both drafts done', () => ['ch01', 'ch02'].every((u) => r.events.some((e) => e.type === 'done' && e.unit === u && e.step === 'draft')), 15_000);
    expect(launchesOf(await journal(root)).filter((l) => l.step === 'draft').map((l) => l.unit)).toEqual(['ch02', 'ch01']);
  });

  it('the launch budget (limits.max_launches) caps the redo queue: the rest stays queued, backed up, not launched', async () => {
    const units = ['ch01', 'ch02'];
    const files = researchedWithHalfDrafts(units);
    const root = makeWs({ units, files, limits: ['  max_launches: 1'] });
    await rewriteCheckpoint(root);
    const r = await room(root);
    await r.run('view.partials');
    await r.run('partial.conservative');
    await r.run('dialog.confirm');
    expect(r.st().redoQueue.map((q) => `${q.unit}/${q.step}`)).toEqual(['ch01/draft', 'ch02/draft']);

    await autopilotOn(r);
    await waitFor('ch01 draft done', () => r.events.some((e) => e.type === 'done' && e.unit === 'ch01' && e.step === 'draft'));
    const idle = await waitFor('autopilot idle on the budget', () => r.events.find((e): e is Extract<SupervisorEvent, { type: 'idle' }> => e.type === 'idle' && /budget/.test(e.reason)));
    // Issue 17 item 4: the budget's words name the key that raises it.
    expect(idle.reason).toContain('launch budget of this session used (1 of 1, limits.max_launches)');
    // The budget pauses autopilot (a global limit); the store flushes that, and from then on
    // nothing launches the queue.
    await waitFor('the store sees autopilot paused', () => {
      const snap = r.st().agents.snap;
      return !!snap && snap.autopilot.paused && !snap.autopilot.on && snap.runs.length === 0;
    });

    const ev = await journal(root);
    expect(launchesOf(ev).map((l) => `${l.unit}/${l.step}`)).toEqual(['ch01/draft']);
    expect(r.sup.snapshot().launchesThisSession).toBe(1);
    expect(lastLine(root, 'drafts/ch01-draft.md')).toBe('<!-- DRAFT_COMPLETE -->');
    // ch02 draft: not launched, still queued, its half-product still in its backup.
    expect(existsSync(join(root, 'drafts/ch02-draft.md'))).toBe(false);
    expect(readFileSync(join(root, `drafts/ch02-draft.md.bak.${STAMP}`), 'utf8')).toBe(HALF('ch02'));
    expect(r.st().redoQueue.map((q) => `${q.unit}/${q.step}`)).toEqual(['ch02/draft']);
  });
});

describe('a redo whose dependencies are not done is not launched', () => {
  // ch01 research cannot finish (the agent lacks a permission: never retried, escalated ⚠️);
  // ch01 draft is a half-product. The draft depends on the research.
  const setup = async () => {
    const root = makeWs({ units: ['ch01'], files: { 'drafts/ch01-draft.md': HALF('ch01') }, faults: { 'ch01/research': 'permission' } });
    await rewriteCheckpoint(root);
    return root;
  };
  const escalated = (sup: Supervisor) => sup.snapshot().ledger.cells['ch01/research']?.state === 'needs_human';

  it('supervisor autopilot alone: the plan says decide, not backup_redo; the half-product is left alone', async () => {
    const root = await setup();
    const config = await loadConfig(root);
    const events: SupervisorEvent[] = [];
    const sup = await openSupervisor({ root, config, onEvent: (e) => events.push(e) });
    opened.push({ store: null, live: null, sup });
    await sup.setAutopilot(true);
    await waitFor('research escalated', () => escalated(sup));
    await waitFor('autopilot idle', () => events.some((e) => e.type === 'idle') && sup.snapshot().runs.length === 0);

    const ev = await journal(root);
    expect(launchesOf(ev).map((l) => `${l.unit}/${l.step}`)).toEqual(['ch01/research']);
    expect(readFileSync(join(root, 'drafts/ch01-draft.md'), 'utf8')).toBe(HALF('ch01'));
    expect(backupsOf(root, 'drafts/ch01-draft.md')).toEqual([]);
    expect((await claims(root)).get('ch01/research')).toBe('needs_human');
    expect((await claims(root)).get('ch01/draft')).toBe('in_progress');
  });

  // launchQueued (src/ui/agents/slice.ts) once turned every queued redo into a `run` and
  // launched it on top of an escalated dependency; a redo waits for its dependencies, as in the plan.
  it('queued with d, then autopilot on: stays queued while its dependency is not done', async () => {
    const root = await setup();
    const r = await room(root);
    const draft = r.st().ws.next.find((n) => n.unit === 'ch01' && n.step === 'draft');
    // The plan: with research not done, only a human can decide about the draft.
    expect(draft?.action).toBe('decide');

    await r.run('view.partials');
    await r.run('partial.redo');
    expect(r.st().dialog?.title).toBe('Redo ch01 draft: back up the file and queue the step');
    await r.run('dialog.confirm');
    expect(r.st().redoQueue.map((q) => `${q.unit}/${q.step}`)).toEqual(['ch01/draft']);
    // Backed up and moved aside; the plan does not list the draft as runnable.
    expect(readFileSync(join(root, `drafts/ch01-draft.md.bak.${STAMP}`), 'utf8')).toBe(HALF('ch01'));
    expect(r.st().ws.next.some((n) => n.unit === 'ch01' && n.step === 'draft' && (n.action === 'run' || n.action === 'backup_redo'))).toBe(false);

    await autopilotOn(r);
    await waitFor('research escalated', () => escalated(r.sup));
    // Let the store look at the queue several times with autopilot on and nothing in flight.
    const seen = r.pushes();
    await waitFor('three more flushes', () => r.pushes() >= seen + 3 && r.sup.snapshot().runs.length === 0);

    const ev = await journal(root);
    // Expected: only the research was launched; the draft waits for it (and a human).
    expect(launchesOf(ev).map((l) => `${l.unit}/${l.step}`)).toEqual(['ch01/research']);
    expect(existsSync(join(root, 'drafts/ch01-draft.md'))).toBe(false);
    expect(r.st().redoQueue.map((q) => `${q.unit}/${q.step}`)).toEqual(['ch01/draft']);
  });
});
