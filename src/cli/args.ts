import { parseArgs } from 'node:util';

// Command-line parsing. Usage errors are values with a message; the entry maps them to
// exit code 2.

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const COMMANDS = ['status', 'plan', 'partials', 'checkpoint', 'run', 'resume', 'recover', 'backups', 'unlock', 'drain', 'pause', 'watch', 'explain', 'history', 'digest', 'logs', 'redrive', 'redo', 'help'] as const;
export type Command = (typeof COMMANDS)[number] | 'ui';

export interface Cli {
  command: Command;
  positionals: string[];
  json: boolean;
  /** `--json=pretty`: indented JSON for eyes; plain `--json` is compact, for scripts. */
  jsonPretty: boolean;
  /** `--no-cache`: read every artifact, neither trust nor write .checkroom/facts-cache. */
  noCache: boolean;
  write: boolean;
  dryRun: boolean;
  readonly: boolean;
  ascii: boolean;
  next: boolean;
  auto: boolean;
  max: number | null;
  yes: boolean;
  force: boolean;
  /** run <unit> <step>: launch past a spent budget, journalled. */
  overBudget: boolean;
  help: boolean;
  version: boolean;
  restore: string | null;
  /** unlock: the host the operator says held the driver lock. */
  host: string | null;
  /** unlock: ask the running driver of this host to hand over through its control socket. */
  handover: boolean;
  /** history, digest: from when (`2h`, `14:05`, a date; digest: `last` too). */
  since: string | null;
  /** history: one cell (`unit/step`) or unit. */
  cell: string | null;
  /** logs: which attempt (1-based, as the journal numbers it); null: the latest. */
  attempt: number | null;
  /** logs: a pattern (RE2, safe-pattern.ts) the printed lines must match. */
  grep: string | null;
  /** logs: keep printing what the attempt appends until it ends. */
  follow: boolean;
  /** logs: the log's lines as written (escaped), not as readable events. */
  raw: boolean;
  /** drain: undrain. */
  off: boolean;
  /** pause, resume: the agent (redo: the agent of the redone cells, docs/redo.md), the executor, or everything (docs/drain.md); `--cell` is `cell`. */
  agent: string | null;
  executor: string | null;
  all: boolean;
  /** `--workspaces FILE`: the overview of the workspaces the file lists (docs/many.md). */
  workspaces: string | null;
  /** Opened from the overview: Esc with nothing to close goes back to it (docs/many.md). */
  fromOverview: boolean;
  /** redrive: the set action (relaunch, reset, skip, hold) and its name; undo a named one (`last`: the last). */
  action: string | null;
  name: string | null;
  undo: string | null;
  /** redrive: launch what a relaunch left queued (a refusing gate, a restart). */
  drain: boolean;
  /** redo: the prompt for the redone cells' next attempt (docs/redo.md, Fork from here). */
  prompt: string | null;
}

/** Every option of every command, for parseArgs. */
const OPTIONS = {
  json: { type: 'boolean', default: false },
  'no-cache': { type: 'boolean', default: false },
  write: { type: 'boolean', default: false },
  'dry-run': { type: 'boolean', default: false },
  readonly: { type: 'boolean', default: false },
  ascii: { type: 'boolean', default: false },
  next: { type: 'boolean', default: false },
  auto: { type: 'boolean', default: false },
  max: { type: 'string' },
  yes: { type: 'boolean', short: 'y', default: false },
  force: { type: 'boolean', default: false },
  'over-budget': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
  restore: { type: 'string' },
  host: { type: 'string' },
  handover: { type: 'boolean', default: false },
  since: { type: 'string' },
  cell: { type: 'string' },
  attempt: { type: 'string' },
  grep: { type: 'string' },
  follow: { type: 'boolean', short: 'f', default: false },
  raw: { type: 'boolean', default: false },
  off: { type: 'boolean', default: false },
  agent: { type: 'string' },
  executor: { type: 'string' },
  all: { type: 'boolean', default: false },
  workspaces: { type: 'string' },
  'from-overview': { type: 'boolean', default: false },
  action: { type: 'string' },
  name: { type: 'string' },
  undo: { type: 'string' },
  drain: { type: 'boolean', default: false },
  prompt: { type: 'string' },
} as const;

