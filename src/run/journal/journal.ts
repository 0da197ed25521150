import { appendFileSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { AttemptClass } from '../policy/classify.js';
import type { ExecutorName, FailureClass } from '../../pipeline/config/types.js';
import { JournalParser, MB, tailStart } from './read.js';
import { AGENT_EVENT_FIELDS, type AgentJournalEvent } from './agent.js';
import { LOG_EVENT_FIELDS, type LogPrunedEvent } from '../logs/journal-logs.js';
import { assertInside } from '../../fs/confine-path.js';
import { redactSecrets } from '../../text/redact.js';
import type { Stamped } from '../attempt/output-stamp.js';
import type { TriageJournalEvent } from './triage-events.js';
import { NOTIFY_EVENT_FIELDS, type NotifiedEvent } from '../../notify/journal-notify.js';
import { isCellList, type BulkJournalEvent } from '../../bulk/events.js';
import { PAUSE_EVENT_FIELDS, type DrainedEvent, type PauseEvent } from './pause-events.js';
import { JOB_EVENT_FIELDS, type JobJournalEvent } from './job-events.js';
import { CONCURRENCY_EVENT_FIELDS, type ConcurrencyEvent } from './concurrency-events.js';

export { JOURNAL_MAX_LINE_BYTES, JOURNAL_WARNINGS_LISTED } from './read.js';

// The append-only journal: the one source of truth for what checkroom launched, what came of
// it and what the operator decided. Everything the UI shows is replayed from it (ledger.ts),
// so a restart — even after kill -9 — rebuilds counters and breakers (docs/domain.md, The core idea:
// the filesystem is the state).

/** `at`: epoch milliseconds. One line: journal.ts is at the house's 300 lines. */
// prettier-ignore
interface Base { v: 1; at: number }

export interface LaunchEvent extends Base {
  type: 'launch';
  runId: string;
  unit: string;
  step: string;
  agent: string;
  attempt: number;
  argv: string[];
  cwd: string;
  logPath: string;
  pid: number | null;
  procStart: number | null;
  outputPath: string | null;
  // ── executors: optional, absent on local launches and older journals ──
  /** Where the run went: local (absent), slurm or kubernetes. */
  executor?: ExecutorName;
  /** The cluster's id of the job (Slurm job id, Kubernetes Job name): adopted after a restart. */
  jobId?: string | null;
  /** The run token in every member's environment (local runs; absent in older journals). */
  token?: string;
  keeper?: { pid: number; procStart: number | null }; // RunKeeper (types.ts): an adopter waits for it
  /** What the attempt was given (memory-ladder.ts journalResources): memory in words, the ladder's step. */
  resources?: Record<string, string | number>;
}

/** `output` (Stamped): the output file as the run left it. */
export interface ExitEvent extends Base, Stamped {
  type: 'exit';
  runId: string;
  unit: string;
  step: string;
  agent: string;
  exitCode: number | null;
  signal: string | null;
  class: AttemptClass;
  markerFound: boolean;
  cmdFp: string;
  errFp: string;
  keywords: string[];
  /** At most 20 lines, sanitized by the caller. */
  errorTail: string[];
  /** The classified error in one line; absent in journals written before it. */
  error?: string;
  /** CANCELLED only: who cancelled. A shutdown's cancel does not hold the cell. */
  cancelledBy?: 'operator' | 'outside' | 'shutdown';
  durationMs: number;
  /** A cluster job's wait in its scheduler's queue (Slurm's Start − Submit): the run time is durationMs minus it (run-duration.ts). */
  queueWaitMs?: number;
  /** The output announced its account's quota reset (docs/quota.md): an account-wide wait, not a counted failure. */
  quota?: { account: string; label: string; until: number; source: string };
}

export interface RetryScheduledEvent extends Base {
  type: 'retry_scheduled';
  unit: string;
  step: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface EscalateEvent extends Base {
  type: 'escalate';
  unit: string;
  step: string;
  class: FailureClass;
  reason: string;
}

/** Operator breaker actions. `success`/`failure` are for outcomes that are NOT journalled as
 *  an `exit` (ledger.ts already feeds every exit to the breaker; writing both double-counts). */
export interface BreakerJournalEvent extends Base {
  type: 'breaker';
  agent: string;
  event: 'success' | 'failure' | 'reset' | 'hold' | 'release';
  summary?: string;
}

export interface DecisionEvent extends Base {
  type: 'decision';
  /** `command_shown`: the exact agent command was shown to the operator (note: agents hash). */
  /** `stop_pending` (note: the run id): a job's stop had not landed when its checkroom ended; the next start asks again. */
  /** `hold` / `release`: the operator's hold on a cell: autopilot and `run --next` leave a held cell alone. */
  kind: 'backup' | 'keep' | 'redo' | 'restore' | 'reset_cell' | 'skip' | 'command_shown' | 'hold' | 'release' | 'stop_pending' | 'over_budget' | 'ack_alarms';
  unit?: string;
  step?: string;
  path?: string;
  backupPath?: string;
  note?: string;
}

export interface SessionEvent extends Base {
  type: 'session';
  kind: 'start' | 'stop';
  pid: number;
  // ---- session stop details (written by the shutdown path, read by adoption) ----
  /** kind 'stop' only: how the session ended — quit, SIGINT, SIGTERM, SIGHUP, terminal-closed, crash, or deadline (the shutdown ran out of time). */
  reason?: string;
  /** kind 'stop' only: the runs the operator chose to leave running; absent or empty when none were left. */
  left?: LeftRunning[];
}

/** A run left running at a session stop: enough for the next checkroom to find it and follow its output. */
export interface LeftRunning {
  runId: string;
  unit: string;
  step: string;
  /** The agent's pid and /proc start time (leader of its own process group). */
  pid: number | null;
  procStart: number | null;
  /** Where its output keeps going: a relay process copies the agent's pipes to this log after checkroom left. */
  logPath: string;
  /** The relay's pid (it ends by itself when the agent's output ends); null when no relay could be started. */
  relayPid: number | null;
  /** A cluster job left running: the next start adopts it by this id. */
  executor?: string;
  jobId?: string;
}
// ---- end of session stop details ----

/** `output` (Stamped): the output file once the run's processes were ended. */
export interface ReapedEvent extends Base, Stamped {
  type: 'reaped';
  runId: string;
  pid: number | null;
  outcome: string;
  /** The recorded leader at the restart (ours, gone, foreign: pid recycled, unproven). */
  leader?: string;
  /** The pids stopped (group and run-token members), at most 50. */
  stopped?: number[];
}

/** A restarted checkroom (or an observer that took over) watches a run an earlier one left
 *  running: the run stays live in the ledger until its `exit`. */
export interface AdoptedEvent extends Base {
  type: 'adopted';
  runId: string;
  pid: number;
  /** The checkroom process that adopted it. */
  by: number;
}

export interface AutopilotEvent extends Base {
  type: 'autopilot';
  on: boolean;
  reason: string;
}

// ── Triage continuity ─────────────────────────────────────────────────
export type { RedoQueuedEvent, SkipEvent, UndoPushedEvent, UndoPoppedEvent, TriageJournalEvent } from './triage-events.js';

export type JournalEvent =
  | AgentJournalEvent // journal-agent.ts (sessions, money, tokens, continue)
  | LogPrunedEvent // journal-logs.ts: the logs' disk budget
  | LaunchEvent
  | ExitEvent
  | RetryScheduledEvent
  | EscalateEvent
  | BreakerJournalEvent
  | DecisionEvent
  | SessionEvent
  | ReapedEvent
  | AdoptedEvent
  | AutopilotEvent
  | ConcurrencyEvent
  | TriageJournalEvent | NotifiedEvent // alarms raised, once: docs/notify.md
  | BulkJournalEvent // named set actions and their undo: docs/redrive.md
  | PauseEvent | DrainedEvent // drain and pause: docs/drain.md
  | JobJournalEvent; // a cluster job started and finished (job-events.ts)

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** What callers append: `v` is filled in. */
export type NewJournalEvent = DistributiveOmit<JournalEvent, 'v'> & { v?: 1 };

export interface JournalRead {
  events: JournalEvent[];
  warnings: string[];
}

export const journalPath = (root: string): string => join(root, '.checkroom', 'journal.jsonl');

// Appends from one process are chained so the file order is the call order (a launch is
// always before its exit), even when callers do not await each other.
const queues = new Map<string, Promise<void>>();

/** `.checkroom/` inside a workspace that exists: never recreate a workspace deleted or moved away. */
const stateDir = async (dir: string): Promise<void> => {
  try {
    await mkdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code === 'ENOENT') throw Object.assign(new Error(`the workspace directory ${dirname(dir)} is gone (deleted or moved): nothing was written`), { code });
    throw err;
  }
};

const appendNow = async (root: string, file: string, line: string): Promise<void> => {
  // `.checkroom` linked out of the workspace is refused, not written through.
  await stateDir(assertInside('mkdir', dirname(file), [root]));
  const fh = await open(assertInside('append', file, [root]), 'a+');
  try {
    // After a kill -9 mid-write the file may end in a torn line; start on a fresh line so
    // the torn fragment does not swallow this event as well.
    const { size } = await fh.stat();
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    await fh.write(prefix + line + '\n');
    await fh.sync();
  } finally {
    await fh.close();
  }
};

/** Append one event as one JSON line and fsync it. */
export const appendJournal = (root: string, event: NewJournalEvent): Promise<void> => {
  const file = journalPath(root);
  // No known secret value is journalled, whatever an agent printed (docs/scale-out.md, Secrets).
  const line = redactSecrets(JSON.stringify({ ...event, v: 1 }));
  const prev = queues.get(file) ?? Promise.resolve();
  const next = prev.catch(() => undefined).then(() => appendNow(root, file, line));
  // The queue's own copy never rejects: the caller gets the error through `next`, and a
  // refused write must not also surface as an unhandled rejection.
  const tracked: Promise<void> = next.catch(() => undefined).finally(() => {
    if (queues.get(file) === tracked) queues.delete(file);
  });
  queues.set(file, tracked);
  return next;
};

/**
 * Append one event synchronously, for a shutdown that ran out of time: the
 * process exits right after, so there is no later turn of the event loop to wait for.
 * Best effort: false when it could not be written.
 */
export const appendJournalNow = (root: string, event: NewJournalEvent): boolean => {
  try {
    appendFileSync(assertInside('append', journalPath(root), [root]), `\n${redactSecrets(JSON.stringify({ ...event, v: 1 }))}\n`);
    return true;
  } catch {
    return false;
  }
};

// Required fields per type: enough to keep a malformed line from reaching the ledger.
type Kind = 's' | 'n' | 'b' | 'n?' | 's?' | 'sa' | 'mv' | 'cl' | 'cp';
const FIELDS: Record<JournalEvent['type'], Record<string, Kind>> = {
  launch: { runId: 's', unit: 's', step: 's', agent: 's', attempt: 'n', argv: 'sa', cwd: 's', logPath: 's', pid: 'n?', procStart: 'n?', outputPath: 's?' },
  exit: { runId: 's', unit: 's', step: 's', agent: 's', exitCode: 'n?', signal: 's?', class: 's', markerFound: 'b', cmdFp: 's', errFp: 's', keywords: 'sa', errorTail: 'sa', durationMs: 'n' },
  retry_scheduled: { unit: 's', step: 's', attempt: 'n', delayMs: 'n', reason: 's' },
  escalate: { unit: 's', step: 's', class: 's', reason: 's' },
  breaker: { agent: 's', event: 's' },
  decision: { kind: 's' },
  session: { kind: 's', pid: 'n' },
  reaped: { runId: 's', pid: 'n?', outcome: 's' },
  adopted: { runId: 's', pid: 'n', by: 'n' },
  autopilot: { on: 'b', reason: 's' },
  ...AGENT_EVENT_FIELDS, ...NOTIFY_EVENT_FIELDS, ...LOG_EVENT_FIELDS, ...PAUSE_EVENT_FIELDS, ...JOB_EVENT_FIELDS, ...CONCURRENCY_EVENT_FIELDS, // agents' (journal-agent.ts), alarms' (docs/notify.md), logs' (journal-logs.ts)
  redo_queued: { unit: 's', step: 's', path: 's', backup: 's' },
  skip: { path: 's', on: 'b' },
  undo_pushed: { id: 's', label: 's', moves: 'mv' },
  undo_popped: { id: 's' },
  bulk_action: { id: 's', name: 's', action: 's', filter: 's', cells: 'cl' },
  bulk_undo: { id: 's', name: 's' },
  redo_applied: { id: 's', unit: 's', step: 's', cells: 'cp', moves: 'mv' },
  redo_undone: { id: 's', moves: 'mv' },
};

const fits = (v: unknown, kind: Kind): boolean => {
  switch (kind) {
    case 's':
      return typeof v === 'string';
    case 'n':
      return typeof v === 'number' && Number.isFinite(v);
    case 'b':
      return typeof v === 'boolean';
    case 'n?':
      return v === null || (typeof v === 'number' && Number.isFinite(v));
    case 's?':
      return v === null || typeof v === 'string';
    case 'sa':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'mv':
      return Array.isArray(v) && v.every((x) => typeof x === 'object' && x !== null && typeof (x as { path?: unknown }).path === 'string' && typeof (x as { backup?: unknown }).backup === 'string');
    case 'cl':
      return isCellList(v);
    case 'cp':
      return Array.isArray(v) && v.every((x) => typeof x === 'object' && x !== null && ['unit', 'step', 'path'].every((k) => typeof (x as Record<string, unknown>)[k] === 'string'));
  }
};

/** Why a parsed value is not a journal event, or null when it is one. */
export const validateEvent = (value: unknown): string | null => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const o = value as Record<string, unknown>;
  if (o.v !== 1) return `unsupported version ${JSON.stringify(o.v)}`;
  if (typeof o.at !== 'number' || !Number.isFinite(o.at)) return 'missing time';
  const spec = typeof o.type === 'string' ? FIELDS[o.type as JournalEvent['type']] : undefined;
  if (!spec) return `unknown event type ${JSON.stringify(o.type)}`;
  for (const [field, kind] of Object.entries(spec)) if (!fits(o[field], kind)) return `${o.type} event with bad field "${field}"`;
  return null;
};

