import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { drainStreams, DRAIN_MS } from './drain.js';
import { forgetLiveRun, noteLiveRun } from './live-runs.js';
import { DEFAULT_LOG_MAX, RunLog } from './log.js';
import { explainSpawn, headerLine, spawnGroup, type Spawned } from './spawn.js';
import { handOver, keepOutput, type Relay } from './relay.js';
import { terminateRun } from './members.js';
import type { LineSplitter } from './ring-buffer.js';
import { RunOutput } from './output.js';
import { Liveness, outputSignature } from './watchdog.js';
import { sanitizeLine } from '../../text/sanitize.js';
import type { ProcessOutcome, ProcessSpec, RunHandle } from '../types.js';

// Launch one agent attempt and watch it (docs/domain.md, Handling agent faults): the dangerous failure is the
// silent hang, so an idle watchdog treats both output and growth of the step's output file
// as liveness (watchdog.ts). Every kill targets the whole process group (process-spawn.ts) so
// helpers it spawned — even ones ignoring SIGTERM — die with it, and so do descendants that
// escaped the group with setsid (run-members.ts). The parts — spawn, log,
// output, watchdog, exit, leave — are named functions over one Group.
//
// Agents outlive their driver: a kill -9, an OOM or a crash of checkroom
// closed the reading end of the agent's pipes, and the agent's next write died of EPIPE or
// SIGPIPE — counted as an UNKNOWN failure that cost an attempt. Now every run has a keeper
// from its start: the relay "leave running" used (relay.ts) takes the pipes before anything
// is read, appends the output to the run's log within its cap, and passes every byte back
// to this process while it reads. The keeper is detached (its own session): nothing that
// ends checkroom reaches it; it ends when the agent's output ends. Why a relay and not the
// log file as the agent's stdout: the log keeps its cap without a signal the agent could die
// of (RLIMIT_FSIZE's SIGXFSZ), and the ring, the pane, the watchdog and the byte count keep
// every byte (a tail of a capped file would go blind at the cap). Only when no keeper can
// be started are the pipes read here, as before (the run then dies with checkroom, said).

type EndReason = 'exit' | 'stalled' | 'timeout' | 'cancelled';

// Lines reach subscribers in batches: a flood must not turn into a million synchronous
// callbacks (STYLE.md idiom 5). 50 ms keeps the pane live while collapsing bursts.
const FLUSH_MS = 50;

/** One process group's run, as its parts share it. */
interface Group {
  readonly spec: ProcessSpec;
  readonly startedAt: number;
  readonly output: RunOutput;
  readonly log: RunLog;
  readonly sp: Spawned;
  readonly live: Liveness;
  reason: EndReason;
  finished: boolean;
  killing: Promise<number[]> | null;
  /** Left running (the operator's choice at quit): this process no longer watches or kills it. */
  left: boolean;
  timers: NodeJS.Timeout[];
  /** The keeper holding the agent's pipes and writing its log; null: read here. */
  keeper: Relay | null;
  /** The keeper reads the pipes: the idle watchdog counts from then (a node start-up is not the agent's silence). */
  keeperReady: boolean;
  /** Where the agent's stdout and stderr are read: the keeper's tee, or the pipes themselves. */
  streams: [Readable | null | undefined, Readable | null | undefined];
}

const note = (g: Pick<Group, 'output'>, text: string): void => g.output.add(sanitizeLine(`[checkroom] ${text}`));

const kill = (g: Group, why: EndReason): void => {
  if (g.finished || g.killing || g.left || g.sp.tag === null) return;
  g.reason = why;
  g.killing = terminateRun(g.sp.tag, g.spec.graceMs);
};

const stopTimers = (g: Group): void => {
  for (const t of g.timers) clearTimeout(t);
  g.timers = [];
};

/** A stream's bytes go to the log as they came and, split into lines, to the output. */
const wire = (g: Group, stream: Readable | null | undefined, splitter: LineSplitter): void => {
  if (!stream) return;
  const decoder = new StringDecoder('utf8');
  stream.on('data', (chunk: Buffer) => {
    g.live.touch(Date.now());
    g.log.take(chunk, stream);
    splitter.feed(decoder.write(chunk), g.output.raw);
  });
  stream.on('end', () => splitter.feed(decoder.end(), g.output.raw));
};

