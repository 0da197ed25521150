import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_SUPERVISOR, killChildren, quietAgentScript, startChild, supervisorScript, type Child } from '../helpers/child-supervisor.js';
import { until } from '../helpers/until.js';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../helpers/workspace.js';
import { readJournal } from '../../src/run/journal/journal.js';
import { lockPath } from '../../src/run/supervisor/lock.js';

// Issue 8 item 5, with real processes: a driver and one or two observers (each a real
// checkroom process running the built supervisor). Observers see the driver's running run
// (from its journal, with its log). The driver is killed with kill -9: exactly one observer
// takes the stale lock over, says so naming .checkroom/driver.lock, adopts the run and
// finishes it by its marker; the other stays an observer of the new driver.
//
// The agent prints one line and then only writes its output file: after a kill -9 nobody
// holds its stdout pipe any more (see the report: an agent that keeps printing would get
// EPIPE once its driver is gone; "leave running" hands the pipe to a drain, kill -9 cannot).

const AGENT = quietAgentScript(10, 600);

const DRIVER = supervisorScript(`s.subscribe((e) => { if (e.type === 'launch') process.stdout.write('LAUNCHED\\n'); });
void s.launch('ch01', 'research');
setInterval(() => {}, 1000);
`);

// An observer as the control room runs one: refresh every 200 ms (the UI does every second).
const OBSERVER = supervisorScript(`const say = (o) => process.stdout.write(JSON.stringify({ pid: process.pid, ...o }) + '\\n');
s.subscribe((e) => {
  if (e.type === 'done' || e.type === 'failed' || e.type === 'notice' || e.type === 'reaped') say({ ev: e.type, message: e.message });
});
let last = '';
const look = async () => {
  await s.refresh();
  const snap = s.snapshot();
  const view = { ev: 'snap', role: snap.role, holder: snap.holder?.pid ?? null, runs: snap.runs.map((r) => [r.unit, r.step, r.origin ?? 'own', r.lines.join('|')]) };
  const text = JSON.stringify(view);
  if (text !== last) { last = text; say(view); }
  setTimeout(look, 200);
};
void look();
`);

interface Said {
  pid: number;
  ev: string;
  role?: string;
  holder?: number | null;
  runs?: [string, string, string, string][];
  message?: string;
}

afterEach(killChildren);

const start = (script: string, root: string): Child & { said: Said[] } => {
  const said: Said[] = [];
  const c = startChild(script, [root], (l) => {
    if (l.startsWith('{')) said.push(JSON.parse(l) as Said);
  });
  return { ...c, said };
};

const makeWs = (): string => {
  const root = tempDir('checkroom-takeover-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'agent.mjs': AGENT, 'driver.mjs': DRIVER, 'observer.mjs': OBSERVER });
  writeFileSync(
    join(root, 'checkroom.yaml'),
    ['preset: book', 'units: { list: [ch01] }', 'agents:', '  researcher:', `    command: [node, ${JSON.stringify(join(root, 'agent.mjs'))}, '{output}', '{marker}']`, '    idle_timeout: 60s', '    grace: 300ms', ''].join('\n'),
  );
  return root;
};

describe('torture: the driver killed with kill -9 while observers watch', () => {
  it.each([1, 2])('with %i observer(s): one takes over, adopts the run and finishes it by its marker', { timeout: 120_000 }, async (n) => {
    expect(existsSync(DIST_SUPERVISOR), 'run `npm run build` first (npm test does)').toBe(true);
    const root = makeWs();
    const driver = start(join(root, 'driver.mjs'), root);
    await until('the driver to launch', () => driver.text().includes('LAUNCHED'));
    const observers = Array.from({ length: n }, () => start(join(root, 'observer.mjs'), root));
    const snaps = (o: { said: Said[] }): Said[] => o.said.filter((s) => s.ev === 'snap');
    const lastSnap = (o: { said: Said[] }): Said | undefined => snaps(o).at(-1);

    // Observers see what the driver sees: its run, running, with the log line it printed.
    for (const o of observers) {
      await until('an observer to see the driver run', () => {
        const s = lastSnap(o);
        return s?.role === 'readonly' && s.holder === driver.child.pid && !!s.runs?.some(([u, st, origin, lines]) => u === 'ch01' && st === 'research' && origin === 'driver' && lines.includes('starting'));
      });
    }

    driver.child.kill('SIGKILL');
    await until('an observer to drive', () => observers.some((o) => lastSnap(o)?.role === 'driver'));
    const winner = observers.find((o) => lastSnap(o)?.role === 'driver')!;
    const losers = observers.filter((o) => o !== winner);
    const notices = () => winner.said.filter((s) => s.ev === 'notice').map((s) => s.message ?? '');
    expect(notices().join('\n')).toMatch(/took over \.checkroom\/driver\.lock: it was stale \(held by pid \d+ on \S+; pid \d+ is gone\)/);
    expect(notices().join('\n')).toMatch(/adopted 1 run left running: ch01 research/);
    await until('the adopted run to finish', () => winner.said.some((s) => s.ev === 'done' || s.ev === 'failed'));
    expect(winner.said.find((s) => s.ev === 'done' || s.ev === 'failed')?.message).toMatch(/ch01 research: done — marker RESEARCH_COMPLETE is the last line \(adopted run/);

    // The others watch the new driver, and never drove.
    for (const o of losers) {
      await until('the other observer to follow the new driver', () => lastSnap(o)?.holder === winner.child.pid && lastSnap(o)?.runs?.length === 0);
      expect(snaps(o).every((s) => s.role === 'readonly')).toBe(true);
      // It announces the new driver's exit line once, as the driver's (issue 18 items 1-2:
      // an observer streams the journal's tail), never as a run it finished itself.
      expect(o.said.filter((s) => s.ev === 'done').map((s) => s.message)).toEqual(["ch01 research: done — the marker is the last line (the driver's run)"]);
    }
    expect(JSON.parse(readFileSync(lockPath(root), 'utf8')).pid).toBe(winner.child.pid);
    const out = readFileSync(join(root, 'research/ch01-research.md'), 'utf8');
    expect(out.trimEnd().endsWith('<!-- RESEARCH_COMPLETE -->')).toBe(true);
    const j = (await readJournal(root)).events;
    expect(j.filter((e) => e.type === 'reaped')).toEqual([]);
    expect(j.filter((e) => e.type === 'adopted')).toMatchObject([{ by: winner.child.pid }]);
    expect(j.filter((e) => e.type === 'exit')).toMatchObject([{ class: 'SUCCESS', exitCode: null, markerFound: true }]);
    expect(j.filter((e) => e.type === 'session' && e.kind === 'start').map((e) => (e as { pid: number }).pid)).toEqual([driver.child.pid, winner.child.pid]);
  });
});