/** Parse journal text. Never throws on content: bad lines become warnings with line numbers. */
export const parseJournal = (text: string): JournalRead => {
  const parser = new JournalParser(validateEvent);
  parser.feed(text);
  return parser.end();
};

export const LARGE_JOURNAL_BYTES = 64 * 1024 * 1024;

/** Past this size only the journal's newest part is read: replaying more would not fit the
 *  control room's memory. Nothing is cut from the file. */
export const JOURNAL_MAX_BYTES = 256 * 1024 * 1024;

/** Read the journal of a workspace; a missing journal is an empty one. `maxBytes`: tests. */
export const readJournal = async (root: string, opts: { maxBytes?: number } = {}): Promise<JournalRead> => {
  const file = journalPath(root);
  // Read this process's own writes: an append already asked for (the supervisor folds an event
  // as it asks) is on the file before the read, so what a read shows is never behind the ledger.
  await queues.get(file);
  const cap = opts.maxBytes ?? JOURNAL_MAX_BYTES;
  const warnings: string[] = [];
  let fh;
  try {
    fh = await open(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { events: [], warnings: [] };
    return { events: [], warnings: [`journal ${file}: cannot read (${code ?? String(err)})`] };
  }
  try {
    const size = (await fh.stat()).size;
    if (size > cap) {
      warnings.push(
        `.checkroom/journal.jsonl is ${MB(size)} (${size} bytes), over checkroom's ${MB(cap)} cap; only its last ${MB(cap)} were read, so older launches, decisions and breaker history are not replayed: with no checkroom running, move it to .checkroom/journal-<date>.jsonl to archive it`,
      );
    } else if (size > LARGE_JOURNAL_BYTES) {
      warnings.push(`journal is ${MB(size)}; consider archiving .checkroom/journal.jsonl`);
    }
    const offset = await tailStart(fh, size, cap);
    // Chunked read with a decoder: a multi-byte character split across chunks stays intact.
    const decoder = new StringDecoder('utf8');
    const parser = new JournalParser(validateEvent, offset);
    const buf = Buffer.alloc(1 << 20);
    let pos = offset;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      parser.feed(decoder.write(buf.subarray(0, bytesRead)));
    }
    parser.feed(decoder.end());
    const parsed = parser.end();
    return { events: parsed.events, warnings: [...warnings, ...parsed.warnings] };
  } finally {
    await fh.close();
  }
};
