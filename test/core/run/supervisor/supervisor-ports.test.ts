import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/pipeline/config/config.js';
import type { Flight } from '../../../../src/run/attempt/cell-core.js';
import { budgetOf, emitterOf, launchGateOf, rolesOf } from '../../../../src/run/supervisor/context.js';
import { createSupervisorJournal } from '../../../../src/run/supervisor/journal.js';
import { cancelCell, launchCell, type LaunchPorts } from '../../../../src/run/supervisor/launch.js';
import type { CellRunner, JournalPort, Roles, SessionState } from '../../../../src/run/supervisor/ports.js';
import type { Role } from '../../../../src/run/supervisor/role.js';
import type { RunResult, SupervisorEvent } from '../../../../src/run/supervisor/types.js';
import { PHASE_1_2, REPO, summaries, tempDir, writeFiles } from '../../../helpers/workspace.js';

// The supervisor's parts run on their narrow ports alone (supervisor-ports.ts): each test
// hands a function only the ports its signature names — a real journal on a temp workspace,
// a fake CellRunner that records what it was asked — and no process is started. This is the
// first hop of "follow Enter to the marker" (docs/architecture.md): launchCell checks, then
// hands the cell to CellRunner.fly and to nothing else.

const T0 = 1_700_000_000_000;

/** A book workspace whose agent is never started here (the CellRunner is a fake): `limits` are extra lines under `limits:`. */
async function setUp(limits = '') {
  const root = tempDir('checkroom-ports-');
  const yaml = [
    'preset: book',
    'units: { list: [ch01, ch02] }',
    'batches: [{ id: 1, units: [ch01, ch02] }]',
    'agents:',
    '  researcher: &a',
    '    command: [node, -e, "0"]',
  ];
  for (const name of ['writer', 'reviewer', 'editor', 'panel', 'archivist']) yaml.push(`  ${name}: *a`);
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
    'checkroom.yaml': [...yaml, 'limits:', '  backoff_base: 20ms', limits].join('\n'),
  });
  const config = await loadConfig(root);
  const session: SessionState = { reserved: 0, closed: false, stopped: false };
  const sj = createSupervisorJournal({
    root,
    now: () => T0,
    ledgerCfg: { breaker: config.breaker, limits: config.limits },
    emit: () => undefined,
    onCooldownEnd: () => undefined,
    isClosed: () => session.closed,
  });
  await sj.load();
  const journal: JournalPort = { append: sj.append, ledger: sj.ledger, now: () => T0 };
  return { root, config, session, sj, journal };
}

const flown = () => {
  const calls: unknown[][] = [];
  const result: RunResult = { unit: 'ch01', step: 'research', outcome: 'done', class: 'SUCCESS', attempts: 1, reason: 'the marker proves it', logPath: null };
  const cells: Pick<CellRunner, 'fly'> = {
    fly: (...args) => {
      calls.push(args);
      return Promise.resolve(result);
    },
  };
  return { calls, cells, result };
};

const allow: Pick<Roles, 'refuse'> = { refuse: () => undefined };

const portsFor = (s: Awaited<ReturnType<typeof setUp>>, cells: Pick<CellRunner, 'fly'>, roles = allow): LaunchPorts => ({
  ready: Promise.resolve(),
  roles,
  ws: { root: s.root, config: s.config },
  journal: s.journal,
  budget: budgetOf(s.config, s.session),
  inFlight: { flights: new Map(), running: new Map() },
  probes: new Map(),
  cells,
});

const flightOf = (unit: string, step: string, resolved: boolean[]): Flight => ({
  unit,
  step,
  agent: 'researcher',
  handle: null,
  runId: null,
  attempt: 1,
  logPath: null,
  startedAt: T0,
  cancelled: false,
  wait: { timer: setTimeout(() => undefined, 0), retryAt: null, reason: 'backoff', resolve: (go) => void resolved.push(go) },
  prevClaim: null,
});