/** The flush of subscriber batches, the idle watchdog and the overall deadline. */
const startTimers = (g: Group): NodeJS.Timeout[] => {
  const timers = [setInterval(() => g.output.flush(), FLUSH_MS)];
  const { idleTimeoutMs: idleMs, timeoutMs } = g.spec;
  if (g.sp.pid === null) return timers;
  const watchdog = (): void => {
    if (g.keeper && !g.keeperReady) return;
    if (g.live.idleFor(Date.now()) >= idleMs) kill(g, 'stalled');
  };
  if (idleMs > 0) timers.push(setInterval(watchdog, Math.max(50, Math.floor(idleMs / 4))));
  if (timeoutMs > 0) timers.push(setTimeout(() => kill(g, 'timeout'), timeoutMs));
  return timers;
};

// When the leader exits on its own, helpers left behind (in its group or escaped from it)
// would keep the pipes open (and the result pending) forever; a run's processes live
// exactly as long as the run. The exit is taken from the leader itself, not from the end of
// its output, which whoever still holds a pipe could delay without bound.
/** How long a run's end waits for its keeper to start reading before draining. */
const KEEPER_START_MS = 20_000;

const exitOf = (g: Group): Promise<{ code: number | null; signal: string | null }> =>
  new Promise((resolve) => {
    g.sp.subprocess?.once('exit', (code, signal) => {
      if (g.sp.tag !== null && !g.killing && !g.left) g.killing = terminateRun(g.sp.tag, g.spec.graceMs);
      resolve({ code, signal });
    });
  });

interface Ended {
  exitCode: number | null;
  signal: string | null;
  spawnError: string | null;
}

/** Wait for the group to end and its output to drain; null when the run was left running. */
const ending = async (g: Group, exited: ReturnType<typeof exitOf>): Promise<Ended | null> => {
  const { subprocess } = g.sp;
  if (!subprocess) return { exitCode: null, signal: null, spawnError: g.sp.syncError };
  if (g.sp.pid === null) {
    const code = ((await subprocess) as { code?: unknown }).code;
    return { exitCode: null, signal: null, spawnError: typeof code === 'string' ? code : 'ESPAWN' };
  }
  const ex = await exited;
  // A run left running is the next checkroom's to decide (its exit is not ours to journal).
  if (g.left) return null;
  if (g.killing) await g.killing;
  // A keeper still starting (a node start-up on a loaded machine takes seconds) has not read
  // the pipes yet: the drain's clock starts once it reads, or it would cut a quick agent's
  // whole output (seen in CI: an agent done in 0.3 s, its log pane empty).
  if (g.keeper && !g.keeperReady) await Promise.race([g.keeper.ready, new Promise((r) => setTimeout(r, KEEPER_START_MS).unref())]);
  // Bounded drain: output still in the pipes is read; a holder we could not stop (another
  // user's process, say) makes us stop reading instead of waiting forever.
  const held = await drainStreams(g.streams, DRAIN_MS);
  if (held) note(g, `the output pipes were still held open ${DRAIN_MS} ms after the agent exited; stopped reading them`);
  // Nothing may append to the log after its footer: a keeper kept open by such a holder goes.
  if (held && g.keeper) stopKeeper(g.keeper);
  await subprocess.catch(() => undefined);
  return { exitCode: ex.code, signal: ex.signal, spawnError: null };
};

const stopKeeper = (k: Relay): void => {
  try {
    process.kill(k.pid, 'SIGKILL');
  } catch {
    // already gone
  }
};

