import type { SupervisorEvent } from '../run/supervisor/types.js';
import { sanitizeLine } from '../text/sanitize.js';
import { formatDuration } from '../pipeline/duration.js';
import { runNotifier } from './notifier-process.js';
import { admit, calm, flush, summaryAt, type StormState } from './storm.js';
import type { NotifyConfig, NotifyRule } from './types.js';

// The notify commands of one driver (docs/notify.md, Storms): each with its own storm cap, the
// summary it owes, and whether its failure was reported. Effects only; storm.ts decides.

export interface Senders {
  /** Which of these rules' commands may take one more alarm now (their storm caps); the others hold it back. */
  admit(rules: readonly number[]): { go: number[]; held: number };
  /** Run these rules' commands with the payload. */
  send(rules: readonly number[], payload: string): void;
  /** Send every summary still owed, now, then wait for the commands in flight. */
  settle(): Promise<void>;
}

interface RuleState {
  rule: NotifyRule;
  storm: StormState;
  timer: NodeJS.Timeout | null;
  reported: boolean;
  /** One command's alarms go out one after the other, in the order raised (a summary after what it sums up). */
  chain: Promise<void>;
}

export interface SenderHost {
  root: string;
  now(): number;
  emit(e: SupervisorEvent): void;
  /** The payload of a summary standing for `held` alarms. */
  summary(reason: string, held: number): string;
}

export function createSenders(h: SenderHost, cfg: NotifyConfig): Senders {
  const rules: RuleState[] = cfg.rules.map((rule) => ({ rule, storm: calm(), timer: null, reported: false, chain: Promise.resolve() }));
  const inFlight = new Set<Promise<void>>();

  const start = (s: RuleState, payload: string): void => {
    const p = s.chain.then(() => runNotifier(s.rule.command, payload, { cwd: h.root, timeoutMs: cfg.timeoutMs })).then((r) => {
      if (r.ok || s.reported) return;
      s.reported = true;
      h.emit({ type: 'notice', message: sanitizeLine(`notify: ${s.rule.command.join(' ')} failed (${r.why}); the pipeline goes on, and further failures of this command are not reported`) });
    });
    s.chain = p;
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  const sendSummary = (s: RuleState, force: boolean): void => {
    if (s.timer) clearTimeout(s.timer);
    s.timer = null;
    const now = h.now();
    const f = force ? { state: { sent: [...s.storm.sent, now], held: 0 }, held: s.storm.held } : flush(s.storm, now, cfg.storm);
    s.storm = f.state;
    if (f.held > 0) start(s, h.summary(`${f.held} more alarm${f.held === 1 ? '' : 's'} suppressed (at most ${cfg.storm.max} per ${formatDuration(cfg.storm.windowMs)})`, f.held));
    owe(s);
  };

  // A summary owed goes out when the window has room again.
  const owe = (s: RuleState): void => {
    const at = summaryAt(s.storm, cfg.storm);
    if (at === null || s.timer) return;
    s.timer = setTimeout(() => sendSummary(s, false), Math.max(0, at - h.now()));
    s.timer.unref();
  };

  return {
    admit(which) {
      const now = h.now();
      const go: number[] = [];
      for (const i of which) {
        const s = rules[i]!;
        if (s.storm.held > 0) sendSummary(s, false);
        const v = admit(s.storm, now, cfg.storm);
        s.storm = v.state;
        if (v.send) go.push(i);
        else owe(s);
      }
      return { go, held: which.length - go.length };
    },
    send(which, payload) {
      for (const i of which) start(rules[i]!, payload);
    },
    async settle() {
      for (const s of rules) if (s.storm.held > 0) sendSummary(s, true);
      for (const s of rules) if (s.timer) clearTimeout(s.timer);
      await Promise.all([...inFlight]);
    },
  };
}