describe('supervisor ports: each part runs on the ports it names', () => {
  it('launchCell checks, then hands the cell to CellRunner.fly with its target and options', async () => {
    const s = await setUp();
    const { calls, cells, result } = flown();
    await expect(launchCell(portsFor(s, cells), 'ch01', 'research', { continue: false })).resolves.toBe(result);
    expect(calls).toHaveLength(1);
    const [unit, step, t, adopted, o] = calls[0] as [string, string, { agent: { name: string }; outputRel: string }, unknown, unknown];
    expect([unit, step, adopted, o]).toEqual(['ch01', 'research', null, { continueAsked: false, overBudget: false }]);
    expect(t.agent.name).toBe('researcher');
    expect(t.outputRel).toBe('research/ch01-research.md');
  });

  it('a refusal from Roles stops launchCell before anything is journalled or flown', async () => {
    const s = await setUp();
    const { calls, cells } = flown();
    const observer: Pick<Roles, 'refuse'> = {
      refuse: (what) => {
        throw new Error(`read-only: cannot ${what}`);
      },
    };
    await expect(launchCell(portsFor(s, cells, observer), 'ch01', 'research')).rejects.toThrow('read-only: cannot launch');
    expect(calls).toEqual([]);
    expect(s.sj.ledger().decisions).toEqual([]);
  });

  it("a spent budget refuses the launch; the operator's over-budget word flies it as such and journals the decision", async () => {
    const s = await setUp('  max_launches: 1');
    await s.journal.append({
      type: 'launch',
      at: T0,
      runId: 'r0',
      unit: 'ch02',
      step: 'research',
      agent: 'researcher',
      attempt: 1,
      argv: ['true'],
      cwd: s.root,
      logPath: join(s.root, 'r0.log'),
      pid: null,
      procStart: null,
      outputPath: join(s.root, 'x'),
    });
    await s.journal.append({
      type: 'exit',
      at: T0,
      runId: 'r0',
      unit: 'ch02',
      step: 'research',
      agent: 'researcher',
      exitCode: 0,
      signal: null,
      class: 'SUCCESS',
      markerFound: true,
      cmdFp: '',
      errFp: '',
      keywords: [],
      errorTail: [],
      durationMs: 1,
    });
    const { calls, cells } = flown();
    await expect(launchCell(portsFor(s, cells), 'ch01', 'research')).rejects.toThrow(/budget|launch/i);
    expect(calls).toEqual([]);
    await launchCell(portsFor(s, cells), 'ch01', 'research', { overBudget: true });
    expect(calls[0]![4]).toEqual({ continueAsked: false, overBudget: true });
    expect(s.sj.ledger().decisions.map((d) => d.kind)).toContain('over_budget');
  });

  it("cancelCell: the operator's cancel holds the cell, stamped by the journal's clock; a shutdown's does not", async () => {
    const s = await setUp();
    const resolved: boolean[] = [];
    const flights = new Map([
      ['ch01/research', flightOf('ch01', 'research', resolved)],
      ['ch02/research', flightOf('ch02', 'research', resolved)],
    ]);
    const ports = { roles: allow, inFlight: { flights }, journal: s.journal };
    expect(cancelCell(ports, 'ch01/research')).toBe(true);
    expect(cancelCell(ports, 'ch02/research', 'shutdown')).toBe(true);
    expect(cancelCell(ports, 'ch03/research')).toBe(false);
    expect(resolved).toEqual([false, false]);
    expect(flights.get('ch01/research')).toMatchObject({ cancelled: true, cancelledBy: 'operator' });
    expect(flights.get('ch02/research')).toMatchObject({ cancelled: true, cancelledBy: 'shutdown' });
    expect(
      s.sj
        .ledger()
        .decisions.filter((d) => d.kind === 'hold')
        .map((d) => [d.unit, d.at]),
    ).toEqual([['ch01', T0]]);
  });

  it('the launch gate counts a reservation against the budget until it is released', async () => {
    const s = await setUp('  max_launches: 1');
    const gate = launchGateOf({ config: s.config, journal: s.sj, budget: budgetOf(s.config, s.session), session: s.session, probes: new Map() });
    const f = flightOf('ch01', 'research', []);
    expect(gate.reserveLaunch(f)).toBeNull();
    expect(s.session.reserved).toBe(1);
    expect(gate.reserveLaunch(f)).toMatch(/launch/i);
    expect(gate.reserveLaunch({ ...f, overBudget: true })).toBeNull();
    gate.releaseLaunch();
    gate.releaseLaunch();
    gate.releaseLaunch();
    expect(s.session.reserved).toBe(0);
    expect(gate.reserveLaunch(f)).toBeNull();
  });

  it("Roles refuses with the lock's reason for an observer, and once the session is closed", () => {
    const lock = { role: 'readonly' as const, reason: 'pid 42 on host drives', release: () => undefined };
    const observer = { isDriver: false, lock } as unknown as Role;
    const session = { closed: false };
    expect(() => rolesOf('/', observer, session).refuse('launch')).toThrow('read-only: cannot launch; pid 42 on host drives');
    const driver = { isDriver: true, lock: { ...lock, role: 'driver' } } as unknown as Role;
    const roles = rolesOf('/', driver, session);
    expect(roles.isDriver()).toBe(true);
    expect(() => roles.refuse('launch')).not.toThrow();
    session.closed = true;
    expect(() => roles.refuse('launch')).toThrow('cannot launch: this supervisor is closed');
  });

  it('Emit makes every message one clean line and survives a subscriber that throws', () => {
    const got: SupervisorEvent[] = [];
    const listeners = new Set<(e: SupervisorEvent) => void>([
      () => {
        throw new Error('a subscriber bug');
      },
      (e) => got.push(e),
    ]);
    const emit = emitterOf({}, listeners);
    emit({ type: 'notice', message: 'ch01\u001b[31m red\nsecond line' });
    expect(got).toHaveLength(1);
    expect(got[0]!.message).not.toMatch(/[\u001b\n]/);
    expect(got[0]!.message).toContain('ch01');
  });
});

