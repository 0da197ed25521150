import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { cutSign } from '../../../src/triage/triage.js';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { renderRoom, tick, unmountAll } from '../../helpers/ink.js';
import { REPO, doneFile, fakeAgentWorkspace, writeFiles } from '../../helpers/workspace.js';
import { settle } from '../../helpers/settle.js';
import { until } from '../../helpers/store.js';

// Issue 17 item 3, the finding as it happened: an SSH drop made checkroom cancel its running
// agents (a shutdown's cancel: no hold). The draft its writer was cut off in had two of its
// sections, each ending cleanly, so triage called it maybe_complete and offered `m`, and its
// plan entry turned from back-up-and-redo into "decide". Everything here is real: the demo's
// fake agent as a process, the supervisor the control room uses, the built binary for
// `status --json`, the control room in ink-testing-library for the Partials view.

const BIN = join(REPO, 'dist/bundle/checkroom.js');
const DRAFT = 'drafts/ch01-draft.md';
const open: Supervisor[] = [];

const stores: AppStore[] = [];

afterEach(async () => {
  for (const st of stores.splice(0)) disposeStore(st);
  await unmountAll();
  for (const s of open.splice(0)) await s.close({ cancel: true }).catch(() => undefined);
});

const statusJson = (root: string): Promise<{ partials: { path: string; verdict: string; reason: string }[]; next: { unit: string; step: string; action: string; reason: string }[] }> =>
  new Promise((resolve, reject) => {
    const p = spawn('node', [BIN, 'status', '--json', root], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (b: Buffer) => (out += b.toString()));
    p.stderr.on('data', (b: Buffer) => (err += b.toString()));
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`status --json exited ${code}: ${err}`))));
  });

const hhmm = (at: number): string => `${String(new Date(at).getHours()).padStart(2, '0')}:${String(new Date(at).getMinutes()).padStart(2, '0')}`;

/** A draft its writer was cut off in by a shutdown's cancel, two sections written; the exit's time. */
async function cutDraft(): Promise<{ root: string; at: number }> {
  const root = fakeAgentWorkspace('checkroom-cut-', { faults: { 'ch01/draft': 'cut_after_2' } });
  writeFiles(root, Object.fromEntries([doneFile('ch01', 'research')]));
  settle(root);
  const s = await openSupervisor({ root, config: await loadConfig(root) });
  open.push(s);
  let waiting = false;
  s.subscribe((e) => {
    if (e.type === 'output' && e.line.includes('waiting for the model')) waiting = true;
  });
  const run = s.launch('ch01', 'draft', { reason: 'test' });
  await until(() => waiting, 'the agent to write two sections and fall silent');
  // The SSH drop: checkroom's shutdown cancels its agents (not the operator's hold).
  await s.close({ cancel: true, reason: 'SIGHUP' });
  open.splice(open.indexOf(s), 1);
  await run.catch(() => undefined);
  const exit = (await readJournal(root)).events.find((e) => e.type === 'exit');
  expect(exit).toMatchObject({ class: 'CANCELLED', cancelledBy: 'shutdown', unit: 'ch01', step: 'draft' });
  const text = readFileSync(join(root, DRAFT), 'utf8');
  // Two sections, and an end that reads as finished: content alone says maybe_complete.
  expect(text).toContain('## 1. ');
  expect(text).not.toContain('## 2. ');
  expect(cutSign(text, false)).toBeNull();
  return { root, at: exit!.at };
}

