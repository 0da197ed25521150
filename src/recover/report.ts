import { planOf } from '../operator/plan.js';
import { relative } from 'node:path';
import type { NextStep, PartialFile, TodoView, Warning, WorkspaceState } from '../types.js';
import { checkMemory, type MemoryCheck } from '../memory/check.js';
import { resumeDrift, resumeLang, writeResume, type ResumeDrift } from '../resume/io.js';
import { rewriteCheckpoint } from '../checkpoint/rewrite.js';
import type { GateSummary } from '../gates/summary.js';
import { presetOf } from '../pipeline/presets/index.js';
import { provenTodoIds } from '../sources/level2.js';
import { readScheduler, type SchedulerSource } from '../sources/scheduler.js';
import { scheduledAgent } from '../run/executors/registry.js';
import { stateOf, type Sources } from '../workspace.js';
import { readCheckpoint } from '../checkpoint/io.js';
import { loadRecoveryState, type JournalFacts, type WorkspaceRead } from './load.js';
import { guardRecovery, notReplaceable } from './guard.js';
import type { LastSession } from './session-end.js';
import { stopOf, type StopReport } from './stop.js';

// `checkroom recover`: the recovery flow of docs/recovery.md as one report — which
// sources exist and how fresh they are, where the pipeline stopped, the half-products, the
// long-memory damage, what was stale or missing and has been rebuilt (checkpoint.md and
// RESUME.md, each backed up first), and the plan to continue. With dryRun nothing is written:
// the report says what would be rebuilt.

export interface RebuildAction {
  target: string;
  reason: string;
  /** True when it was rebuilt in this run; false for a dry run or for work that needs an agent. */
  done: boolean;
  /** Backup of the previous version, when there was one. */
  backup: string | null;
  /** Work checkroom does not do itself (an agent or the operator must). */
  manual: boolean;
  /** Why it could not be (or would not be) done, and what the operator should do; absent when nothing stands in the way. */
  blocked?: string;
}

export type { GateSummary } from '../gates/summary.js';

export interface RecoverReport {
  root: string;
  name: string;
  /** The preset's name (or preset file path) from checkroom.yaml. */
  preset: string;
  dryRun: boolean;
  at: number;
  sources: {
    resume: { path: string; exists: boolean; ageMs: number | null; generatedAt: string | null; disagreements: string[] };
    checkpoint: {
      path: string;
      exists: boolean;
      /** Why the file yielded nothing (a directory, unreadable, binary); null when it was read. */
      unreadable: string | null;
      lastUpdate: string | null;
      discrepancies: number;
      unknownUnits: string[];
      warnings: number;
    };
    todos: TodoView | null;
    scan: { units: number; cells: number; files: number; scannedAt: number };
    journal: { events: number; decisions: number; breakers: JournalFacts['breakers']; orphans: JournalFacts['orphans']; warnings: string[] };
    gates: boolean;
    /** The cluster's jobs of this workspace against its cells; null when no agent runs where a scheduler queues it. */
    scheduler?: SchedulerSource | null;
  };
  stop: StopReport;
  halfProducts: PartialFile[];
  suspects: PartialFile[];
  memory: MemoryCheck;
  rebuilt: RebuildAction[];
  plan: NextStep[];
  planTotal: number;
  gates: GateSummary[] | null;
  /** The preset's own recover facts (Preset.recoverFacts), for its section; absent when it has none. */
  own?: unknown;
  interrupted: boolean;
  warnings: Warning[];
}

export const PLAN_TOP = 10;

/**
 * Evidence that a session was interrupted, so the control room opens on the recovery report:
 * the journal's last session started and never stopped; with no session journaled, the disk's
 * signs: half-products, ⏳ claims with no live run, checkpoint/disk discrepancies, a stale RESUME.md.
 */
export function interrupted(state: WorkspaceState, drift?: Pick<ResumeDrift, 'disagreements'> | null, last: LastSession = 'none'): boolean {
  // The journal knows how the last session ended; the disk's look decides only when no
  // checkroom session was ever journaled (no report after a clean quit).
  if (last !== 'none') return last === 'interrupted';
  if (state.partials.length > 0 || state.discrepancies.length > 0) return true;
  if (state.cells.some((c) => c.checkpoint === 'in_progress' && c.status !== 'running')) return true;
  return (drift?.disagreements.length ?? 0) > 0;
}

/** Units the disk has files for but checkpoint.md never mentions (scenario 4). */
function unknownUnits(state: WorkspaceState): string[] {
  if (!state.checkpoint.exists) return [];
  const claimed = new Set<string>();
  const onDisk = new Set<string>();
  for (const c of state.cells) {
    if (c.checkpoint !== null) claimed.add(c.unit);
    if (c.exists && c.disk !== 'missing') onDisk.add(c.unit);
  }
  return state.units.filter((u) => onDisk.has(u) && !claimed.has(u));
}

