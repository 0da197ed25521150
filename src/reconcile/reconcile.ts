import type { Cell, CellStatus, Claim, Discrepancy, DiskState, FileFacts, PartialFile, PipelineDef, StepDef } from '../types.js';
import { cellKey } from '../types.js';
import { triageMarked, triageUnmarked } from '../triage/triage.js';
import { say } from '../reasons/say.js';
import { CLAIM_WORD } from '../text/glyphs.js';
import { unitPath } from '../scan/units.js';
import type { ScanResult } from '../scan/scan.js';
import type { CutMap } from '../triage/cut-evidence.js';

// One status per cell. Precedence:
//   running      — a live run the launcher knows about;
//   done         — the marker is proven on disk: the filesystem wins over any claim;
//   needs_human  — checkpoint ⚠️ and no marker (an escalation outlives its half-product);
//   failed       — checkpoint ❌ and no marker;
//   partial      — a file without a valid marker;
//   not_started  — nothing on disk.
// failed and needs_human beat partial on purpose: after a capped retry the last attempt's
// output is a half-product, and hiding the escalation behind it would lose the alarm.

export interface ReconcileInput {
  pipeline: PipelineDef;
  units: readonly string[];
  batchOf: ReadonlyMap<string, number>;
  scan: ScanResult;
  claims: ReadonlyMap<string, Claim>;
  running: ReadonlySet<string>;
  /** How each cell's last writer was cut off, from the journal; absent: no evidence. */
  cuts?: CutMap;
}

export interface Reconciled {
  cells: Cell[];
  partials: PartialFile[];
  suspects: PartialFile[];
  discrepancies: Discrepancy[];
}


const agrees = (claim: Claim, disk: DiskState): boolean => {
  // An unreadable file contradicts no claim: we cannot know.
  if (disk === 'unreadable') return true;
  switch (claim) {
    case 'done':
      return disk === 'done';
    case 'in_progress':
      return disk === 'partial';
    case 'not_started':
      return disk === 'missing';
    case 'failed':
    case 'needs_human':
      return disk !== 'done';
  }
};

const describeDisk = (disk: DiskState, facts: FileFacts | null): string =>
  disk === 'done' ? 'marker present' : disk === 'partial' ? `file without marker (${facts?.chars ?? 0} chars)` : disk === 'unreadable' ? 'a file it cannot read' : 'nothing on disk';

const statusOf = (disk: DiskState, claim: Claim | null, running: boolean): CellStatus => {
  if (running) return 'running';
  if (disk === 'done') return 'done';
  if (disk === 'unreadable') return 'needs_human';
  if (claim === 'needs_human') return 'needs_human';
  if (claim === 'failed') return 'failed';
  if (disk === 'partial') return 'partial';
  return 'not_started';
};

const emptyFacts = (path: string): FileFacts => ({ path, exists: false, bytes: 0, chars: 0, marker: false, markerNotLast: false, mtimeMs: 0, tail: '', fenceOpen: false });

/** `path`: the step's file for this unit (keysOf's, built once per unit). */
function factsFor(step: StepDef, unit: string, path: string, scan: ScanResult): { facts: FileFacts; disk: DiskState } {
  if (step.kind === 'entry') {
    const file = scan.entryFiles.get(step.path) ?? emptyFacts(step.path);
    const has = scan.entries.get(step.path)?.has(unit) ?? false;
    return { facts: { ...file, marker: has }, disk: has ? 'done' : 'missing' };
  }
  const facts = scan.files.get(path) ?? emptyFacts(path);
  return { facts, disk: facts.marker ? 'done' : facts.unreadable ? 'unreadable' : facts.exists ? 'partial' : 'missing' };
}

export interface UnitResult {
  /** What the unit's cells were computed from: facts objects, claims, running flags, batch. */
  sig: unknown[];
  cells: Cell[];
  partials: PartialFile[];
  suspects: PartialFile[];
  discrepancies: Discrepancy[];
}

