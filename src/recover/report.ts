import { relative } from 'node:path';
import type { NextStep, PartialFile, TodoView, Warning, WorkspaceState } from '../types.js';
import { checkMemory, type MemoryCheck } from '../memory/check.js';
import { resumeDrift, resumeLang, writeResume, type ResumeDrift } from '../resume/io.js';
import { rewriteCheckpoint } from '../checkpoint/rewrite.js';
import type { GateSummary } from '../gates/summary.js';
import { presetOf } from '../pipeline/presets/index.js';
import { provenTodoIds } from '../sources/level2.js';
import { readScheduler, type SchedulerSource } from '../sources/scheduler.js';
import { stateOf, type Sources } from '../workspace.js';
import { readCheckpoint } from '../checkpoint/io.js';
import { loadRecoveryState, type JournalFacts } from './load.js';
import { guardRecovery, notReplaceable } from './guard.js';
import type { LastSession } from './session-end.js';

// `checkroom recover`: the seed's recovery flow (000_…, section 8) as one report — which
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
    /** Issue 12: the cluster's jobs of this workspace against its cells; null when no agent runs on one. */
    scheduler?: SchedulerSource | null;
  };
  stop: {
    phase: number | null;
    phaseName: string | null;
    batch: number | null;
    lastDone: { unit: string; step: string; path: string; mtimeMs: number } | null;
    inProgress: { unit: string; step: string; status: string; path: string }[];
  };
  halfProducts: PartialFile[];
  suspects: PartialFile[];
  memory: MemoryCheck;
  rebuilt: RebuildAction[];
  plan: NextStep[];
  planTotal: number;
  gates: GateSummary[] | null;
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
  // checkroom session was ever journaled (issue 8 item 6: no report after a clean quit).
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