/** Why checkpoint.md yielded nothing at all (its reader leaves an empty doc with one warning), or null. */
function unreadableCheckpoint(src: Pick<Sources, 'checkpoint'>): string | null {
  const d = src.checkpoint;
  if (!d || d.phases.length || d.batches.length || d.lastUpdate !== null || d.project !== null) return null;
  // The reader's own failures (a directory, unreadable, binary) have no line; the parser's do.
  const w = d.warnings.find((x) => x.line === undefined);
  return w ? w.message.replace(/^cannot read [^:]*: /, '') : null;
}

/** The language of an existing RESUME.md (its title), so a rewrite keeps it. */
export { resumeLang };

/** What the flow's steps share: the workspace as read (and as rebuilt so far), the journal's
 *  facts, the RESUME.md drift and long-memory check, and the report the steps fill in. */
interface Flow {
  root: string;
  now: Date;
  dryRun: boolean;
  src: Sources;
  state: WorkspaceState;
  journal: JournalFacts;
  drift: ResumeDrift;
  memory: MemoryCheck;
  report: RecoverReport;
}

/** Steps 1–3 of the flow: which sources exist and how fresh, where it stopped, the half-products. */
async function firstReport(f: Omit<Flow, 'report'>, unknown: string[], unreadable: string | null, gates: boolean): Promise<RecoverReport> {
  const { root, now, src, state, journal, drift } = f;
  const files = src.config.sources;
  return {
    root,
    name: state.name,
    preset: src.config.preset,
    dryRun: f.dryRun,
    at: now.getTime(),
    sources: {
      resume: { path: files.resume, exists: drift.exists, ageMs: drift.ageMs, generatedAt: drift.generatedAt, disagreements: drift.disagreements },
      checkpoint: { path: files.checkpoint, exists: state.checkpoint.exists, unreadable, lastUpdate: state.checkpoint.lastUpdate, discrepancies: state.discrepancies.length, unknownUnits: unknown, warnings: state.warnings.length },
      todos: state.todos ?? null,
      scan: { units: state.units.length, cells: state.cells.length, files: state.cells.filter((c) => c.exists && c.disk !== 'missing').length, scannedAt: state.scannedAt },
      journal: { events: journal.events, decisions: journal.decisions.length, breakers: journal.breakers, orphans: journal.orphans, warnings: journal.warnings },
      gates,
      scheduler: await readScheduler(root, src.config, state.cells).catch((err: Error) => ({ executor: scheduledAgent(src.config)?.name ?? 'scheduler', jobs: [], findings: [], error: err.message })),
    },
    stop: stopOf(state),
    halfProducts: state.partials,
    suspects: state.suspects,
    memory: f.memory,
    rebuilt: [],
    plan: planOf(state.next).slice(0, PLAN_TOP),
    planTotal: planOf(state.next).length,
    gates: null,
    interrupted: journal.lastSession === 'clean' ? false : interrupted(state, drift, journal.lastSession) || journal.orphans.length > 0,
    warnings: state.warnings,
  };
}

/** Why checkpoint.md must be rebuilt (missing, unreadable, stale), or null when it is sound. */
function checkpointWhy(f: Flow, unknown: string[], unreadable: string | null): string | null {
  const file = f.src.config.sources.checkpoint;
  const n = f.state.discrepancies.length;
  if (!f.state.checkpoint.exists) return `${file} is missing: rebuilt from the filesystem scan`;
  if (unreadable) return `${file} cannot be read (${unreadable})`;
  if (!n && !unknown.length) return null;
  return `${file} is stale: ${n} cell${n === 1 ? '' : 's'} disagree with the disk${unknown.length ? `, ${unknown.length} chapter${unknown.length === 1 ? '' : 's'} on disk it does not list (${unknown.join(', ')})` : ''}`;
}

/** Step 4a: rebuild checkpoint.md (backed up first); true when it was, or would be, rebuilt. */
async function rebuildCheckpoint(f: Flow, why: string): Promise<boolean> {
  const file = f.src.config.sources.checkpoint;
  const blocked = await notReplaceable(f.root, file);
  if (blocked) {
    f.report.rebuilt.push({ target: file, reason: why, done: false, backup: null, manual: true, blocked });
    return false;
  }
  if (f.dryRun) {
    f.report.rebuilt.push({ target: file, reason: why, done: false, backup: null, manual: false });
    return true;
  }
  try {
    const r = await rewriteCheckpoint(f.root, f.now, f.src);
    f.report.rebuilt.push({ target: r.path, reason: why, done: true, backup: r.backup, manual: false });
    // The letter below must describe the checkpoint as it is now: only that file changed
    // (the journal did not), so it alone is read again, not the whole workspace.
    f.src = { ...f.src, checkpoint: await readCheckpoint(f.root, f.src.config.pipeline, file) };
    f.state = stateOf(f.src, f.journal.live);
    return true;
  } catch (err) {
    f.report.rebuilt.push({ target: file, reason: why, done: false, backup: null, manual: true, blocked: `not rebuilt: ${(err as Error).message}` });
    return false;
  }
}

