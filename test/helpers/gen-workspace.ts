import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FAILURE_CLASS_TABLE } from '../../src/pipeline/failure-classes.js';
import type { NewJournalEvent } from '../../src/run/journal/journal.js';
import type { Rand } from './gen-rand.js';
import { BOOK_MARKERS, PHASE_1_2, marked, pathOf, prose, summaries, tempDir, writeFiles } from './workspace.js';

// Random workspaces and journals for the surfaces property (issue 18 item 2): a book on real
// files in a temp directory — steps done, missing, half-written or suspiciously tiny, a
// checkpoint.md that claims things (some of them stale) — and a `.checkroom/journal.jsonl` in
// the journal's own event format (src/run/journal/journal.ts): sessions, launches, exits of every
// failure class, retries, escalations, breaker actions and trips, cancels, adoptions by
// another instance, autopilot on and off, spend. Everything is fixed by the seed and the
// clock `now`; nothing reads the wall clock.

/** The clock every surface is read at: 2026-11-30 05:12:00 UTC. */
export const GEN_NOW = Date.UTC(2026, 10, 30, 5, 12, 0);

/** The book's phase-3 steps with their agents (src/pipeline/book-preset.ts). */
export const GEN_STEPS = [
  ['research', 'researcher'],
  ['draft', 'writer'],
  ['r1', 'reviewer'],
  ['r2', 'reviewer'],
  ['r3', 'reviewer'],
  ['review', 'editor'],
  ['panel', 'panel'],
] as const;

export const GEN_AGENTS = ['researcher', 'writer', 'reviewer', 'editor', 'panel', 'archivist', 'publisher'] as const;

/** Breaker settings of every generated workspace: short enough for countdowns, long enough to see. */
export const GEN_BREAKER = { threshold: 2, cooldownS: 60, maxCooldownS: 240 };

const FAILURES = [...FAILURE_CLASS_TABLE.map((r) => r.name), 'CANCELLED'] as const;

type Disk = 'none' | 'done' | 'half' | 'tiny';
const CLAIMS = ['✅', '⏳', '❌', '⚠️', '—'] as const;

export interface GenCase {
  seed: number;
  root: string;
  units: string[];
  now: number;
  /** What was written, for the failure message. */
  disk: Record<string, Disk>;
  journal: NewJournalEvent[];
  /** The journal's tail, appended once the surfaces are open: what a driver writes while an observer watches. */
  delta: NewJournalEvent[];
}

const checkpointOf = (units: string[], claims: Record<string, string>, batches: string[][]): string => {
  const head = '| 章节 | 研究 | 写作 | R1审查 | R2审查 | R3审查 | 合并审查 | 读者评审 | 长记忆更新 |\n|------|------|------|--------|--------|--------|---------|---------|-----------|';
  const rows = (us: string[]) => us.map((u) => `| ${u} | ${[...GEN_STEPS.map(([s]) => claims[`${u}/${s}`]), claims[`${u}/memory`]].join(' | ')} |`).join('\n');
  return [
    '# Generated book — 项目进度检查点',
    '',
    '最后更新: 2026-11-30 04:00',
    '当前Phase: 3',
    `当前批次: Batch ${batches.length}`,
    '',
    '## Phase 1: 大纲定稿 — ✅ 完成',
    '## Phase 2: 共享资源构建 — ✅ 完成',
    '',
    '## Phase 3: 逐章写作 — ⏳ 进行中',
    '',
    ...batches.flatMap((b, i) => [`### Batch ${i + 1}`, head, rows(b), '']),
    '## Phase 4: 统稿审计 — 未开始',
    '',
    `图例: ✅完成 ⏳进行中 ❌失败 ⚠️需人工确认 — 未开始 (${units.length} chapters)`,
    '',
  ].join('\n');
};

