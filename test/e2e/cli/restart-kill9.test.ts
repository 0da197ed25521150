import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_SUPERVISOR, printed, startChild, supervisorScript } from '../../helpers/child-supervisor.js';
import { tempDir, writeFakeAgentWs } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { readJournal, type LaunchEvent } from '../../../src/run/journal/journal.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import { groupMembers, isSameProcessAlive } from '../../../src/run/process/proc.js';
import { openSupervisor, type SupervisorEvent } from '../../../src/run/supervisor/supervisor.js';

// kill -9 of a real checkroom process mid-run, then a restart: the journal is the state.
// The checkroom process runs the built supervisor (dist/, built by `npm test`).
// Issue 8 item 4 changed what this asserts: the orphan still runs as recorded (pid and start
// time), so the restart ADOPTS it instead of reaping it; cancelled, it leaves its half-product.

const makeWs = (): string =>
  writeFakeAgentWs(tempDir('checkroom-kill9-'), {
    units: ['ch01', 'ch02', 'ch03'],
    batched: false,
    faults: { 'ch01/research': 'permission', 'ch03/draft': 'hang' },
    speed: 20,
    idle: '60s',
    grace: '300ms',
    roles: ['writer'],
    tail: ['breaker: { threshold: 1, cooldown: 10m, max_cooldown: 20m }'],
  });

// The checkroom process: one escalation (counters, an open breaker), then a run that hangs mid-write.
const SCRIPT = supervisorScript(`const r = await s.launch('ch01', 'research');
s.subscribe((e) => { if (e.type === 'output' && /waiting for the model/.test(e.line)) process.stdout.write('MIDRUN\\n'); });
process.stdout.write('FIRST ' + r.outcome + '\\n');
await s.launch('ch03', 'draft');
`);

describe('restart after kill -9', () => {
  it('adopts the orphaned run, keeps counters and breaker state; cancelled, it leaves the half-product for triage', async () => {
    expect(existsSync(DIST_SUPERVISOR), 'run `npm run build` first (npm test does)').toBe(true);
    const root = makeWs();
    const script = join(root, 'checkroom-proc.mjs');
    writeFileSync(script, SCRIPT);
    const proc = startChild(script, [root]);
    const child = proc.child;
    await printed(proc, 'MIDRUN');
    expect(proc.out()).toContain('FIRST escalated');
    const config = await loadConfig(root);
    const cfg = { breaker: config.breaker, limits: config.limits };
    const before = replayJournal((await readJournal(root)).events, Date.now(), cfg);
    const live = before.liveRuns[0] as Omit<LaunchEvent, 'type' | 'v'>;
    expect(live).toMatchObject({ unit: 'ch03', step: 'draft' });
    expect(isSameProcessAlive(live.pid!, live.procStart)).toBe(true);

    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    // The agent survived its checkroom (its own process group): an orphan mid-write.
    expect(isSameProcessAlive(live.pid!, live.procStart)).toBe(true);
    const half = readFileSync(join(root, 'drafts/ch03-draft.md'), 'utf8');
    expect(half.length).toBeGreaterThan(0);
    expect(half).not.toContain('DRAFT_COMPLETE');

    const events: SupervisorEvent[] = [];
    const s = await openSupervisor({ root, config, onEvent: (e) => events.push(e) });
    try {
      expect(s.snapshot().role).toBe('driver'); // the dead driver's lock is stale
      expect(events.filter((e) => e.type === 'reaped')).toEqual([]);
      expect(s.snapshot().runs).toMatchObject([{ runId: live.runId, unit: 'ch03', step: 'draft', origin: 'adopted' }]);
      expect(isSameProcessAlive(live.pid!, live.procStart)).toBe(true);
      const j = (await readJournal(root)).events;
      expect(j.some((e) => e.type === 'adopted' && e.runId === live.runId)).toBe(true);

      const after = s.snapshot().ledger;
      expect(after.liveRuns).toMatchObject([{ runId: live.runId, adoptedBy: process.pid }]);
      expect(after.consecutiveFailures).toBe(before.consecutiveFailures);
      expect(after.consecutiveFailures).toBe(1);
      expect(after.cells['ch01/research']!.attempts).toEqual(before.cells['ch01/research']!.attempts);
      expect(after.cells['ch01/research']!.state).toBe('needs_human');
      const bBefore = before.agents['researcher']!;
      const bAfter = after.agents['researcher']!;
      expect(bAfter.breaker).toEqual(bBefore.breaker);
      expect(bAfter.view.state).toBe('open');
      expect(bAfter.view.remainingMs).toBeGreaterThan(0);
      expect(bAfter.view.remainingMs).toBeLessThanOrEqual(bBefore.view.remainingMs);
      await expect(s.launch('ch02', 'research')).rejects.toThrow(/breaker researcher open/);

      // The operator cancels the adopted hang: its whole group is stopped, the exit journalled.
      expect(s.cancel('ch03/draft')).toBe(true);
      const until = Date.now() + 20_000;
      while (!events.some((e) => e.type === 'cancelled') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(isSameProcessAlive(live.pid!, live.procStart)).toBe(false);
      expect(groupMembers(live.pid!)).toHaveLength(0);
      expect((await readJournal(root)).events.find((e) => e.type === 'exit' && e.runId === live.runId)).toMatchObject({ class: 'CANCELLED', exitCode: null });
      expect(s.snapshot().ledger.liveRuns).toHaveLength(0);

      // The half-product is left where it was, for triage.
      expect(readFileSync(join(root, 'drafts/ch03-draft.md'), 'utf8')).toBe(half);
      const state = await loadWorkspace(root, { config });
      expect(state.cells.find((c) => c.unit === 'ch03' && c.step === 'draft')!.status).toBe('partial');
      expect(state.partials.map((p) => p.path)).toContain('drafts/ch03-draft.md');
    } finally {
      await s.close({ cancel: true });
    }
  });
});
