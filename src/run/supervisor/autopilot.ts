import { infraBreakerOf } from '../executors/infra.js';
import { inFlightCap } from '../executors/registry.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import type { NextStep } from '../../types.js';
import { cellKey } from '../../types.js';
import type { Ledger } from '../journal/ledger.js';
import { outputOf, pathTakenBy, takenWhy, writersByPath, type CellRef } from '../process/writers.js';
import { quotaWaitOf, quotaWords } from '../quota/gate.js';
import { pauseStopOf } from '../policy/pause.js';

// Which plan entries autopilot may start now: a pure choice over the plan, the ledger and
// what is in flight, so it is tested without processes. Failures that block downstream work
// come first (docs/domain.md, What goes wrong: recovery priorities), then half-products to
// redo (the conservative strategy of docs/domain.md, Half-products), then ready work.

export interface PickInput {
  plan: readonly NextStep[];
  ledger: Ledger;
  config: WorkspaceConfig;
  /** Cells in flight (running or waiting for a retry) → their agent. */
  inFlight: ReadonlyMap<string, string>;
  /** Launches still allowed (session budget, --max). */
  budget: number;
  /** Breakers whose one half-open probe a cell of this process has claimed (breaker-gate.ts). */
  probing?: ReadonlySet<string>;
  redoHalfProducts: boolean;
  /** Output path → why it is live: a process holds it open for writing, whoever launched it. */
  liveOutputs?: ReadonlyMap<string, string>;
  /** The clock the account waits are read at (docs/quota.md); default now. */
  now?: number;
}

export interface Candidate {
  unit: string;
  step: string;
  agent: string;
  reason: string;
}

export interface Blocked {
  unit: string;
  step: string;
  why: string;
  /** An open breaker will let this through after this many ms. */
  retryInMs: number | null;
  /** Its account waits for its quota's reset until then (epoch ms). */
  quotaUntil?: number;
  /** Held by the drain or a pause (docs/drain.md). */
  paused?: boolean;
}

export interface Pick {
  launch: Candidate[];
  blocked: Blocked[];
}

/** Why a breaker holds a launch, in the words the Plan shows. */
const breakerWhy = (name: string, v: Ledger['agents'][string]['view']): string =>
  v.state === 'held'
    ? `breaker ${name} held by the operator`
    : v.state === 'half_open'
      ? `breaker ${name} half-open: a probe is in flight`
      : `breaker ${name} open (${Math.ceil(v.remainingMs / 1000)} s left)`;

const eligible = (n: NextStep, redo: boolean): boolean =>
  n.unit !== null && n.step !== null && ((n.priority === 1 && (n.action === 'retry' || n.action === 'rebuild_memory')) || (n.priority === 3 && n.action === 'run') || (redo && n.priority === 2 && n.action === 'backup_redo'));