/** The files of one random book: per cell a disk state, per cell a checkpoint claim. */
function writeBook(r: Rand, root: string, units: string[]): { disk: Record<string, Disk>; batches: string[][] } {
  const disk: Record<string, Disk> = {};
  const claims: Record<string, string> = {};
  const files: Record<string, string> = { ...PHASE_1_2 };
  for (const u of units) {
    // Mostly a prefix of done steps, as a pipeline leaves it; then noise.
    const doneUpTo = r.int(0, GEN_STEPS.length);
    GEN_STEPS.forEach(([s], i) => {
      let d: Disk = i < doneUpTo ? 'done' : i === doneUpTo && r.chance(0.5) ? 'half' : 'none';
      if (r.chance(0.12)) d = r.pick(['none', 'done', 'half', 'tiny'] as const);
      disk[`${u}/${s}`] = d;
      const [, marker] = BOOK_MARKERS[s];
      if (d === 'done') files[pathOf(u, s)] = marked(`# ${u} ${s}\n\n${prose(r.int(300, 900))}`, marker);
      if (d === 'half') files[pathOf(u, s)] = `# ${u} ${s}\n\n${prose(r.int(40, 1500))}`;
      if (d === 'tiny') files[pathOf(u, s)] = marked('ok', marker);
      // The checkpoint agrees most of the time; a stale claim otherwise.
      claims[`${u}/${s}`] = r.chance(0.7) ? (d === 'done' ? '✅' : d === 'none' ? '—' : '⏳') : r.pick(CLAIMS);
    });
    claims[`${u}/memory`] = r.chance(0.7) ? '—' : r.pick(CLAIMS);
    // Now and then the final chapter is written already: its long-memory entry is then expected (src/memory/sources.ts).
    if (r.chance(0.2)) files[pathOf(u, 'final')] = marked(`# ${u}\n\n${prose(r.int(300, 900))}`, BOOK_MARKERS.final[1]);
  }
  const summarised = units.filter((u) => disk[`${u}/panel`] === 'done' && r.chance(0.5));
  files['meta/chapter-summaries.md'] = summaries(summarised);
  const cut = r.int(1, units.length);
  const batches = cut < units.length && r.chance(0.5) ? [units.slice(0, cut), units.slice(cut)] : [units];
  if (r.chance(0.85)) files['checkpoint.md'] = checkpointOf(units, claims, batches);
  writeFiles(root, files);
  return { disk, batches };
}

const configOf = (units: string[], batches: string[][], o: { maxLaunches: number; maxConsecutive: number }): string =>
  [
    'preset: book',
    `units: { list: [${units.join(', ')}] }`,
    `batches: [${batches.map((b, i) => `{ id: ${i + 1}, units: [${b.join(', ')}] }`).join(', ')}]`,
    'agents:',
    // Never launched: every surface is read from a read-only instance.
    '  researcher: &a',
    "    command: ['false', '{unit}', '{step}']",
    '  writer: *a',
    '  reviewer: *a',
    '  editor: *a',
    '  panel: *a',
    '  archivist: *a',
    '  publisher: *a',
    'limits:',
    `  max_launches: ${o.maxLaunches}`,
    `  max_consecutive_failures: ${o.maxConsecutive}`,
    'breaker:',
    `  threshold: ${GEN_BREAKER.threshold}`,
    `  cooldown: ${GEN_BREAKER.cooldownS}s`,
    `  max_cooldown: ${GEN_BREAKER.maxCooldownS}s`,
    '',
  ].join('\n');

/** A step's output: memory is the chapter's entry in the one shared summaries file. */
const outputOf = (u: string, step: string): string => (step === 'memory' ? 'meta/chapter-summaries.md' : pathOf(u, step));