describe('the journal is evidence (issue 17 item 3)', () => {
  it('a draft cut by a cancel: status --json and the Partials view say cut, with the event; the plan backs up and redoes; m warns', async () => {
    const { root, at } = await cutDraft();
    const cutReason = `cut when its writer was cancelled at ${hhmm(at)} (attempt 1, journal)`;
    const st = await statusJson(root);
    const p = st.partials.find((x) => x.path === DRAFT);
    expect(p).toMatchObject({ verdict: 'truncated' });
    expect(p!.reason).toContain(cutReason);
    expect(p!.reason).toMatch(/back up and redo$/);
    expect(st.next.find((n) => n.unit === 'ch01' && n.step === 'draft')).toMatchObject({ action: 'backup_redo' });
    // A second status (through the caches) says the same.
    expect((await statusJson(root)).partials.find((x) => x.path === DRAFT)?.reason).toContain(cutReason);

    // No quiet window (issue 17 item 1: `m` would refuse a file written seconds ago for that
    // reason); the file itself is left as its writer left it.
    appendFileSync(join(root, 'checkroom.yaml'), 'triage: { quiet_window: 0s }\n');
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, now: () => new Date(2026, 10, 30, 5, 12, 0) });
    const { frame, press } = await renderRoom(store, live, NO_COLOR_THEME, 30, 200);
    await press('2');
    await tick(50);
    expect(frame()).toContain('truncated');
    expect(frame()).toContain(cutReason);
    await press('m');
    await until(() => store.getState().dialog, 'the keep dialog');
    await tick(50);
    const f = frame();
    expect(f).toContain('although its writer was cancelled');
    expect(f).toContain(`its writer was cancelled at ${hhmm(at)} (attempt 1, journal) and the file has not changed since`);
  }, 60_000);

  it('run --next redoes it: the cut file is backed up and the step runs again to its marker', async () => {
    const { root } = await cutDraft();
    // The agent behaves this time; no quiet window (the file was written seconds ago).
    writeFileSync(join(root, 'faults.json'), JSON.stringify({ '*/*': 'ok' }));
    appendFileSync(join(root, 'checkroom.yaml'), 'triage: { quiet_window: 0s }\n');
    const cut = readFileSync(join(root, DRAFT), 'utf8');
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const p = spawn('node', [BIN, 'run', root, '--next', '--yes'], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      p.stdout.on('data', (b: Buffer) => (out += b.toString()));
      p.stderr.on('data', (b: Buffer) => (out += b.toString()));
      p.on('close', (code) => resolve({ code, out }));
    });
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(join(root, DRAFT), 'utf8')).toMatch(/<!-- DRAFT_COMPLETE -->\n$/);
    const backups = readdirSync(join(root, 'drafts')).filter((f) => f.startsWith('ch01-draft.md.bak'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(root, 'drafts', backups[0]!), 'utf8')).toBe(cut);
  }, 60_000);

  it('touching the file after the exit ends the evidence: the exit recorded its size and mtime, not a clock', async () => {
    const { root } = await cutDraft();
    const exit = (await readJournal(root)).events.find((e) => e.type === 'exit');
    const st = statSync(join(root, DRAFT));
    expect(exit).toMatchObject({ output: { bytes: st.size, mtimeMs: st.mtimeMs } });
    // Set back an hour, before the exit's time: still not the file its writer left.
    settle(root, 3_600_000);
    expect((await statusJson(root)).partials.find((x) => x.path === DRAFT)?.verdict).toBe('maybe_complete');
  }, 60_000);

  it('the same file finished by hand after the exit is judged by its content again', async () => {
    const { root } = await cutDraft();
    expect((await statusJson(root)).partials.find((x) => x.path === DRAFT)?.verdict).toBe('truncated');
    appendFileSync(join(root, DRAFT), '\n## 2. Finished by hand\n\nThe operator wrote the rest of it.\n');
    const p = (await statusJson(root)).partials.find((x) => x.path === DRAFT);
    expect(p).toMatchObject({ verdict: 'maybe_complete' });
    expect(p!.reason).not.toContain('writer was');
    // And a file put back as it was, but written after the exit, is the operator's too.
    writeFileSync(join(root, DRAFT), readFileSync(join(root, DRAFT), 'utf8'));
    expect((await statusJson(root)).next.find((n) => n.unit === 'ch01' && n.step === 'draft')).toMatchObject({ action: 'decide' });
  }, 60_000);

  it('in a control room: a run the idle watchdog stopped turns its file cut, without a rescan', async () => {
    const root = fakeAgentWorkspace('checkroom-cut-live-', { faults: { 'ch01/draft': 'cut_after_2' } });
    writeFiles(root, Object.fromEntries([doneFile('ch01', 'research')]));
    // One attempt for a stall: the retry would write the file again.
    appendFileSync(join(root, 'checkroom.yaml'), '  caps: { STALLED: 1 }\n');
    settle(root);
    const config = await loadConfig(root);
    config.agents.writer!.idleTimeoutMs = 1500;
    const sup = await openSupervisor({ root, config });
    open.push(sup);
    const live = await createLiveWorkspace(root, { watch: false });
    const store = createAppStore({ live, now: () => new Date(2026, 10, 30, 5, 12, 0), agents: { sup, config, flushMs: 50 } });
    stores.push(store);
    const partial = () => store.getState().ws.partials.find((p) => p.path === DRAFT);
    await sup.launch('ch01', 'draft', { reason: 'test' });
    const exit = (await readJournal(root)).events.find((e) => e.type === 'exit');
    expect(exit).toMatchObject({ class: 'STALLED' });
    const p = await until(() => partial()?.why?.k === 'writer_cut' && partial(), 'the live state to take the journal\'s word', 10_000);
    expect(p.verdict).toBe('truncated');
    expect(p.reason).toContain(`cut when its writer was stopped by the idle watchdog at ${hhmm(exit!.at)} (attempt 1, journal)`);
  }, 60_000);

  it('an SSH drop that took checkroom and its agent down: the restart finds the run gone, and the file is cut by that', async () => {
    const root = fakeAgentWorkspace('checkroom-cut-lost-', { faults: { 'ch01/draft': 'cut_after_2' } });
    writeFiles(root, Object.fromEntries([doneFile('ch01', 'research')]));
    settle(root);
    // checkroom as its own process (restart-kill9.test.ts), so it can die without a word.
    const script = join(root, 'checkroom-proc.mjs');
    writeFileSync(
      script,
      `import { openSupervisor } from ${JSON.stringify(join(REPO, 'dist/src/run/supervisor/supervisor.js'))};
import { loadConfig } from ${JSON.stringify(join(REPO, 'dist/src/pipeline/config/config.js'))};
const root = process.argv[2];
const s = await openSupervisor({ root, config: await loadConfig(root) });
s.subscribe((e) => { if (e.type === 'output' && /waiting for the model/.test(e.line)) process.stdout.write('MIDRUN\\n'); });
await s.launch('ch01', 'draft');
`,
    );
    const child = spawn(process.execPath, [script, root], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('MIDRUN') && resolve());
      child.on('exit', (code) => reject(new Error(`checkroom exited early (${code})`)));
    });
    const launch = (await readJournal(root)).events.find((e) => e.type === 'launch');
    child.kill('SIGKILL');
    process.kill(-(launch as { pid: number }).pid, 'SIGKILL');
    await until(() => child.exitCode !== null || child.signalCode !== null, 'checkroom to die');
    const s = await openSupervisor({ root, config: await loadConfig(root) });
    open.push(s);
    const reaped = (await readJournal(root)).events.find((e) => e.type === 'reaped');
    expect(reaped).toMatchObject({ outcome: 'gone' });
    const p = (await statusJson(root)).partials.find((x) => x.path === DRAFT);
    expect(p).toMatchObject({ verdict: 'truncated' });
    expect(p!.reason).toContain(`cut when its writer was lost (gone at a restart, its end never recorded) at ${hhmm(reaped!.at)} (attempt 1, journal)`);
  }, 60_000);
});