/** Why RESUME.md must be (re)written, or null when it still agrees with the disk. */
function resumeWhy(f: Flow, cpRebuilt: boolean): string | null {
  const files = f.src.config.sources;
  const n = f.drift.disagreements.length;
  if (!f.drift.exists) return `${files.resume} is missing: written from the reconciled state`;
  if (n) return `${files.resume} is stale: ${n} statement${n === 1 ? '' : 's'} the disk contradicts`;
  return cpRebuilt ? `${files.checkpoint} ${f.dryRun ? 'would be' : 'was'} rebuilt, so the letter is rewritten to match` : null;
}

/** Step 4b: write RESUME.md from the reconciled state (the old letter backed up first). */
async function rebuildResume(f: Flow, why: string): Promise<void> {
  const files = f.src.config.sources;
  const blocked = await notReplaceable(f.root, files.resume);
  if (blocked) return void f.report.rebuilt.push({ target: files.resume, reason: why, done: false, backup: null, manual: true, blocked });
  if (f.dryRun) return void f.report.rebuilt.push({ target: files.resume, reason: why, done: false, backup: null, manual: false });
  try {
    const lang = (await resumeLang(f.root, files.resume)) ?? undefined;
    const { journal, memory } = f;
    const r = await writeResume(f.root, f.state, { now: f.now, lang, decisions: journal.decisions, memory, breakers: journal.breakers, checkpointFile: files.checkpoint, file: files.resume });
    f.report.rebuilt.push({ target: r.path, reason: why, done: true, backup: r.backup, manual: false });
  } catch (err) {
    f.report.rebuilt.push({ target: files.resume, reason: why, done: false, backup: null, manual: true, blocked: `not written: ${(err as Error).message}` });
  }
}

/** Step 4c: what needs an agent or the operator — long-memory entries, todos to write back. */
function manualRebuilds(f: Flow): void {
  if (f.memory.rebuild.length) {
    const units = f.memory.rebuild.map((r) => r.unit);
    f.report.rebuilt.push({
      target: 'long memory',
      reason: `${units.length} chapter${units.length === 1 ? '' : 's'} (${units.slice(0, 6).join(', ')}${units.length > 6 ? ', …' : ''}) need their long-memory entries rebuilt by an agent; see the rebuild plan`,
      done: false,
      backup: null,
      manual: true,
    });
  }
  const todos = f.state.todos;
  const proven = provenTodoIds(todos);
  if (proven.length && todos) {
    f.report.rebuilt.push({
      target: relative(f.root, todos.path) || todos.path,
      reason: `${proven.length} todo${proven.length === 1 ? '' : 's'} proven done on disk but not in the table (${proven.slice(0, 4).join(', ')}${proven.length > 4 ? ', …' : ''}); write back from the control room (the table is never changed without asking)`,
      done: false,
      backup: null,
      manual: true,
    });
  }
}

/** The recovery flow (docs/domain.md, What goes wrong), one step after the other, each reading what the one before rebuilt. */
export async function recoverReport(dir: string, opts: { dryRun: boolean; now?: Date; read?: WorkspaceRead } = { dryRun: true }): Promise<RecoverReport> {
  const now = opts.now ?? new Date();
  const { sources: src, state, journal } = await loadRecoveryState(dir, now.getTime(), opts.read);
  // Refuses (exit 2, nothing written) a directory that is no workspace, or an empty view of one.
  guardRecovery(dir, src, state, journal);
  const root = src.root;
  // A preset whose files are only read (gate files) is summarised, never rebuilt.
  const { has, readOnlyRecovery, recoverFacts } = presetOf(src.config.preset);
  const readOnly = (await readOnlyRecovery?.(src)) ?? null;
  const drift = await resumeDrift(root, state, { file: src.config.sources.resume, now: now.getTime() });
  const memory = await checkMemory(root, state);
  const unknown = unknownUnits(state);
  const unreadable = unreadableCheckpoint(src);
  const base = { root, now, dryRun: opts.dryRun, src, state, journal, drift, memory };
  const f: Flow = { ...base, report: await firstReport(base, unknown, unreadable, readOnly !== null) };
  if (recoverFacts) f.report.own = recoverFacts(src);
  if (readOnly) {
    // Gate files are the state of such a workflow: nothing to rebuild, only to read.
    f.report.gates = readOnly.workflows;
    f.report.interrupted = readOnly.interrupted;
    return f.report;
  }
  // Step 4 of the flow: rebuild what is missing or stale. A failed step is reported in its
  // row and the next one still runs: the letter does not depend on checkpoint.md being
  // writable (reviewer finding 3).
  const cpWhy = has.checkpoint ? checkpointWhy(f, unknown, unreadable) : null;
  const cpRebuilt = cpWhy ? await rebuildCheckpoint(f, cpWhy) : false;
  const letterWhy = resumeWhy(f, cpRebuilt);
  if (letterWhy && has.resume) await rebuildResume(f, letterWhy);
  manualRebuilds(f);
  // One entry per cell, as Plan lists them (the operator model's plan).
  f.report.plan = planOf(f.state.next).slice(0, PLAN_TOP);
  f.report.planTotal = planOf(f.state.next).length;
  return f.report;
}