// Per-unit results are reused while their inputs are the same objects: a file event
// replaces the FileFacts of the files it names, so only those units are recomputed (the
// live view re-derives the state after every batch of events; at 50k files a full
// reconciliation was most of the change-to-screen latency).
const caches = new WeakMap<ScanResult, Map<string, UnitResult>>();

// The strings a unit's cells are looked up by, built once per unit and pipeline.
const keyCache = new WeakMap<PipelineDef, Map<string, { keys: string[]; paths: string[] }>>();
function keysOf(pipeline: PipelineDef, unit: string): { keys: string[]; paths: string[] } {
  let m = keyCache.get(pipeline);
  if (!m) keyCache.set(pipeline, (m = new Map()));
  let k = m.get(unit);
  if (!k) m.set(unit, (k = { keys: pipeline.steps.map((s) => cellKey(unit, s.id)), paths: pipeline.steps.map((s) => (s.kind === 'entry' ? s.path : unitPath(s, unit))) }));
  return k;
}

/**
 * The inputs a unit's cells are computed from, in a fixed order. With `against`, nothing is
 * built: it answers whether the inputs are still exactly those (null), or returns the new
 * signature. Most units are unchanged after a file event, and building 5k arrays per event
 * at 50k files was a good part of the change-to-screen time (allocation and GC).
 */
function signature(unit: string, input: ReconcileInput, against?: unknown[]): unknown[] | null {
  const { pipeline, scan, claims, running, batchOf, cuts } = input;
  const { keys, paths } = keysOf(pipeline, unit);
  const steps = pipeline.steps;
  if (against && against.length === 2 + steps.length * 5 && against[0] === pipeline && against[1] === (batchOf.get(unit) ?? null)) {
    let same = true;
    for (let i = 0, j = 2; same && i < steps.length; i++, j += 5) {
      const step = steps[i];
      same =
        (step.kind === 'entry'
          ? against[j] === scan.entryFiles.get(step.path) && against[j + 1] === (scan.entries.get(step.path)?.has(unit) ?? false)
          : against[j] === scan.files.get(paths[i]) && against[j + 1] === null) &&
        against[j + 2] === (claims.get(keys[i]) ?? null) &&
        against[j + 3] === running.has(keys[i]) &&
        against[j + 4] === cuts?.get(keys[i]);
    }
    if (same) return null;
  }
  // Sized once and filled by index: a closure and growing pushes per unit were most of a
  // one-shot `status` derive's allocation at 50k files (--cpu-prof).
  const sig: unknown[] = new Array(2 + steps.length * 5);
  sig[0] = pipeline;
  sig[1] = batchOf.get(unit) ?? null;
  for (let i = 0, j = 2; i < steps.length; i++, j += 5) {
    const step = steps[i];
    sig[j] = step.kind === 'entry' ? scan.entryFiles.get(step.path) : scan.files.get(paths[i]);
    sig[j + 1] = step.kind === 'entry' ? (scan.entries.get(step.path)?.has(unit) ?? false) : null;
    sig[j + 2] = claims.get(keys[i]) ?? null;
    sig[j + 3] = running.has(keys[i]);
    sig[j + 4] = cuts?.get(keys[i]);
  }
  return sig;
}