/** The end of the log (notes, capped tail, footer) and the outcome. */
const conclude = async (g: Group, e: Ended): Promise<ProcessOutcome> => {
  const { spec, output, log } = g;
  if (g.sp.tag) forgetLiveRun(spec.runId);
  g.finished = true;
  stopTimers(g);
  output.end();
  if (e.spawnError) note(g, explainSpawn(e.spawnError, spec));
  // Repeated at the end so a flood cannot push it out of the tail.
  if (log.broken) note(g, `the log ${spec.logPath} is incomplete: ${log.broken}`);
  log.writeCapped(output.ring.lines());
  const endedAt = Date.now();
  const reason = e.spawnError ? `spawn-error:${e.spawnError}` : g.reason;
  log.writeFooter(
    `[checkroom] end ${new Date(endedAt).toISOString()} run=${spec.runId} exit=${e.exitCode ?? '-'} signal=${e.signal ?? '-'} reason=${reason} bytes=${log.bytes}`,
  );
  await log.close();
  output.flush();
  return {
    runId: spec.runId,
    ...e,
    stalled: g.reason === 'stalled',
    timedOut: g.reason === 'timeout',
    cancelled: g.reason === 'cancelled',
    tail: output.ring.lines(),
    startedAt: g.startedAt,
    endedAt,
    bytesOut: log.bytes,
  };
};

const leave = async (g: Group): Promise<number | null> => {
  const { subprocess } = g.sp;
  if (g.finished || g.left || g.killing || !subprocess || g.sp.tag === null) return null;
  g.left = true;
  forgetLiveRun(g.spec.runId);
  stopTimers(g);
  // The agent must not keep this process alive, nor die when it exits (relay.ts).
  subprocess.unref();
  if (!g.keeper) return (await handOver([subprocess.stdout, subprocess.stderr], g.log.stream, g.spec.logPath, g.log.room))?.pid ?? null;
  // Its keeper has held the pipes since the start: we only stop reading
  // its tee, and it goes on with the log alone.
  for (const s of g.streams) {
    s?.removeAllListeners('data');
    s?.destroy();
  }
  await g.log.close();
  return g.keeper.pid;
};

/** The header first, before anyone else appends; then the keeper takes the pipes. */
const keep = (spec: ProcessSpec, sp: Spawned, log: RunLog, startedAt: number): Relay | null => {
  const header = headerLine(spec, sp, startedAt);
  if (sp.pid === null || !log.writeNow(header)) {
    log.write(header);
    return null;
  }
  const keeper = keepOutput([sp.subprocess?.stdout, sp.subprocess?.stderr], spec.logPath, log.max);
  log.keeperWrites = keeper !== null;
  return keeper;
};

export function startProcess(spec: ProcessSpec): RunHandle {
  const startedAt = Date.now();
  const output = new RunOutput(spec.ringLines ?? 1000);
  const log = new RunLog(spec.logPath, spec.logMaxBytes ?? DEFAULT_LOG_MAX, (text) => note({ output }, text));
  const sp = spawnGroup(spec);
  if (sp.tag) noteLiveRun(spec.runId, sp.tag);
  const keeper = keep(spec, sp, log, startedAt);
  const streams: Group['streams'] = keeper ? [keeper.out, keeper.err] : [sp.subprocess?.stdout, sp.subprocess?.stderr];
  const live = new Liveness(() => outputSignature(spec.outputPath), Date.now());
  const g: Group = { spec, startedAt, output, log, sp, live, reason: 'exit', finished: false, killing: null, left: false, timers: [], keeper, keeperReady: false, streams };
  void keeper?.ready.then(() => {
    g.keeperReady = true;
    g.live.touch(Date.now());
  });
  if (!keeper && sp.pid !== null) note(g, 'could not start the output keeper: this run reads its pipes here and dies with this checkroom');
  wire(g, streams[0], output.splitters.out);
  wire(g, streams[1], output.splitters.err);
  g.timers = startTimers(g);
  const exited = exitOf(g);
  const result = ending(g, exited).then((e) => (e === null ? new Promise<never>(() => undefined) : conclude(g, e)));
  return {
    runId: spec.runId,
    pid: sp.pid,
    procStart: sp.procStart,
    token: sp.tag ? sp.token : null,
    keeper: keeper ? { pid: keeper.pid, procStart: keeper.procStart } : null,
    result,
    cancel: () => kill(g, 'cancelled'),
    leave: () => leave(g),
    onLine: (fn) => output.subscribe(fn),
    lines: () => output.lines(),
  };
}