/** A positive integer option (`--max`, `--attempt`), or null when absent. */
function positiveInt(name: string, v: string | undefined): number | null {
  if (v === undefined) return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer, got "${v}"`);
  return n;
}

export function parseCli(argv: string[]): Cli {
  let parsed;
  // `--json=pretty` is the one value `--json` takes; parseArgs has no optional values.
  const end = argv.indexOf('--');
  const opts = end < 0 ? argv : argv.slice(0, end);
  const pretty = opts.includes('--json=pretty');
  const args = pretty ? [...opts.map((a) => (a === '--json=pretty' ? '--json' : a)), ...(end < 0 ? [] : argv.slice(end))] : argv;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: OPTIONS,
    });
  } catch (err) {
    const msg = (err as Error).message.replace(/\. To specify.*$/s, '');
    // A unit or file named like an option (`-x1`) is a positional after `--`.
    const dash = /^Unknown option '(-[^']*)'/.exec(msg);
    throw new UsageError(dash ? `${msg}; if "${dash[1]}" is a unit or a file, put it after the options and --, e.g. checkroom run [dir] --yes -- ${dash[1]} <step>` : msg);
  }
  const { values, positionals } = parsed;
  const first = positionals[0];
  const isCommand = (COMMANDS as readonly string[]).includes(first ?? '');
  const max = positiveInt('max', values.max);
  const attempt = positiveInt('attempt', values.attempt);
  return {
    command: isCommand ? (first as Command) : 'ui',
    positionals: isCommand ? positionals.slice(1) : positionals,
    json: values.json!,
    jsonPretty: pretty,
    noCache: values['no-cache']!,
    write: values.write!,
    dryRun: values['dry-run']!,
    readonly: values.readonly!,
    ascii: values.ascii!,
    next: values.next!,
    auto: values.auto!,
    max,
    yes: values.yes!,
    force: values.force!,
    overBudget: values['over-budget']!,
    help: values.help! || first === 'help',
    version: values.version!,
    restore: values.restore ?? null,
    host: values.host ?? null,
    handover: values.handover!,
    since: values.since ?? null,
    cell: values.cell ?? null,
    attempt,
    grep: values.grep ?? null,
    follow: values.follow!,
    raw: values.raw!,
    off: values.off!,
    agent: values.agent ?? null,
    executor: values.executor ?? null,
    all: values.all!,
    workspaces: values.workspaces ?? null,
    fromOverview: values['from-overview']!,
    action: values.action ?? null,
    name: values.name ?? null,
    undo: values.undo ?? null,
    drain: values.drain!,
    prompt: values.prompt ?? null,
  };
}

export const HELP = `checkroom — a control room for long-running, file-based agent pipelines

Usage
  checkroom [dir]                      open the control room (prints the status when not a terminal,
                                       or on TERM=dumb)
  checkroom DIR1 DIR2 ... | --workspaces FILE
                                       the overview of many workspaces, local or
                                       ssh://[user@]host[:port]/dir, most urgent first (docs/many.md)
  checkroom status [dir] [--json]      where the pipeline stands: phases, batches, matrix, next steps
  checkroom status --json DIR1 DIR2 .. an array, one status document per workspace
  checkroom plan [dir] [--json]        the next-step plan, with priority and reason
  checkroom partials [dir] [--json]    half-products (verdict, characters, reason); suspicious files
  checkroom checkpoint [dir] [--write] checkpoint.md rebuilt from the disk: a preview, or --write
                                       to replace it (the old one is backed up)
  checkroom run [dir] <unit> <step> [--force] [--yes] [--over-budget]
                                       launch one step's agent and wait for it; refuses (exit 2) an
                                       unknown unit, unmet dependencies and a step already done,
                                       and (exit 1) a spent budget unless --over-budget (journalled)
  checkroom run [dir] --next [--auto] [--max N] [--yes]
                                       launch the plan's next step (--auto: go on, at most N steps)
  checkroom explain caps [dir]         the caps in force: attempts in all per failure class, what
                                       happens at the cap (limits.caps changes one)
  checkroom explain secrets [dir]      the declared secrets, where each is read, how each executor
                                       passes them; the kubectl line for a Kubernetes Secret
  checkroom resume [dir] [--write]     the RESUME.md letter to the next session
  checkroom drain [dir] [--off]        start nothing new; "drained" once the last run ends (docs/drain.md)
  checkroom pause|resume [dir] --all|--agent A|--cell U/S|--executor E
                                       hold or free launches of one scope; runs in flight finish
  checkroom recover [dir] [--dry-run] [--json]
                                       the whole recovery flow: sources, stop point, rebuild, plan
  checkroom redo [dir] <unit> <step> [--agent A] [--prompt P] [--yes] [--json]
                                       redo from here: the cell and everything built on it, every
                                       file backed up, queued in plan order; a preview unless --yes
                                       (undo: u in the control room; docs/redo.md)
  checkroom backups [dir] <file> [--restore BACKUP] [--json]
                                       list a file's backups and what differs; restore one
  checkroom history [dir] [--since 2h|14:05] [--cell UNIT/STEP] [--json]
                                       the journal as a timeline: runs (duration, cost, class),
                                       decisions, breakers, escalations, sessions (docs/history.md)
  checkroom digest [dir] [--since last|2h] [--json]
                                       while you were away: done, failed, escalated, spent since
                                       the last session ended, and what needs you first
  checkroom watch [dir] --json         stream a running control room's events as NDJSON (cell
                                       changed, run started/ended, breaker, escalation, autopilot);
                                       exit 1 when none runs
  checkroom logs [dir] <unit> <step> [--attempt N] [--grep RE] [--follow] [--raw]
                                       an attempt's log (the latest unless --attempt), as readable
                                       events (--raw: as written); --grep prints matching lines;
                                       exit 1 when nothing matched or the log is gone (docs/logs.md)
  checkroom logs [dir] --grep RE       search every attempt's log of the workspace
  checkroom redrive [dir] <filter> [--action relaunch|reset|skip|hold] [--name N] [--yes] [--json]
                                       a set action on the cells a filter names (class=RATE_LIMITED
                                       from=02:00 to=04:00 …): the preview, or with --yes one named,
                                       undoable journal record (--undo NAME|last --yes; --drain --yes
                                       launches a relaunch's queue left over) (docs/redrive.md)
  checkroom unlock [dir] --host NAME   remove .checkroom/driver.lock left by a checkroom on host
                                       NAME (down or unreachable); refused unless NAME is the
                                       lock's host, or if its holder runs on this host
  checkroom unlock [dir] --handover    ask the checkroom that drives here (this host) to hand
                                       over: it leaves its runs running and exits; the next
                                       checkroom (or a read-only one open now) drives and adopts them

Options
  --json       machine-readable output, compact (see README: the status contract);
               --json=pretty indents it for reading
  --no-cache   status, plan, partials: read every artifact instead of trusting
               .checkroom/facts-cache (which a plain status keeps up to date)
  --readonly   the control room never writes and never launches
  --ascii      ASCII for every symbol and punctuation mark, letters of every script kept
               (automatic for TERM=linux and dumb). A non-UTF-8 locale (LANG=C) or TERM=vt*
               sends ASCII only, other characters escaped (\\u4e66): LC_ALL=C for that.
               TERM=dumb prints the status instead of the control room. --json is UTF-8.
  --write      checkpoint, resume: write (without it: a preview, nothing written)
  --dry-run    recover: say what would be rebuilt, change nothing
  --force      run: launch even when the step's dependencies are not done or it is already done
  -y, --yes    run: no question before the first launch (implied when stdin is not a terminal);
               redrive: do it (without: the preview)
               redo: apply the previewed redo
  --restore B  backups: restore backup B (the current file is backed up first)
  --agent A, --prompt P   redo: the redone cells' next attempt runs agent A, prompt file P
  --host NAME  unlock: the host that holds the driver lock (a stale lock of this host is
               taken over by the next start, with a notice)
  --handover   unlock: the running driver hands over instead (its terminal may be gone)
  -h, --help   this help;  -v, --version   the version
  --           ends the options: what follows is a unit, step or file even if it starts with -

Exit codes: 0 success, 1 runtime error, 2 bad usage or bad config.
Environment: NO_COLOR disables colour; CHECKROOM_WATCH=poll rescans periodically instead of
watching (NFS, SSHFS); COLUMNS sets the width of piped output; status --json asks a running
control room first (CHECKROOM_SOCKET=off: always scan).`;