function stopOf(state: WorkspaceState): RecoverReport['stop'] {
  let lastDone: RecoverReport['stop']['lastDone'] = null;
  const inProgress: RecoverReport['stop']['inProgress'] = [];
  const fileStep = new Set(state.pipeline.steps.filter((s) => s.kind === 'file').map((s) => s.id));
  for (const c of state.cells) {
    // Entry cells share one file's mtime: only a step's own file says when it finished.
    if (c.status === 'done' && c.exists && fileStep.has(c.step) && (!lastDone || c.mtimeMs > lastDone.mtimeMs)) lastDone = { unit: c.unit, step: c.step, path: c.path, mtimeMs: c.mtimeMs };
    if (c.status === 'partial' || c.status === 'running' || (c.checkpoint === 'in_progress' && c.status !== 'done')) inProgress.push({ unit: c.unit, step: c.step, status: c.status, path: c.path });
  }
  const phase = state.phases.find((p) => p.id === state.currentPhase);
  return { phase: state.currentPhase, phaseName: phase?.name ?? null, batch: state.currentBatch, lastDone, inProgress };
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

// eslint-disable-next-line max-lines-per-function -- the recovery flow's steps in their order (DOMAIN.md: recovery), each reading what the one before rebuilt
export async function recoverReport(dir: string, opts: { dryRun: boolean; now?: Date } = { dryRun: true }): Promise<RecoverReport> {
  const now = opts.now ?? new Date();
  const loaded = await loadRecoveryState(dir, now.getTime());
  const journal = loaded.journal;
  let { sources: src, state } = loaded;
  // Refuses (exit 2, nothing written) a directory that is no workspace, or an empty view of one.
  guardRecovery(dir, src, state, journal);
  const root = src.root;
  const files = src.config.sources;
  const preset = src.config.preset;
  // A preset whose files are only read (gate files) is summarised, never rebuilt.
  const { has, readOnlyRecovery } = presetOf(preset);
  const readOnly = (await readOnlyRecovery?.(src)) ?? null;
  const drift = await resumeDrift(root, state, { file: files.resume, now: now.getTime() });
  const memory = await checkMemory(root, state);
  const cpExists = state.checkpoint.exists;
  const unknown = unknownUnits(state);
  const unreadable = unreadableCheckpoint(src);
  const report: RecoverReport = {
    root,
    name: state.name,
    preset,
    dryRun: opts.dryRun,
    at: now.getTime(),
    sources: {
      resume: { path: files.resume, exists: drift.exists, ageMs: drift.ageMs, generatedAt: drift.generatedAt, disagreements: drift.disagreements },
      checkpoint: { path: files.checkpoint, exists: cpExists, unreadable, lastUpdate: state.checkpoint.lastUpdate, discrepancies: state.discrepancies.length, unknownUnits: unknown, warnings: state.warnings.length },
      todos: state.todos ?? null,
      scan: { units: state.units.length, cells: state.cells.length, files: state.cells.filter((c) => c.exists && c.disk !== 'missing').length, scannedAt: state.scannedAt },
      journal: { events: journal.events, decisions: journal.decisions.length, breakers: journal.breakers, orphans: journal.orphans, warnings: journal.warnings },
      gates: readOnly !== null,
      scheduler: await readScheduler(root, src.config, state.cells).catch((err: Error) => ({ executor: 'slurm' as const, jobs: [], findings: [], error: err.message })),
    },
    stop: stopOf(state),
    halfProducts: state.partials,
    suspects: state.suspects,
    memory,
    rebuilt: [],
    plan: state.next.slice(0, PLAN_TOP),
    planTotal: state.next.length,
    gates: null,
    interrupted: journal.lastSession === 'clean' ? false : interrupted(state, drift, journal.lastSession) || journal.orphans.length > 0,
    warnings: state.warnings,
  };

  if (readOnly) {
    // Gate files are the state of such a workflow: nothing to rebuild, only to read.
    report.gates = readOnly.workflows;
    report.interrupted = readOnly.interrupted;
    return report;
  }

  // Step 4 of the flow: rebuild what is missing or stale.
  const cpWhy = !has.checkpoint
    ? null
    : !cpExists
      ? `${files.checkpoint} is missing: rebuilt from the filesystem scan`
      : unreadable
        ? `${files.checkpoint} cannot be read (${unreadable})`
        : state.discrepancies.length || unknown.length
          ? `${files.checkpoint} is stale: ${state.discrepancies.length} cell${state.discrepancies.length === 1 ? '' : 's'} disagree with the disk${unknown.length ? `, ${unknown.length} chapter${unknown.length === 1 ? '' : 's'} on disk it does not list (${unknown.join(', ')})` : ''}`
          : null;
  // A failed step is reported in its row and the next one still runs: the letter does not
  // depend on checkpoint.md being writable (reviewer finding 3).
  let cpRebuilt = false;
  if (cpWhy) {
    const blocked = await notReplaceable(root, files.checkpoint);
    if (blocked) report.rebuilt.push({ target: files.checkpoint, reason: cpWhy, done: false, backup: null, manual: true, blocked });
    else if (opts.dryRun) {
      report.rebuilt.push({ target: files.checkpoint, reason: cpWhy, done: false, backup: null, manual: false });
      cpRebuilt = true;
    } else {
      try {
        const r = await rewriteCheckpoint(root, now, src);
        report.rebuilt.push({ target: r.path, reason: cpWhy, done: true, backup: r.backup, manual: false });
        cpRebuilt = true;
        // The letter below must describe the checkpoint as it is now: only that file changed
        // (the journal did not), so it alone is read again, not the whole workspace.
        src = { ...src, checkpoint: await readCheckpoint(root, src.config.pipeline, files.checkpoint) };
        state = stateOf(src, journal.live);
      } catch (err) {
        report.rebuilt.push({ target: files.checkpoint, reason: cpWhy, done: false, backup: null, manual: true, blocked: `not rebuilt: ${(err as Error).message}` });
      }
    }
  }
  const resumeWhy = !drift.exists
    ? `${files.resume} is missing: written from the reconciled state`
    : drift.disagreements.length
      ? `${files.resume} is stale: ${drift.disagreements.length} statement${drift.disagreements.length === 1 ? '' : 's'} the disk contradicts`
      : cpRebuilt
        ? `${files.checkpoint} ${opts.dryRun ? 'would be' : 'was'} rebuilt, so the letter is rewritten to match`
        : null;
  if (resumeWhy && has.resume) {
    const blocked = await notReplaceable(root, files.resume);
    if (blocked) report.rebuilt.push({ target: files.resume, reason: resumeWhy, done: false, backup: null, manual: true, blocked });
    else if (opts.dryRun) report.rebuilt.push({ target: files.resume, reason: resumeWhy, done: false, backup: null, manual: false });
    else {
      try {
        const lang = (await resumeLang(root, files.resume)) ?? undefined;
        const r = await writeResume(root, state, { now, lang, decisions: journal.decisions, memory, breakers: journal.breakers, checkpointFile: files.checkpoint, file: files.resume });
        report.rebuilt.push({ target: r.path, reason: resumeWhy, done: true, backup: r.backup, manual: false });
      } catch (err) {
        report.rebuilt.push({ target: files.resume, reason: resumeWhy, done: false, backup: null, manual: true, blocked: `not written: ${(err as Error).message}` });
      }
    }
  }
  if (memory.rebuild.length) {
    const units = memory.rebuild.map((r) => r.unit);
    report.rebuilt.push({
      target: 'long memory',
      reason: `${units.length} chapter${units.length === 1 ? '' : 's'} (${units.slice(0, 6).join(', ')}${units.length > 6 ? ', …' : ''}) need their long-memory entries rebuilt by an agent; see the rebuild plan`,
      done: false,
      backup: null,
      manual: true,
    });
  }
  const proven = provenTodoIds(state.todos);
  if (proven.length && state.todos) {
    report.rebuilt.push({
      target: relative(root, state.todos.path) || state.todos.path,
      reason: `${proven.length} todo${proven.length === 1 ? '' : 's'} proven done on disk but not in the table (${proven.slice(0, 4).join(', ')}${proven.length > 4 ? ', …' : ''}); write back from the control room (the table is never changed without asking)`,
      done: false,
      backup: null,
      manual: true,
    });
  }
  report.plan = state.next.slice(0, PLAN_TOP);
  report.planTotal = state.next.length;
  return report;
}

