import { BUILT_IN_CLASSES } from '../../pipeline/failure-classes.js';
import { sanitizeLine } from '../../text/sanitize.js';
import type { AgentFacts } from '../adapters/types.js';
import type { AttemptClass } from '../policy/classify.js';
import { readableLine } from '../logs/event.js';
import type { ProcessOutcome } from '../types.js';

// What went wrong in one attempt, in one line ("retry context is the
// failure"). `{last_error}` in the next attempt's argv, Health's "last error" and the
// breaker's failure summary all read this one line, journalled with the exit. Before, they
// took the last non-empty output line: "starting", "finished (forgot marker)", or a raw JSON
// stream line. Here it is the classified error: the API's message, the exit reason, the
// watchdog's reason, the verifier's complaint, or the output line that showed the class.

export interface FailureContext {
  /** The adapter's facts of the attempt (empty for a command agent). */
  facts: AgentFacts | null;
  /** The step's output, relative to the workspace, and its marker: the verifier's words. */
  outputRel: string;
  marker: string;
  /** The command's first element, for spawn failures. */
  program: string;
  /** Who cancelled, when the attempt was cancelled by checkroom. */
  cancelledBy?: 'operator' | 'shutdown';
  /** True when the adapter's stream is the output (JSON lines): its raw lines are no message. */
  structured: boolean;
}

const MAX = 300;

const line = (s: string): string => sanitizeLine(s.replace(/\s+/g, ' ').trim()).slice(0, MAX);

const exitWords = (o: ProcessOutcome): string => (o.signal ? `killed by ${o.signal}` : o.exitCode === null ? 'ended' : `exit ${o.exitCode}`);

/** The output line that shows the class (its sign), else the last that reads as an error, else the last. */
const telltale = (cls: AttemptClass, o: ProcessOutcome): string | null => {
  const lines = o.tail.map((l) => l.trim()).filter((l) => l !== '');
  const sign = BUILT_IN_CLASSES.signs.find((s) => s.class === cls);
  if (sign) {
    const hit = [...lines].reverse().find((l) => sign.test(l, o.exitCode));
    if (hit) return hit;
  }
  const errorish = [...lines].reverse().find((l) => /\b(?:error|fail(?:ed|ure)?|fatal|exception|denied|refused|cannot|can't|unable|invalid|traceback)\b/i.test(l));
  return errorish ?? lines.at(-1) ?? null;
};

const fromFacts = (f: AgentFacts): string | null => {
  const r = f.result;
  if (r && r.denied.length > 0) return `permission denied: ${r.denied.join('; ')} (the agent may write only its own output unless allowed_tools or permission_mode says more)`;
  if (r?.isError) {
    const head = [r.apiErrorStatus === null ? 'API error' : `API error ${r.apiErrorStatus}`, r.terminalReason].filter(Boolean).join(', ');
    return r.text ? `${head}: ${r.text}` : head;
  }
  if (f.errorType) return `API error: ${f.errorType}`;
  return null;
};

/** The one-line error of a failed attempt; '' for SUCCESS and CANCELLED. */
export function failureMessage(cls: AttemptClass, o: ProcessOutcome, ctx: FailureContext): string {
  if (cls === 'SUCCESS') return '';
  if (cls === 'CANCELLED' && ctx.cancelledBy === 'shutdown') return 'stopped with the session (a signal or a quit that cancelled its runs)';
  if (cls === 'CANCELLED') return o.tail.some((l) => /cancelled outside checkroom/.test(l)) ? line(o.tail.find((l) => /cancelled outside checkroom/.test(l))!.replace(/^\[checkroom\]\s*/, '')) : 'cancelled by the operator';
  if (o.infra) return line(`the scheduler says: ${o.infra}`);
  if (o.oomKilled) return 'killed for memory (OOMKilled)';
  if (o.stalled) return line(`stopped by the idle watchdog: no output and no growth of ${ctx.outputRel}`);
  if (o.timedOut) return 'stopped at the overall timeout';
  if (o.spawnError) return line(`cannot start ${ctx.program}: ${o.spawnError}`);
  const facts = ctx.facts ? fromFacts(ctx.facts) : null;
  if (facts) return line(facts);
  if (cls === 'VERIFICATION_FAILED' && o.exitCode === 0) {
    return line(ctx.marker ? `exited 0 but the last line of ${ctx.outputRel} is not <!-- ${ctx.marker} -->` : `exited 0 but ${ctx.outputRel} did not pass its check`);
  }
  const shown = ctx.structured ? null : telltale(cls, o);
  return line(shown ? `${shown} (${exitWords(o)})` : `${exitWords(o)} with no output`);
}

/**
 * Journals written before the exit carried its error: the old reading of the tail. A stream's
 * tail (Claude Code, JSON lines) is read as events, the last error first (docs/logs.md,
 * "Readable events"): Health's "last error" was a raw JSON line.
 */
export const legacyErrorOf = (tail: readonly string[]): string => {
  const lines = tail.filter((x) => x.trim() !== '');
  if (lines.some((x) => x.trimStart().startsWith('{'))) {
    const events = lines.map(readableLine);
    const ev = [...events].reverse().find((e) => e.kind === 'error') ?? events.at(-1);
    return ev ? line(ev.text) : '';
  }
  const l = lines.at(-1);
  return l ? line(l) : '';
};