// The walk in docs/architecture.md names a function and the file it is in at every hop: a
// rename or a move that the walk does not follow fails here, so the doc cannot drift.
describe('docs/architecture.md, "Follow Enter to the marker"', () => {
  const section = (): string => {
    const doc = readFileSync(join(REPO, 'docs/architecture.md'), 'utf8');
    const from = doc.indexOf('## Follow Enter to the marker');
    expect(from).toBeGreaterThan(-1);
    const to = doc.indexOf('\n## ', from + 1);
    return doc.slice(from, to === -1 ? undefined : to);
  };

  it('every function it names is in the file it names, and every port is in supervisor-ports.ts', () => {
    const text = section();
    const hops = [...text.matchAll(/`(\w+)(?:\([^`]*\))?`\s+\(`((?:run|app|holders)\/[\w/.-]+\.ts)`/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(hops.map(([name]) => name)).toEqual(expect.arrayContaining(['launchCell', 'flyCell', 'runCell', 'runAttempt', 'provenDone', 'markCell']));
    for (const [name, file] of hops) {
      const path = join(REPO, 'src', file);
      expect(existsSync(path), `${file} exists`).toBe(true);
      expect(readFileSync(path, 'utf8'), `${name} in ${file}`).toMatch(new RegExp(`\\b${name}\\b`));
    }
    const ports = readFileSync(join(REPO, 'src/run/supervisor/ports.ts'), 'utf8');
    const table = [...text.matchAll(/^\| `(\w+)`(?:, `(\w+)`)? \|/gm)].flatMap((m) => [m[1]!, ...(m[2] ? [m[2]] : [])]);
    expect(table).toEqual(expect.arrayContaining(['JournalPort', 'Roles', 'AutopilotPort', 'CellRunner']));
    for (const port of table) expect(ports, port).toMatch(new RegExp(`export (?:interface|type) ${port}\\b`));
  });
});
