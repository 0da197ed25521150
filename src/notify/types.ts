// The alarms that reach the operator (docs/notify.md): which events raise one, the commands
// that carry them, and the terminal's own bell, desktop notification and tab title.

/** Every event an alarm can be raised for, in the words `notify: - on:` takes. */
export const ALARM_EVENTS = ['escalation', 'autopilot_paused', 'budget_spent', 'breaker_open_long', 'batch_complete', 'phase_complete', 'drained'] as const;

export type AlarmEvent = (typeof ALARM_EVENTS)[number];

/** One `notify:` row: the command (an argument array, never a shell string) run for these events. */
export interface NotifyRule {
  on: AlarmEvent[];
  command: string[];
}

/** Terminal alarms, all off by default. `osc`: which desktop notification sequence, or none. */
export interface TerminalAlarms {
  bell: boolean;
  osc: 9 | 99 | 777 | null;
  title: boolean;
}

export interface NotifyConfig {
  rules: NotifyRule[];
  /** A notifier still running after this is killed (its process group), and reported once. */
  timeoutMs: number;
  /** The storm cap: at most `max` alarms per command in any `windowMs`, then one summary. */
  storm: { max: number; windowMs: number };
  /** A breaker not closed for this long raises `breaker_open_long`. */
  breakerOpenMs: number;
  terminal: TerminalAlarms;
}

export const DEFAULT_NOTIFY: NotifyConfig = {
  rules: [],
  timeoutMs: 10_000,
  storm: { max: 5, windowMs: 10 * 60_000 },
  breakerOpenMs: 15 * 60_000,
  terminal: { bell: false, osc: null, title: false },
};

/** One alarm, raised once: `key` names it in the journal (`notified`), so a restart does not raise it again. */
export interface Alarm {
  event: AlarmEvent;
  key: string;
  /** Epoch ms of the fact that raised it. */
  at: number;
  unit: string | null;
  step: string | null;
  /** The failure class of an escalation, else null. */
  class: string | null;
  reason: string;
  agent: string | null;
  batch: number | null;
  phase: number | null;
}
