import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Cli } from '../args.js';
import { UsageError } from '../args.js';
import type { TextOptions } from '../../text/layout.js';
import type { Out } from './core-commands.js';
import type { Token } from '../../text/theme.js';
import { loadConfig } from '../../pipeline/config/config.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import { loadWorkspace } from '../../workspace.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { openSupervisor, SupervisorError, type Supervisor, type SupervisorEvent } from '../../run/supervisor/supervisor.js';
import { pickLaunches } from '../../run/supervisor/autopilot.js';
import { commandShown, commandShownEvent } from '../../consent.js';
import { cellKey } from '../../types.js';
import { refuseRun } from '../run-preflight.js';
import { budgetRefusal, budgetStopOf } from '../../run/policy/budget.js';
import { sweepAtStart } from '../sweep-at-start.js';
import { deadlineFor, exitCodeFor, runsOnEnd, watchEnd, withDeadline } from '../../shutdown.js';
import { killLiveRunsNow } from '../../run/process/live-runs.js';

// `checkroom run [dir] <unit> <step> [--force]` and `checkroom run [dir] --next [--auto]
// [--max N]`: the headless face of the supervisor. Progress is streamed as sanitized lines;
// the exit code is 0 when every launched cell ended proven done, 1 on a failure, an
// escalation, a pause or a refusal (read-only, breaker, budget), 2 on bad usage or bad
// config (usage errors are thrown as UsageError, which the entry maps to 2) and when
// run-preflight.ts refuses the cell (unknown step or unit, unmet dependencies, already
// done without --force) — before the supervisor opens, so a refusal writes nothing.
//
// --max N counts steps (cells autopilot starts), not launches: a step's retries are more
// launches of the same step, counted by limits.max_launches.
//
// Consent: before the first launch from a workspace the exact command is printed (and, on
// a terminal, confirmed unless --yes); the journal records that it was shown, keyed by a
// hash of the agents section, so it is shown again only when the agents change. When stdin
// is not a terminal (cron, CI) there is no prompt: scheduling `checkroom run` implies consent
// to the command it prints.

export const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const TONE: Partial<Record<SupervisorEvent['type'], Token>> = {
  done: 'ok',
  failed: 'fail',
  retry: 'warn',
  breaker: 'warn',
  autopilot: 'accent',
  idle: 'accent',
  reaped: 'warn',
  output: 'muted',
  cancelled: 'warn',
};

/** Autopilot's idle reason for --max (supervisor-autopilot-loop.ts) counts picks, i.e. steps. */
const stopReason = (reason: string, cli: Cli): string => {
  if (!reason.startsWith('--max ')) return reason;
  if (!cli.auto) return 'one step launched (--next without --auto runs one step)';
  const n = cli.max ?? 0;
  return `--max ${n} step${n === 1 ? '' : 's'} reached`;
};

const clock = (): string => new Date().toTimeString().slice(0, 8);

export const printer = (o: TextOptions, out: Out) => (e: SupervisorEvent): void => {
  // The one idle event ends `run --next`; its reason is printed on the "stopped:" line.
  if (e.type === 'idle') return;
  const tone = TONE[e.type];
  const line = sanitizeLine(e.message);
  out.write(`${o.paint('muted', clock())} ${tone ? o.paint(tone, line) : line}\n`);
};

/** Print the exact command once per config version; on a terminal ask, unless --yes. */
const confirmCommand = async (s: Supervisor, config: WorkspaceConfig, unit: string, step: string, cli: Cli, o: TextOptions, out: Out): Promise<boolean> => {
  if (commandShown(s.snapshot().ledger, config)) return true;
  const p = s.describeCommand(unit, step);
  out.write(`${o.paint('title', `checkroom will run (agent ${sanitizeLine(p.agent)}, in ${sanitizeLine(p.cwd)}):`)}\n  ${sanitizeLine(p.text)}\n${p.resources ? `  with ${sanitizeLine(p.resources)}\n` : ''}`);
  const tty = process.stdin.isTTY === true;
  if (!tty || cli.yes) {
    if (!tty) out.write(o.paint('muted', '(stdin is not a terminal: no prompt; running checkroom run from cron or CI implies consent to this command)\n'));
  } else {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await rl.question('Run it? [y/N] ');
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) return false;
  }
  await s.note(commandShownEvent(config, unit, step, Date.now()));
  return true;
};

