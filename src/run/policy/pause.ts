// Drain and pause (docs/drain.md): "finish what runs, start nothing new". One decision,
// `pauseStopOf`, that every launch asks through the supervisor — launchCell (keys, `:`
// commands, autopilot, `checkroom run`, `run --next --auto`, the socket) and each attempt's
// reservation and retry guard (retries, quota waits) — whatever executor runs the cell. Runs
// in flight are never stopped by it. The state is the journal's (`pause` and `drained`
// records, folded by `pauseStep`), so a restart, a kill -9, a takeover and an observer see
// the same.

export type PauseScope = 'all' | 'cell' | 'agent' | 'executor';

/** One pause in force: everything, or one cell ("ch03/draft"), agent or executor. */
export interface PauseRule {
  scope: PauseScope;
  /** null for `all`. */
  target: string | null;
  /** Epoch ms of the record that set it. */
  at: number;
  /** Who: "root via :pause", "root via checkroom pause". */
  by: string;
}

/** Drain: no new launch of any kind; drained once the last run in flight has ended. */
export interface DrainState {
  at: number;
  by: string;
  /** When the last run ended (the `drained` record), or null while runs are in flight. */
  drainedAt: number | null;
}

export interface PauseState {
  drain: DrainState | null;
  /** In the order they were set; one per scope and target. */
  rules: readonly PauseRule[];
}

export const NO_PAUSE: PauseState = { drain: null, rules: [] };

/** What the journal records: `scope: 'drain'` is drain (on) or undrain (off). */
export interface PauseRecord {
  scope: PauseScope | 'drain';
  target: string | null;
  on: boolean;
  at: number;
  by: string;
}

/** Fold one record; a new state only when something changed (views share the old one). */
export function pauseStep(s: PauseState, r: PauseRecord): PauseState {
  if (r.scope === 'drain') {
    if (r.on) return s.drain && s.drain.drainedAt === null ? s : { ...s, drain: { at: r.at, by: r.by, drainedAt: null } };
    return s.drain ? { ...s, drain: null } : s;
  }
  const target = r.scope === 'all' ? null : r.target;
  // `resume all` ends every pause, not only the one of scope all: the operator's "go on".
  if (!r.on && r.scope === 'all') return s.rules.length ? { ...s, rules: [] } : s;
  const rest = s.rules.filter((x) => !(x.scope === r.scope && x.target === target));
  if (!r.on) return rest.length === s.rules.length ? s : { ...s, rules: rest };
  // Paused already: the first pause keeps its who and when.
  if (rest.length !== s.rules.length) return s;
  return { ...s, rules: [...s.rules, { scope: r.scope, target, at: r.at, by: r.by }] };
}

/** The `drained` record: the last run ended while draining. */
export const drainedStep = (s: PauseState, at: number): PauseState => (s.drain && s.drain.drainedAt === null ? { ...s, drain: { ...s.drain, drainedAt: at } } : s);

/** The ledger's fold of one journal record: a pause record, or the drained one (its time). */
export const foldPause = (s: PauseState, e: PauseRecord | { type: 'drained'; at: number }): PauseState => ('type' in e && e.type === 'drained' ? drainedStep(s, e.at) : pauseStep(s, e as PauseRecord));

/** A launch as the decision sees it. */
export interface PauseAsk {
  unit: string;
  step: string;
  agent: string;
  executor: string;
}

export interface PauseStop {
  kind: 'drain' | 'pause';
  rule: PauseRule | null;
  /** The refusal in words: what holds it, who and when, how to resume. */
  reason: string;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');
/** "07:12:05 UTC": the journal's clock, one zone whatever the terminal's. */
export const pauseClock = (at: number): string => {
  const d = new Date(at);
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} UTC`;
};

/** "agent writer", "cell ch03/draft", "everything". */
export const ruleWords = (r: Pick<PauseRule, 'scope' | 'target'>): string => (r.scope === 'all' ? 'everything' : `${r.scope} ${r.target}`);

/** How the operator ends it, on every surface. */
export const resumeHint = (r: Pick<PauseRule, 'scope' | 'target'>): string => {
  const flag = r.scope === 'all' ? '--all' : `--${r.scope} ${r.target}`;
  const arg = r.scope === 'all' ? 'all' : `${r.scope}=${r.target}`;
  return `resume with :resume ${arg} or checkroom resume ${flag}`;
};

const matches = (r: PauseRule, a: PauseAsk): boolean =>
  r.scope === 'all' || (r.scope === 'cell' && r.target === `${a.unit}/${a.step}`) || (r.scope === 'agent' && r.target === a.agent) || (r.scope === 'executor' && r.target === a.executor);

/** The drain's part of the decision, which holds every cell alike: autopilot asks it once per look, not per cell. */
export function drainStopOf(s: PauseState): PauseStop | null {
  if (!s.drain) return null;
  return {
    kind: 'drain',
    rule: null,
    reason: `draining since ${pauseClock(s.drain.at)} (by ${s.drain.by}): no new launch; undrain with :undrain or checkroom drain --off`,
  };
}

/** May this launch go? Null, or why not: drain first (it holds everything), then the first pause that holds the cell. */
export function pauseStopOf(s: PauseState, a: PauseAsk): PauseStop | null {
  const drain = drainStopOf(s);
  if (drain) return drain;
  const r = s.rules.find((x) => matches(x, a));
  if (!r) return null;
  return { kind: 'pause', rule: r, reason: `${ruleWords(r)} paused at ${pauseClock(r.at)} by ${r.by}; ${resumeHint(r)}` };
}

/** The rule a pause or resume names, parsed from `all`, `cell=u/s`, `agent=a`, `executor=e` (the `:` line) — or why it cannot be. */
export function parsePauseTarget(arg: string): Pick<PauseRule, 'scope' | 'target'> | string {
  const a = arg.trim();
  if (a === '' || a === 'all') return { scope: 'all', target: null };
  const m = /^(cell|agent|executor)=(\S+)$/.exec(a);
  if (!m) return `"${a}" names nothing to pause: use all, cell=UNIT/STEP, agent=NAME or executor=NAME`;
  const scope = m[1] as PauseScope;
  if (scope === 'cell' && !/^[^/]+\/[^/]+$/.test(m[2]!)) return `cell=${m[2]} is not UNIT/STEP (e.g. cell=ch03/draft)`;
  return { scope, target: m[2]! };
}
