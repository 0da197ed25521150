import { execa } from 'execa';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, statSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { procStartTime } from './proc.js';
import { drainStreams, DRAIN_MS } from './run-drain.js';
import { forgetLiveRun, noteLiveRun } from './live-runs.js';
import { handOver } from './relay.js';
import { pipesOf, RUN_TOKEN_VAR, terminateRun, type RunTag } from './run-members.js';
import type { LineSplitter } from './ring-buffer.js';
import { RunOutput } from './run-output.js';
import { sanitizeLine } from '../sanitize.js';
import type { ProcessOutcome, ProcessSpec, RunHandle } from './types.js';

// Launch one agent attempt and watch it (DOMAIN.md section 9): the dangerous failure is the
// silent hang, so an idle watchdog treats both output and growth of the step's output file
// as liveness. Every kill targets the whole process group (`detached: true` makes the agent
// a group leader) so helpers it spawned — even ones ignoring SIGTERM — die with it, and so
// do descendants that escaped the group with setsid (run-members.ts, issue 8 item 4).

type EndReason = 'exit' | 'stalled' | 'timeout' | 'cancelled';

// Lines reach subscribers in batches: a flood must not turn into a million synchronous
// callbacks (STYLE.md idiom 5). 50 ms keeps the pane live while collapsing bursts.
const FLUSH_MS = 50;

const footerReason = (reason: EndReason, spawnError: string | null): string => (spawnError ? `spawn-error:${spawnError}` : reason);

const explainSpawn = (code: string, spec: ProcessSpec): string =>
  code === 'ENOENT'
    ? `cannot start ${spec.argv[0]}: executable not found (or working directory ${spec.cwd} does not exist)`
    : code === 'EACCES'
      ? `cannot start ${spec.argv[0]}: permission denied (is it executable?)`
      : `cannot start ${spec.argv[0]}: ${code}`;

const openLog = (path: string): { log: WriteStream | null; error: string | null } => {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const log = createWriteStream(path, { flags: 'a' });
    return { log, error: null };
  } catch (err) {
    return { log: null, error: (err as Error).message };
  }
};

/** Size and mtime of the step's output: a change is liveness for the idle watchdog. */
export const outputSignature = (path: string | null): string => {
  if (!path) return '';
  try {
    const st = statSync(path);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return 'missing';
  }
};

/** Output bytes one attempt's log keeps before it is capped. */
export const DEFAULT_LOG_MAX = 64 * 1024 * 1024;

