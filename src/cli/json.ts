import type { Cell, WorkspaceState } from '../types.js';
import { JsonList } from './json-list.js';
import { scanCounts } from '../operator/model.js';
import type { CostLedger } from '../run/journal/costs.js';
import { spendJson } from './json-spend.js';
import { escapeJsonText } from '../text/json-escape.js';
import type { OperatorRun } from '../operator/types.js';
import type { Foresight } from '../foresight/types.js';
import { foresightJson } from './json-foresight.js';
import { NO_OPERATOR_PAUSE, pauseJson, type OperatorPause } from '../operator/pause.js';
import { NO_OPERATOR_QUEUES, queuesJson, type OperatorQueues } from '../operator/queues.js';

// The `--json` contract of `checkroom status` (documented in the README). Scripts rely on
// it: fields are only ever added, never renamed or removed, and `version` changes if that
// promise ever has to be broken.

export const STATUS_JSON_VERSION = 1;

/** What `checkroom status --json` prints, as a type (tests read the output through it). */
export type StatusJson = ReturnType<typeof statusJson>;

/** One cell as `status --json` prints it; `spent`: whether any cell has spend to look up. */
const cellJson = (c: Cell, costs: CostLedger | undefined, spent: boolean) => ({
  unit: c.unit,
  step: c.step,
  batch: c.batch,
  path: c.path,
  status: c.status,
  checkpoint: c.checkpoint,
  disk: c.disk,
  chars: c.chars,
  // Only on files past the exact count: `chars` is then a lower bound.
  ...(c.charsAtLeast ? { charsAtLeast: true } : {}),
  bytes: c.bytes,
  marker: c.marker,
  verdict: c.triage?.verdict ?? null,
  blockedBy: c.blockedBy,
  // What this cell's agent attempts cost, from the journal; present on the cells
  // an adapter reported money or tokens for, so cells of plain command agents keep their shape.
  ...(spent ? cellSpend(costs, `${c.unit}/${c.step}`) : undefined),
});

/**
 * The document with `cells` as given: an array (statusJson), or a list written as it streams.
 * `runs`: the runs in flight (a scan's from the journal, cli/scan-journal.ts), counted as the
 * room counts them; absent, the disk's statuses are counted.
 */
function statusDocument<Cells>(s: WorkspaceState, costs: CostLedger | undefined, cells: Cells, runs: readonly OperatorRun[] | null, foresight: Foresight | null, pause: OperatorPause, queues: OperatorQueues) {
  const total = spendJson(costs?.workspace);
  return {
    version: STATUS_JSON_VERSION,
    workspace: s.root,
    name: s.name,
    pipeline: s.pipeline.name,
    scannedAt: new Date(s.scannedAt).toISOString(),
    currentPhase: s.currentPhase,
    currentBatch: s.currentBatch,
    // Where the work stopped (currentBatch stays the first batch not done) and
    // the cells whose proof was lost; null / [] for a state that does not derive them.
    stoppedAt: s.stoppedAt ?? null,
    regressions: (s.regressions ?? []).map((r) => ({ unit: r.unit, step: r.step, batch: r.batch, path: r.path, lost: r.lost, evidence: r.evidence })),
    checkpoint: s.checkpoint,
    counts: scanCounts(s, runs),
    phases: s.phases.map((p) => ({ id: p.id, name: p.name, status: p.status, done: p.done, total: p.total, missing: p.missing })),
    batches: s.batches.map((b) => ({ id: b.id, units: b.units, status: b.status, done: b.done, total: b.total })),
    cells,
    cost_usd: total.cost_usd,
    tokens: total.tokens,
    spend: {
      workspace: total,
      session: spendJson(costs?.session),
      agents: Object.fromEntries(Object.entries(costs?.agents ?? {}).map(([a, v]) => [a, spendJson(v)])),
    },
    partials: s.partials.map(partialJson),
    suspects: s.suspects.map(partialJson),
    discrepancies: s.discrepancies.map((d) => ({ unit: d.unit, step: d.step, checkpoint: d.checkpoint, disk: d.disk, note: d.note })),
    next: s.next.map((n) => ({ priority: n.priority, unit: n.unit, step: n.step, action: n.action, reason: n.reason, blocks: n.blocks })),
    warnings: s.warnings.map((w) => ({ source: w.source, line: w.line ?? null, message: w.message })),
    todos: s.todos
      ? {
          path: s.todos.path,
          ok: s.todos.ok,
          ready: s.todos.ready,
          ready_contradicted: s.todos.readyContradicted,
          disagreements: s.todos.disagreements,
          dangling: s.todos.dangling,
          warnings: s.todos.warnings.map((w) => ({ source: w.source, line: w.line ?? null, message: w.message })),
        }
      : null,
    // docs/foresight.md: the operator model's ETAs and cost forecast; null without one.
    ...foresightJson(foresight),
    // docs/drain.md: drain and pauses in force, the operator model's; null when nothing holds.
    pause: pauseJson(pause),
    // docs/redrive.md, docs/redo.md: what still waits on named actions and redo, the operator model's; null when nothing does.
    queues: queuesJson(queues),
  };
}

/** Most workspaces have no spend per cell: then 50k cells build no key to look it up by. */
const anySpent = (costs: CostLedger | undefined): boolean => costs !== undefined && Object.keys(costs.cells).length > 0;

export function statusJson(s: WorkspaceState, costs?: CostLedger, runs: readonly OperatorRun[] | null = null, foresight: Foresight | null = null, pause: OperatorPause = NO_OPERATOR_PAUSE, queues: OperatorQueues = NO_OPERATOR_QUEUES) {
  const spent = anySpent(costs);
  return statusDocument(s, costs, s.cells.map((c) => cellJson(c, costs, spent)), runs, foresight, pause, queues);
}

/**
 * The same document for writeJson, whose cells are made one at a time as they are written:
 * at 50k cells the whole array of their JSON objects was ~10 MB held at once
 * (streaming JSON without building the whole tree). JSON.stringify gives statusJson's text.
 */
export function statusJsonStreamed(s: WorkspaceState, costs?: CostLedger, runs: readonly OperatorRun[] | null = null, foresight: Foresight | null = null, pause: OperatorPause = NO_OPERATOR_PAUSE, queues: OperatorQueues = NO_OPERATOR_QUEUES) {
  const spent = anySpent(costs);
  return statusDocument(s, costs, new JsonList(s.cells, (c) => cellJson(c, costs, spent)), runs, foresight, pause, queues);
}

const cellSpend = (costs: CostLedger | undefined, key: string): { cost_usd?: number; tokens?: ReturnType<typeof spendJson>['tokens'] } => {
  const s = costs?.cells[key];
  if (!s || s.attempts === 0) return {};
  const j = spendJson(s);
  return { cost_usd: j.cost_usd, tokens: j.tokens };
};

const partialJson = (p: WorkspaceState['partials'][number]) => ({
  path: p.path,
  unit: p.unit,
  step: p.step,
  chars: p.chars,
  bytes: p.bytes,
  verdict: p.verdict,
  reason: p.reason,
});

// Every JSON the CLI prints passes escapeJsonText (src/text/json-escape.ts).
export { escapeJsonText };

/** Indented JSON whose text holds no terminal control: what `--json=pretty` and the other commands' `--json` print. */
export const toJson = (value: unknown): string => escapeJsonText(JSON.stringify(value, null, 2));