/** One unit's cells, half-products, suspects and discrepancies (the live view recomputes only the units an event touches). */
export function reconcileUnit(unit: string, input: ReconcileInput, sig: unknown[] = []): UnitResult {
  const { pipeline, batchOf, scan, claims, running } = input;
  const out: UnitResult = { sig, cells: [], partials: [], suspects: [], discrepancies: [] };
  const { keys, paths } = keysOf(pipeline, unit);
  for (let i = 0; i < pipeline.steps.length; i++) {
    const step = pipeline.steps[i];
    const key = keys[i];
    const { facts, disk } = factsFor(step, unit, paths[i], scan);
    const claim = claims.get(key) ?? null;
    const triage = disk === 'partial' ? triageUnmarked(facts, input.cuts?.get(key)) : disk === 'done' && step.kind === 'file' ? triageMarked(facts, step) : null;
    const cell: Cell = {
      unit,
      step: step.id,
      batch: batchOf.get(unit) ?? null,
      path: step.kind === 'entry' ? step.path : facts.path,
      status: statusOf(disk, claim, running.has(key)),
      disk,
      checkpoint: claim,
      exists: facts.exists,
      bytes: facts.bytes,
      chars: facts.chars,
      ...(facts.charsAtLeast ? { charsAtLeast: true } : {}),
      marker: disk === 'done',
      mtimeMs: facts.mtimeMs,
      triage,
      ...(disk === 'unreadable' ? { error: facts.error } : {}),
      blockedBy: [],
    };
    out.cells.push(cell);
    if (triage) {
      const entry: PartialFile = { path: cell.path, unit, step: step.id, chars: facts.chars, bytes: facts.bytes, verdict: triage.verdict, reason: triage.reason, why: triage.why };
      if (triage.verdict === 'suspicious') out.suspects.push(entry);
      else {
        if (facts.markerNotLast && entry.why) {
          entry.why = { k: 'marker_not_last', then: entry.why };
          entry.reason = say(entry.why);
        } else if (facts.markerNotLast) entry.reason = `the marker is present but more content follows it, so it does not count; ${entry.reason}`;
        out.partials.push(entry);
      }
    }
    if (claim && !agrees(claim, disk)) {
      out.discrepancies.push({
        unit,
        step: step.id,
        checkpoint: claim,
        disk,
        note: `checkpoint says ${CLAIM_WORD[claim]}, disk shows ${describeDisk(disk, facts)}`,
      });
    }
  }
  markBlocked(out.cells, pipeline);
  return out;
}

export function reconcile(input: ReconcileInput): Reconciled {
  let cache = caches.get(input.scan);
  if (!cache) caches.set(input.scan, (cache = new Map()));
  const res: Reconciled = { cells: [], partials: [], suspects: [], discrepancies: [] };
  const seen = new Set<string>();
  for (const unit of input.units) {
    seen.add(unit);
    let r = cache.get(unit);
    const sig = signature(unit, input, r?.sig);
    if (!r || sig) cache.set(unit, (r = reconcileUnit(unit, input, sig ?? signature(unit, input)!)));
    for (const c of r.cells) res.cells.push(c);
    for (const p of r.partials) res.partials.push(p);
    for (const p of r.suspects) res.suspects.push(p);
    for (const d of r.discrepancies) res.discrepancies.push(d);
  }
  if (cache.size > seen.size) for (const u of cache.keys()) if (!seen.has(u)) cache.delete(u);
  return res;
}

/** Each unfinished cell lists the failed / needs-human cells of its unit it transitively waits on (cells of one unit). */
function markBlocked(cells: Cell[], pipeline: PipelineDef): void {
  // Only a failed or needs-human cell blocks: a unit without one has nothing to walk.
  if (!cells.some((c) => c.status === 'failed' || c.status === 'needs_human')) return;
  const byKey = new Map(cells.map((c) => [cellKey(c.unit, c.step), c]));
  const stepById = new Map(pipeline.steps.map((s) => [s.id, s]));
  const memo = new Map<string, string[]>();
  const blockers = (unit: string, stepId: string, seen: Set<string>): string[] => {
    const key = cellKey(unit, stepId);
    const cached = memo.get(key);
    if (cached) return cached;
    if (seen.has(key)) return [];
    seen.add(key);
    const out = new Set<string>();
    for (const dep of stepById.get(stepId)?.dependsOn ?? []) {
      const c = byKey.get(cellKey(unit, dep));
      if (!c) continue;
      if (c.status === 'failed' || c.status === 'needs_human') out.add(cellKey(unit, dep));
      for (const b of blockers(unit, dep, seen)) out.add(b);
    }
    const list = [...out];
    memo.set(key, list);
    return list;
  };
  for (const c of cells) if (c.status !== 'done') c.blockedBy = blockers(c.unit, c.step, new Set());
}