// eslint-disable-next-line max-lines-per-function -- one closure over a process group's lifetime (spawn, output, exit, kill); issue 9 item 2's executor seam splits it
export function startProcess(spec: ProcessSpec): RunHandle {
  const startedAt = Date.now();
  const ringLines = spec.ringLines ?? 1000;
  const output = new RunOutput(ringLines);
  let bytesOut = 0;
  let reason = 'exit' as EndReason;
  let finished = false;

  const { log, error: logError } = openLog(spec.logPath);
  let logBroken = logError;
  // Streams paused for log backpressure; a failed log must not leave them paused forever.
  const paused = new Set<Readable>();
  log?.on('error', (err) => {
    if (!logBroken) note(`cannot write log ${spec.logPath}: ${err.message}`);
    logBroken = err.message;
    for (const s of paused) s.resume();
    paused.clear();
  });

  const flush = (): void => output.flush();
  const note = (text: string): void => output.add(sanitizeLine(`[checkroom] ${text}`));

  if (logError) note(`cannot write log ${spec.logPath}: ${logError}`);

  const writeLog = (text: string | Buffer): void => {
    if (log && !logBroken) log.write(text);
  };
  // A flooding agent must not fill the disk: the log keeps the first logMaxBytes of output,
  // then only counts; at the end the ring buffer's last lines follow a note of what was left out.
  const logMax = spec.logMaxBytes ?? DEFAULT_LOG_MAX;
  let logged = 0;
  let notLogged = 0;

  let subprocess: ReturnType<typeof execa> | null = null;
  let syncError: string | null = null;
  // Inherited by every descendant: how one that left the group is still found (run-members.ts).
  const token = `${spec.runId}.${randomBytes(6).toString('hex')}`;
  try {
    if (spec.argv.length === 0) throw Object.assign(new Error('empty command'), { code: 'EINVAL' });
    subprocess = execa(spec.argv[0]!, spec.argv.slice(1), {
      cwd: spec.cwd,
      env: { ...spec.env, [RUN_TOKEN_VAR]: token },
      shell: false,
      detached: true,
      reject: false,
      buffer: false,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      encoding: 'buffer',
      // We signal the group ourselves; execa's own kill would only reach the leader.
      forceKillAfterDelay: false,
    });
  } catch (err) {
    syncError = (err as NodeJS.ErrnoException).code ?? 'EINVAL';
  }

  const pid = subprocess?.pid ?? null;
  const procStart = pid ? procStartTime(pid) : null;
  const tag: RunTag | null = pid === null ? null : { pgid: pid, procStart, token, pipes: pipesOf(pid) };
  if (tag) noteLiveRun(spec.runId, tag);
  writeLog(`[checkroom] start ${new Date(startedAt).toISOString()} run=${spec.runId} pid=${pid ?? '-'} procStart=${procStart ?? '-'} token=${token} cwd=${JSON.stringify(spec.cwd)} argv=${JSON.stringify(spec.argv)}\n`);

  let lastActivity = Date.now();
  let endsWithNewline = true;
  let lastSignature = outputSignature(spec.outputPath);
  let killing: Promise<number[]> | null = null;
  // Left running (the operator's choice at quit): this process no longer watches or kills it.
  let left = false;
  const kill = (why: EndReason): void => {
    if (finished || killing || left || tag === null) return;
    reason = why;
    killing = terminateRun(tag, spec.graceMs);
  };

  const wire = (stream: Readable | null | undefined, splitter: LineSplitter): void => {
    if (!stream) return;
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer) => {
      lastActivity = Date.now();
      bytesOut += chunk.length;
      endsWithNewline = chunk[chunk.length - 1] === 10;
      const room = Math.max(0, logMax - logged);
      const part = room >= chunk.length ? chunk : chunk.subarray(0, room);
      logged += part.length;
      notLogged += chunk.length - part.length;
      // Backpressure: a fast flood must not pile up in the log stream's memory.
      if (part.length > 0 && log && !logBroken && !log.write(part)) {
        stream.pause();
        paused.add(stream);
        log.once('drain', () => {
          paused.delete(stream);
          stream.resume();
        });
      }
      splitter.feed(decoder.write(chunk), output.raw);
    });
    stream.on('end', () => {
      splitter.feed(decoder.end(), output.raw);
    });
  };
  wire(subprocess?.stdout, output.splitters.out);
  wire(subprocess?.stderr, output.splitters.err);

  const flushTimer = setInterval(flush, FLUSH_MS);
  const idleMs = spec.idleTimeoutMs;
  const watchdog =
    idleMs > 0 && pid !== null
      ? setInterval(() => {
          const sig = outputSignature(spec.outputPath);
          if (sig !== lastSignature) {
            lastSignature = sig;
            lastActivity = Date.now();
          }
          if (Date.now() - lastActivity >= idleMs) kill('stalled');
        }, Math.max(50, Math.floor(idleMs / 4)))
      : null;
  const deadline = spec.timeoutMs > 0 && pid !== null ? setTimeout(() => kill('timeout'), spec.timeoutMs) : null;

  // When the leader exits on its own, helpers left behind (in its group or escaped from it)
  // would keep the pipes open (and the result pending) forever; a run's processes live
  // exactly as long as the run. The exit is taken from the leader itself, not from the end of
  // its output, which whoever still holds a pipe could delay without bound.
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    subprocess?.once('exit', (code, signal) => {
      if (tag !== null && !killing && !left) killing = terminateRun(tag, spec.graceMs);
      resolve({ code, signal });
    });
  });

  const result = (async (): Promise<ProcessOutcome> => {
    let exitCode: number | null = null;
    let signal: string | null = null;
    let spawnError: string | null = syncError;
    if (subprocess && pid === null) {
      const code = (await subprocess as { code?: unknown }).code;
      spawnError = typeof code === 'string' ? code : 'ESPAWN';
    } else if (subprocess) {
      const ex = await exited;
      // A run left running is the next checkroom's to decide (its exit is not ours to journal).
      if (left) return new Promise<never>(() => undefined);
      exitCode = ex.code;
      signal = ex.signal;
      if (killing) await killing;
      // Bounded drain: output still in the pipes is read; a holder we could not stop (another
      // user's process, say) makes us stop reading instead of waiting forever.
      const held = await drainStreams([subprocess.stdout, subprocess.stderr], DRAIN_MS);
      if (held) note(`the output pipes were still held open ${DRAIN_MS} ms after the agent exited; stopped reading them`);
      await subprocess.catch(() => undefined);
    }
    if (tag) forgetLiveRun(spec.runId);
    finished = true;
    clearInterval(flushTimer);
    if (watchdog) clearInterval(watchdog);
    if (deadline) clearTimeout(deadline);
    output.end();
    if (spawnError) note(explainSpawn(spawnError, spec));
    // Repeated at the end so a flood cannot push it out of the tail.
    if (logBroken) note(`the log ${spec.logPath} is incomplete: ${logBroken}`);
    if (notLogged > 0) {
      const tail = output.ring.lines();
      writeLog(`\n[checkroom] log capped at ${logMax} bytes of output: ${notLogged} bytes were not written; the last ${tail.length} lines (sanitized) follow\n${tail.join('\n')}\n`);
      endsWithNewline = true;
    }
    const endedAt = Date.now();
    // The footer gets its own line even when the agent's last line had no newline.
    writeLog(
      `${endsWithNewline ? '' : '\n'}[checkroom] end ${new Date(endedAt).toISOString()} run=${spec.runId} exit=${exitCode ?? '-'} signal=${signal ?? '-'} reason=${footerReason(reason, spawnError)} bytes=${bytesOut}\n`,
    );
    if (log && !log.destroyed) {
      await new Promise<void>((resolve) => {
        log.once('error', () => resolve());
        log.end(() => resolve());
      });
    }
    flush();
    return {
      runId: spec.runId,
      exitCode,
      signal,
      spawnError,
      stalled: reason === 'stalled',
      timedOut: reason === 'timeout',
      cancelled: reason === 'cancelled',
      tail: output.ring.lines(),
      startedAt,
      endedAt,
      bytesOut,
    };
  })();

  const leave = async (): Promise<number | null> => {
    if (finished || left || killing || !subprocess || tag === null) return null;
    left = true;
    forgetLiveRun(spec.runId);
    clearInterval(flushTimer);
    if (watchdog) clearInterval(watchdog);
    if (deadline) clearTimeout(deadline);
    // The agent must not keep this process alive, nor die when it exits (relay.ts).
    subprocess.unref();
    return handOver([subprocess.stdout, subprocess.stderr], log, spec.logPath, Math.max(0, logMax - logged));
  };

  return {
    runId: spec.runId,
    pid,
    procStart,
    result,
    cancel: () => kill('cancelled'),
    leave,
    onLine: (fn) => output.subscribe(fn),
    lines: () => output.lines(),
  };
}