export const pickLaunches = (input: PickInput): Pick => {
  const { ledger, config } = input;
  const now = input.now ?? Date.now();
  const launch: Candidate[] = [];
  const blocked: Blocked[] = [];
  const perAgent = new Map<string, number>();
  for (const agent of input.inFlight.values()) perAgent.set(agent, (perAgent.get(agent) ?? 0) + 1);
  // A half-open breaker lets exactly one probe through.
  const probing = new Set<string>(input.probing ?? []);
  const steps = new Map(config.pipeline.steps.map((s) => [s.id, s]));
  // Path-keyed exclusion, one writer per file: cells in flight, runs the journal shows alive
  // (another instance's, or adopted ones) and this pick's own launches each hold their output
  // path; whatever the concurrency allows, a second writer on that path waits.
  const cellOfKey = (key: string): CellRef => ({ unit: key.slice(0, key.lastIndexOf('/')), step: key.slice(key.lastIndexOf('/') + 1) });
  const writing = writersByPath(config.pipeline, [...[...input.inFlight.keys()].map(cellOfKey), ...ledger.liveRuns]);

  // A redrive's relaunch queue goes first, whatever the plan calls its cells (docs/redrive.md).
  const queued = (n: NextStep): boolean => n.unit !== null && n.step !== null && ledger.bulk.queue[cellKey(n.unit, n.step)] !== undefined;
  const plan = [...input.plan.filter(queued), ...input.plan.filter((n) => !queued(n))];
  for (const n of plan) {
    if (!eligible(n, input.redoHalfProducts) && !queued(n)) continue;
    const unit = n.unit!;
    const step = n.step!;
    const key = cellKey(unit, step);
    if (input.inFlight.has(key)) continue;
    const cell = ledger.cells[key];
    const skip = ledger.bulk.skipped[key];
    if (skip) {
      blocked.push({ unit, step, why: `skipped by ${skip.name}; undo it to bring the cell back`, retryInMs: null });
      continue;
    }
    // The operator's hold is journalled (docs/reliability.md, A cancel is a hold): it holds after quit, kill -9 and
    // takeover, and for `run --next --auto` as for autopilot.
    if (cell?.hold) {
      blocked.push({ unit, step, why: `held: ${cell.hold.why}; launching it by hand releases the hold`, retryInMs: null });
      continue;
    }
    if (cell?.state === 'needs_human') {
      blocked.push({ unit, step, why: `escalated: ${cell.reason ?? 'needs a human'}`, retryInMs: null });
      continue;
    }
    const agent = steps.get(step)?.agent;
    if (!agent || !config.agents[agent]) {
      blocked.push({ unit, step, why: agent ? `no agent '${agent}' in checkroom.yaml` : `step ${step} names no agent`, retryInMs: null });
      continue;
    }
    // Drain and pause (docs/drain.md): the one decision launchCell asks too, so autopilot never tries.
    const paused = pauseStopOf(ledger.pause, { unit, step, agent, executor: config.agents[agent].executor });
    if (paused) {
      blocked.push({ unit, step, why: paused.reason, retryInMs: null, paused: true });
      continue;
    }
    // The executor's infra breaker (a failing cluster) holds launches like the agent's (docs/scale-out.md).
    const infra = infraBreakerOf(config.agents[agent].executor);
    const name = [agent, ...(infra ? [infra] : [])].find((b) => ledger.agents[b] && (!ledger.agents[b]!.canLaunch || probing.has(b)));
    const br = ledger.agents[agent];
    if (name) {
      const v = ledger.agents[name]!.view;
      blocked.push({ unit, step, why: breakerWhy(name, v), retryInMs: v.state === 'open' ? v.remainingMs : null });
      continue;
    }
    const quota = quotaWaitOf(ledger.quotaWaits, config.agents[agent], now);
    if (quota) {
      blocked.push({ unit, step, why: quotaWords(quota, now), retryInMs: quota.until - now, quotaUntil: quota.until });
      continue;
    }
    const taken = pathTakenBy(config.pipeline, writing, unit, step);
    if (taken) {
      blocked.push({ unit, step, why: takenWhy(config.pipeline, taken, unit, step), retryInMs: null });
      continue;
    }
    const live = input.liveOutputs?.get(outputOf(config.pipeline, unit, step) ?? '');
    if (live) {
      blocked.push({ unit, step, why: live, retryInMs: null });
      continue;
    }
    // An executor that throttles a batch itself (a Slurm array's %T) admits more than its concurrency.
    if ((perAgent.get(agent) ?? 0) >= inFlightCap(config.agents[agent])) continue;
    if (launch.length >= input.budget) break;
    for (const [path, w] of writersByPath(config.pipeline, [{ unit, step }])) writing.set(path, w);
    if (br?.view.state === 'half_open') probing.add(agent);
    if (infra && ledger.agents[infra]?.view.state === 'half_open') probing.add(infra);
    perAgent.set(agent, (perAgent.get(agent) ?? 0) + 1);
    launch.push({ unit, step, agent, reason: n.reason });
  }
  return { launch, blocked };
};