/** A journal of one or two sessions ending before `now`, in the events' real shapes. */
function journalOf(r: Rand, root: string, units: string[], now: number): NewJournalEvent[] {
  const ev: NewJournalEvent[] = [];
  // The memory step too (the archivist's one shared file): the issue's ch01 memory listed twice.
  const steps = [...GEN_STEPS, ['memory', 'archivist'] as const];
  // Old enough that every event fits before now; the last events land inside a breaker's cooldown.
  let at = now - r.int(20, 600) * 1000;
  const tick = () => (at += r.int(200, 15_000));
  let runs = 0;
  const live = new Map<string, { unit: string; step: string; agent: string; attempt: number }>();
  const attempts = new Map<string, number>();
  ev.push({ type: 'session', at, kind: 'start', pid: 4_000_000 + r.int(0, 99_999) });
  const n = r.int(0, 24);
  for (let i = 0; i < n; i++) {
    tick();
    const u = r.pick(units);
    const [step, agent] = r.pick(steps);
    const key = `${u}/${step}`;
    const roll = r.next();
    const busy = [...live.values()].some((x) => x.unit === u && x.step === step);
    if (roll < 0.45 && !busy) {
      // One writer per output (src/run/process/writers.ts): a cell with a live run is not launched again.
      // A launch, and most often its exit.
      const runId = `run-${r.seed.toString(36)}-${++runs}`;
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      const out = outputOf(u, step);
      ev.push({ type: 'launch', at, runId, unit: u, step, agent, attempt, argv: ['false', u, step], cwd: root, logPath: join(root, '.checkroom', 'runs', `${runId}.log`), pid: null, procStart: null, outputPath: join(root, out) });
      if (r.chance(0.25)) {
        live.set(runId, { unit: u, step, agent, attempt });
        if (r.chance(0.3)) ev.push({ type: 'adopted', at: tick(), runId, pid: 4_100_000 + r.int(0, 99_999), by: 4_200_000 + r.int(0, 99_999) });
        continue;
      }
      tick();
      const cls = r.chance(0.3) ? 'SUCCESS' : r.pick(FAILURES);
      ev.push({
        type: 'exit',
        at,
        runId,
        unit: u,
        step,
        agent,
        exitCode: cls === 'SUCCESS' ? 0 : 1,
        signal: null,
        class: cls,
        markerFound: cls === 'SUCCESS',
        cmdFp: `c${r.int(0, 2)}`,
        errFp: `e${r.int(0, 2)}`,
        keywords: ['error'],
        errorTail: cls === 'SUCCESS' ? [] : [`${cls.toLowerCase()} in ${u} ${step}`],
        error: cls === 'SUCCESS' ? undefined : `${cls.toLowerCase()} in ${u} ${step}`,
        ...(cls === 'CANCELLED' ? { cancelledBy: r.pick(['operator', 'outside', 'shutdown'] as const) } : {}),
        durationMs: r.int(100, 9000),
      });
      if (r.chance(0.3)) ev.push({ type: 'agent_facts', at, runId, unit: u, step, agent, sessionId: null, costUsd: r.int(1, 300) / 100, tokensIn: r.int(0, 5000), tokensOut: r.int(0, 5000), cacheRead: 0, cacheWrite: 0, apiRetries: 0, cutMidTool: false });
      if (cls !== 'SUCCESS' && cls !== 'CANCELLED') {
        if (r.chance(0.35)) ev.push({ type: 'retry_scheduled', at, unit: u, step, attempt: attempt + 1, delayMs: r.int(1, 120) * 1000, reason: `${cls} — retrying` });
        else if (r.chance(0.4)) ev.push({ type: 'escalate', at, unit: u, step, class: r.chance(0.8) ? (cls as never) : 'CIRCULAR_FIX', reason: `${cls}: needs a human` });
      }
    } else if (roll < 0.55 && live.size) {
      // A run left alive earlier ends now (reaped by another instance).
      const [runId] = r.pick([...live]);
      live.delete(runId);
      ev.push({ type: 'reaped', at, runId, pid: null, outcome: 'gone' });
    } else if (roll < 0.65) {
      ev.push({ type: 'breaker', at, agent, event: r.pick(['reset', 'hold', 'release', 'failure', 'failure'] as const), summary: 'UNKNOWN: by hand' });
    } else if (roll < 0.75) {
      ev.push({ type: 'autopilot', at, on: r.chance(0.5), reason: r.pick(['operator', 'budget', 'kept from the driver']) });
    } else if (roll < 0.82) {
      ev.push({ type: 'decision', at, kind: r.pick(['hold', 'release', 'reset_cell'] as const), unit: u, step });
    } else if (roll < 0.87) {
      ev.push({ type: 'session', at, kind: 'stop', pid: 4_000_001, reason: 'quit' });
      ev.push({ type: 'session', at: tick(), kind: 'start', pid: 4_000_002 });
    } else if (!busy) {
      // The policy stops a cell between attempts, never while its run is live.
      ev.push({ type: 'escalate', at, unit: u, step, class: r.pick(FAILURE_CLASS_TABLE.map((x) => x.name)), reason: 'stopped by policy' });
    }
  }
  // Trip a breaker near the end most of the time, so a countdown is on the screens.
  const [tripStep, agent] = r.pick(steps);
  const tripUnit = r.pick(units);
  if (r.chance(0.6) && ![...live.values()].some((x) => x.unit === tripUnit && x.step === tripStep)) {
    const [step, u] = [tripStep, tripUnit];
    // Tripped inside the last cooldown most of the time: the countdown is on the screens.
    at = Math.max(at, now - r.int(2, GEN_BREAKER.cooldownS - 5) * 1000);
    for (let k = 0; k < GEN_BREAKER.threshold; k++) {
      const runId = `run-${r.seed.toString(36)}-${++runs}`;
      const attempt = (attempts.get(`${u}/${step}`) ?? 0) + 1;
      attempts.set(`${u}/${step}`, attempt);
      at = Math.min(now - 1000, at + r.int(100, 2000));
      ev.push({ type: 'launch', at, runId, unit: u, step, agent, attempt, argv: ['false'], cwd: root, logPath: join(root, '.checkroom', 'runs', `${runId}.log`), pid: null, procStart: null, outputPath: join(root, outputOf(u, step)) });
      ev.push({ type: 'exit', at, runId, unit: u, step, agent, exitCode: 1, signal: null, class: 'UNKNOWN', markerFound: false, cmdFp: 'c', errFp: 'e', keywords: [], errorTail: ['boom'], error: 'boom', durationMs: 10 });
    }
  }
  return ev.map((e) => ({ ...e, at: Math.min(e.at, now - 1) }));
}

