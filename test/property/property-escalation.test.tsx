import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink-testing-library';
import { FAILURE_CLASS_TABLE } from '../../src/pipeline/failure-classes.js';
import { loadConfig } from '../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../src/run/supervisor/supervisor.js';
import { readJournal } from '../../src/run/journal/journal.js';
import { createLiveWorkspace, type LiveWorkspace } from '../../src/live/live-workspace.js';
import { createAppStore, disposeStore, type AppStore } from '../../src/ui/store/store.js';
import { NO_COLOR_THEME } from '../../src/text/theme.js';
import { startControlServer, type ControlServer } from '../../src/socket/server.js';
import { openControl } from '../../src/socket/client.js';
import { ControlRoom } from '../../components/ControlRoom.js';
import { statusText } from '../helpers/status-text.js';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../helpers/workspace.js';
import { healthOf, planRowsOf } from '../helpers/gen-facts.js';

// Issue 18 item 2, escalations of every failure class through every surface that names one:
// a real driver runs a real agent (sh) that fails each chapter's research as one class of
// FAILURE_CLASS_TABLE (an agent rule per chapter), until the policy escalates it; UNKNOWN's
// cap is raised so its third identical failure is caught as CIRCULAR_FIX (the case:
// Plan and Health said CIRCULAR_FIX, the status line and the `escalation` event UNKNOWN).
// For each escalated cell the journal's `escalate` class is what the status line, the
// `watch --json` escalation event and the Plan's reason name, and Health lists it escalated.

const CLASSES = FAILURE_CLASS_TABLE.map((r) => r.name);
const unitOf = (i: number) => `ch${String(i + 1).padStart(2, '0')}`;
const UNITS = CLASSES.map((_, i) => unitOf(i));
const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

let root = '';
let sup: Supervisor;
let live: LiveWorkspace;
let store: AppStore;
let server: ControlServer | null;
let unmount: () => void = () => undefined;
const watched: string[] = [];
const said: string[] = [];
let frames: { plan: string; health: string };
let escalations: Map<string, string>;

beforeAll(async () => {
  root = tempDir('checkroom-prop-escalate-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      `units: { list: [${UNITS.join(', ')}] }`,
      'agents:',
      '  researcher:',
      `    command: [sh, -c, 'echo "fail-as-$1: the same failure"; exit 1', sh, '{unit}']`,
      '    grace: 200ms',
      '    rules:',
      ...CLASSES.map((c, i) => `      - { match: 'fail-as-${unitOf(i)}:', class: ${c} }`),
      'limits:',
      '  backoff_base: 10ms',
      '  backoff_max: 20ms',
      '  max_launches: 500',
      '  max_consecutive_failures: 500',
      '  caps: { UNKNOWN: 5 }',
      'breaker: { threshold: 500, cooldown: 1s }',
      '',
    ].join('\n'),
  );
  const config = await loadConfig(root);
  sup = await openSupervisor({ root, config });
  live = await createLiveWorkspace(root, { watch: false });
  store = createAppStore({ live, agents: { sup, config, flushMs: 0 } });
  store.subscribe((s, prev) => {
    if (s.message && s.message !== prev.message) said.push(s.message.text);
  });
  const env = { ...process.env, XDG_RUNTIME_DIR: tempDir('checkroom-xdg-') };
  server = await startControlServer(root, { live, sup, pointer: false, env }, statusText());
  const opened = await openControl(root, 'watch', { env });
  if (!opened.ok) throw new Error(opened.why);
  let buf = opened.rest.toString('utf8');
  opened.sock.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    watched.push(...lines.filter(Boolean));
  });
  opened.sock.resume();
  const r = render(<ControlRoom store={store} theme={NO_COLOR_THEME} />);
  unmount = () => {
    opened.sock.destroy();
    r.unmount();
  };
  Object.defineProperty(r.stdout, 'rows', { value: 48, configurable: true });
  Object.defineProperty(r.stdout, 'columns', { value: 200, configurable: true });
  r.stdout.emit('resize');
  for (const u of UNITS) await sup.launch(u, 'research');
  await tick(50);
  await store.getState().idle();
  await live.settled();
  const frame = () => stripVTControlCharacters(r.lastFrame() ?? '');
  const view = async (key: string, title: string) => {
    r.stdin.write(key);
    for (let i = 0; i < 500 && !frame().includes(`[${key} ${title}`); i++) await tick(10);
    await tick(60);
    return frame();
  };
  frames = { plan: await view('3', 'Plan'), health: await view('5', 'Health') };
  escalations = new Map((await readJournal(root)).events.flatMap((e) => (e.type === 'escalate' ? [[`${e.unit}/${e.step}`, e.class] as [string, string]] : [])));
}, 600_000);

afterAll(async () => {
  unmount();
  await server?.close();
  disposeStore(store);
  await live.close();
  await sup.close({ cancel: true });
});

const classIn = (text: string): string | null => new RegExp(`\\b(${CLASSES.join('|')})\\b`).exec(text)?.[1] ?? null;

describe('escalations of every failure class name one class on every surface (issue 18 item 2)', () => {
  it('the journal escalated the cells, and CIRCULAR_FIX among them (the issue\'s case)', () => {
    expect(escalations.size, readFileSync(join(root, '.checkroom', 'journal.jsonl'), 'utf8').slice(-3000)).toBeGreaterThan(CLASSES.length / 2);
    expect([...escalations.values()]).toContain('CIRCULAR_FIX');
  });

  it('the `escalation` event of watch --json names the class the journal escalated', () => {
    const events = watched.map((l) => JSON.parse(l) as { type: string; unit?: string; step?: string; class?: string }).filter((e) => e.type === 'escalation');
    const got = Object.fromEntries(events.map((e) => [`${e.unit}/${e.step}`, e.class]));
    expect(got).toEqual(Object.fromEntries(escalations));
  });

  it('the status line names the class the journal escalated', () => {
    const got: Record<string, string | null> = {};
    for (const t of said) {
      const m = /^(ch\d\d) (\S+): escalated/.exec(t);
      if (m) got[`${m[1]}/${m[2]}`] = classIn(t);
    }
    expect(got).toEqual(Object.fromEntries(escalations));
  });

  it('the Plan says each escalated, naming its class; Health lists each escalated', () => {
    const plan = Object.fromEntries(planRowsOf(frames.plan).filter((r) => /^escalated/.test(r.reason)).map((r) => [`${r.unit}/${r.step}`, classIn(r.reason)]));
    const health = healthOf(frames.health);
    expect({ plan }).toEqual({ plan: Object.fromEntries(escalations) });
    for (const k of escalations.keys()) expect(health.cells.get(k)?.state, `${k} in Health:\n${frames.health}`).toMatch(/escalated/);
  });
});