export async function runCommand(cli: Cli, o: TextOptions, out: Out): Promise<number> {
  const pos = [...cli.positionals];
  const dir = pos.length > 0 && isDir(pos[0]!) ? pos.shift()! : '.';
  if (cli.next) {
    if (pos.length > 0) throw new UsageError(`run --next takes no unit or step (got "${pos[0]}")`);
    if (cli.force) throw new UsageError('--force goes with <unit> <step>: --next only launches what the plan says is runnable');
    if (cli.overBudget) throw new UsageError('--over-budget goes with <unit> <step>: one launch the operator names, never an autopilot run');
  } else {
    if (cli.auto || cli.max !== null) throw new UsageError('--auto and --max go with --next');
    if (pos.length !== 2) throw new UsageError('usage: checkroom run [dir] <unit> <step> [--force]  or  checkroom run [dir] --next [--auto] [--max N]');
  }
  const root = resolve(dir);
  const config = await loadConfig(root);
  let units: readonly string[] = [];
  if (!cli.next) {
    const state = await loadWorkspace(root, { config });
    units = state.units;
    const why = refuseRun(root, config, state, pos[0]!, pos[1]!, cli.force);
    if (why !== null) {
      out.write(`${o.paint('fail', 'cannot run')}: ${sanitizeLine(why)}\n`);
      return 2;
    }
  }
  const failures: string[] = [];
  const steps = new Set<string>();
  const print = printer(o, out);
  const s = await openSupervisor({
    root,
    config,
    onEvent: (e) => {
      print(e);
      if (e.type === 'failed') failures.push(sanitizeLine(`${e.unit} ${e.step}`));
      // A cancelled cell is not proven done, and it is held:
      // `run --next` said exit 0 after an outside scancel, as if the work were finished.
      if (e.type === 'cancelled') failures.push(sanitizeLine(`${e.unit} ${e.step} (cancelled: held until launched by hand)`));
      if (e.type === 'launch') steps.add(cellKey(e.unit, e.step));
    },
  });
  // SIGINT, SIGTERM and a crash cancel the runs in flight and journal why; none kills
  // checkroom before its agents. A dropped terminal (SIGHUP, lost output:
  // an SSH drop) follows `on_hangup`: by default the runs are left to
  // their keepers, journaled with the stop and adopted by the next start.
  // Bounded: the cancel gets the agents' grace plus a margin, a second
  // signal ends it at once; a job whose stop did not land is journalled and the next start
  // asks again. Before, a scheduler that did not answer kept `checkroom run` for 13 minutes.
  const ends = watchEnd({ stdout: process.stdout, stderr: process.stderr });
  let reason = 'quit';
  void ends.first.then(async ({ reason: why }) => {
    reason = why;
    if (runsOnEnd(why, null, config.onHangup) === 'leave') {
      const left = await s.close({ leave: true, reason: why });
      // Said after the fact; the runs' results never come here, so this process ends now.
      if (ends.terminalAlive()) out.write(`interrupted (${why}): left ${left.length} run${left.length === 1 ? '' : 's'} running; the next checkroom on this workspace adopts ${left.length === 1 ? 'it' : 'them'}\n`);
      process.exit(exitCodeFor(why));
    }
    if (ends.terminalAlive()) out.write(`interrupted (${why}): cancelling the runs in flight\n`);
    const now = (): void => {
      killLiveRunsNow();
      s.closeNow(why);
      if (ends.terminalAlive()) out.write('stopped at once: the runs that had not ended were killed; a cluster job whose stop did not land is asked again by the next start\n');
      process.exit(exitCodeFor(why));
    };
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(sig, now);
    await withDeadline(() => s.close({ cancel: true, reason: why }).then(() => undefined), deadlineFor(Object.values(config.agents)), () => (killLiveRunsNow(), s.closeNow('deadline')), () => process.exit(exitCodeFor(why)));
  });
  try {
    const snap = s.snapshot();
    if (snap.role === 'readonly') {
      out.write(`${o.paint('fail', 'read-only')}: ${sanitizeLine(snap.readonlyReason ?? 'another checkroom drives this workspace')}\n`);
      return 1;
    }
    // The driver, about to write: temp files of killed atomic writes go first.
    if (!cli.next) await sweepAndSay(root, config, units, o, out);
    if (!cli.next) return await runOne(s, config, pos[0]!, pos[1]!, cli, o, out);
    return await runNext(s, config, cli, o, out, failures, steps);
  } catch (err) {
    if (err instanceof SupervisorError) {
      out.write(`${o.paint('fail', 'cannot run')}: ${sanitizeLine(err.message)}\n`);
      return /no agent|names no agent|no step|not a unit|checkroom\.yaml/.test(err.message) ? 2 : 1;
    }
    throw err;
  } finally {
    ends.off();
    await s.close({ reason });
  }
}

async function sweepAndSay(root: string, config: WorkspaceConfig, units: readonly string[], o: TextOptions, out: Out): Promise<void> {
  const swept = await sweepAtStart(root, config, units);
  if (swept) out.write(`${o.paint('muted', clock())} ${o.paint('warn', swept)}\n`);
}

/**
 * A spent budget refuses before anything is shown or asked (with or
 * without --yes, from a terminal or cron), with the figures and the key that raises it;
 * the supervisor's launch asks the same decision (budget.ts) and journals --over-budget.
 */