/** A session's todo table (DOMAIN.md section 7) for some cells, now and then with what it warns about: a dangling dependency, an unknown status. */
function writeTodos(r: Rand, root: string, units: string[], disk: Record<string, Disk>): void {
  const d = new Database(join(root, 'todos.db'));
  try {
    d.exec(`CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT NOT NULL, description TEXT, status TEXT DEFAULT 'pending', created_at TEXT DEFAULT CURRENT_TIMESTAMP, updated_at TEXT DEFAULT CURRENT_TIMESTAMP);
      CREATE TABLE todo_deps (todo_id TEXT, depends_on TEXT, PRIMARY KEY(todo_id, depends_on));`);
    const add = d.prepare('INSERT INTO todos (id, title, status) VALUES (?, ?, ?)');
    const dep = d.prepare('INSERT INTO todo_deps VALUES (?, ?)');
    for (const u of units) {
      let prev: string | null = null;
      for (const [s] of GEN_STEPS) {
        const id = `${u}-${s}`;
        add.run(id, `${u} ${s}`, r.chance(0.08) ? 'someday' : disk[`${u}/${s}`] === 'done' ? 'done' : r.pick(['pending', 'pending', 'in_progress', 'blocked']));
        if (prev) dep.run(id, prev);
        prev = id;
      }
    }
    if (r.chance(0.3)) dep.run(`${units[0]}-draft`, 'ch99-nowhere');
  } finally {
    d.close();
  }
}

/** One random case on disk: the workspace, its checkroom.yaml and its journal. */
export function genCase(r: Rand, now = GEN_NOW): GenCase {
  const root = tempDir('checkroom-prop-');
  const units = Array.from({ length: r.int(1, 3) }, (_, i) => `ch0${i + 1}`);
  const { disk, batches } = writeBook(r, root, units);
  writeFileSync(join(root, 'checkroom.yaml'), configOf(units, batches, { maxLaunches: r.pick([3, 60, 200]), maxConsecutive: r.pick([2, 8, 50]) }));
  if (r.chance(0.3)) writeTodos(r, root, units, disk);
  const journal = journalOf(r, root, units, now);
  mkdirSync(join(root, '.checkroom', 'runs'), { recursive: true });
  const cut = r.chance(0.5) ? journal.length : r.int(0, journal.length);
  writeFileSync(join(root, '.checkroom', 'journal.jsonl'), journalText(journal.slice(0, cut)));
  return { seed: r.seed, root, units, now, disk, journal, delta: journal.slice(cut) };
}

/** Journal lines as the journal writes them (src/run/journal/journal.ts appendJournal). */
export function journalText(events: readonly NewJournalEvent[]): string {
  return events.map((e) => JSON.stringify({ ...e, v: 1 }) + '\n').join('');
}