function refuseOverBudget(s: Supervisor, config: WorkspaceConfig, cli: Cli, o: TextOptions, out: Out): boolean {
  const stop = budgetStopOf(s.snapshot().ledger, config.limits);
  if (!stop) return false;
  if (cli.overBudget) {
    out.write(`${o.paint('warn', 'over budget')}: ${sanitizeLine(stop.reason)}; launching anyway (--over-budget, journalled)\n`);
    return false;
  }
  const flag = cli.next ? '' : ', or pass --over-budget to launch this one step anyway (journalled)';
  out.write(`${o.paint('fail', 'cannot run')}: ${sanitizeLine(budgetRefusal(stop))}${flag}\n`);
  return true;
}

async function runOne(s: Supervisor, config: WorkspaceConfig, unit: string, step: string, cli: Cli, o: TextOptions, out: Out): Promise<number> {
  if (refuseOverBudget(s, config, cli, o, out)) return 1;
  if (!(await confirmCommand(s, config, unit, step, cli, o, out))) {
    out.write('not launched\n');
    return 1;
  }
  const r = await s.launch(unit, step, { reason: 'checkroom run', overBudget: cli.overBudget });
  const tone: Token = r.outcome === 'done' ? 'ok' : 'fail';
  out.write(`${o.paint(tone, `${sanitizeLine(unit)} ${sanitizeLine(step)}: ${r.outcome}`)} after ${r.attempts} attempt${r.attempts === 1 ? '' : 's'}${r.outcome === 'done' ? '' : ` — ${sanitizeLine(r.reason)}`}\n`);
  return r.outcome === 'done' ? 0 : 1;
}

async function runNext(s: Supervisor, config: WorkspaceConfig, cli: Cli, o: TextOptions, out: Out, failures: string[], steps: ReadonlySet<string>): Promise<number> {
  if (refuseOverBudget(s, config, cli, o, out)) return 1;
  const snap = s.snapshot();
  const state = await loadWorkspace(s.root, { config });
  await sweepAndSay(s.root, config, state.units, o, out);
  const pick = pickLaunches({ plan: state.next, ledger: snap.ledger, config, inFlight: new Map(), budget: 1, redoHalfProducts: true, now: Date.now() });
  const first = pick.launch[0];
  // The account's quota (docs/quota.md): say which reset the next step waits for; not a failure.
  const quota = first ? undefined : pick.blocked.find((b) => b.quotaUntil !== undefined);
  if (quota) {
    out.write(`${o.paint('warn', 'waiting')}: ${sanitizeLine(`${quota.unit} ${quota.step}: ${quota.why}`)}\n`);
    return 0;
  }
  if (!first) {
    // Drain and pause (docs/drain.md): said with who and how to resume; nothing was done, exit 1 as a paused autopilot.
    const held = pick.blocked.find((b) => b.paused);
    if (held) {
      out.write(`${o.paint('warn', snap.ledger.pause.drain ? 'draining' : 'paused')}: ${sanitizeLine(`${held.unit} ${held.step}: ${held.why}`)}\n`);
      return 1;
    }
    if (snap.autopilot.paused) {
      out.write(`${o.paint('warn', 'paused')}: ${sanitizeLine(snap.autopilot.reason)}\n`);
      return 1;
    }
    out.write('nothing runnable now: every step is done, waiting on a human, blocked, or its agent is not configured\n');
    return 0;
  }
  if (!(await confirmCommand(s, config, first.unit, first.step, cli, o, out))) {
    out.write('not launched\n');
    return 1;
  }
  const idle = new Promise<string>((done) => {
    const off = s.subscribe((e) => {
      if (e.type === 'idle') {
        off();
        done(e.reason);
      }
    });
  });
  await s.setAutopilot(true, { maxLaunches: cli.auto ? (cli.max ?? undefined) : 1 });
  const reason = await idle;
  const end = s.snapshot();
  await s.setAutopilot(false);
  const l = end.ledger;
  out.write(
    `${o.paint('title', 'stopped')}: ${sanitizeLine(stopReason(reason, cli))}\n` +
      `steps launched: ${steps.size}; launches this session: ${end.launchesThisSession} of ${end.limits.maxLaunches} (retries included)${end.limits.maxLaunchesWorkspace !== undefined ? `; in the workspace: ${l.launchesInWorkspace} of ${end.limits.maxLaunchesWorkspace}` : ''}; consecutive failures: ${end.limits.consecutiveFailures} of ${end.limits.maxConsecutiveFailures}\n` +
      Object.values(l.agents)
        .filter((a) => a.view.state !== 'closed' || a.view.trips > 0)
        .map((a) => `breaker ${sanitizeLine(a.agent)}: ${a.view.state}${a.view.trips ? `, ${a.view.trips} trip${a.view.trips === 1 ? '' : 's'}` : ''}\n`)
        .join('') +
      (failures.length ? `${o.paint('fail', `failed, escalated or cancelled: ${failures.join(', ')}`)}\n` : ''),
  );
  return failures.length > 0 || end.autopilot.paused ? 1 : 0;
}
