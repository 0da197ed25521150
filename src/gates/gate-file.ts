import type { FailureClass } from '../pipeline/config/types.js';
import { BUILT_IN_CLASSES } from '../pipeline/failure-classes.js';
import { sanitizeLine } from '../text/sanitize.js';
import { isRecord, str } from './read-json.js';
import type { Gate, GateShape } from './types.js';

// Gate files (docs/domain.md, Workflow gate files): `{step}-{agent}.json`, step two-digit or decimal
// (`00-planner.json`, `00.1-orchestrator.json`, `04.5-devops.json`), in one of several
// shapes written by real tools. Everything here is pure.

const NAME = /^(\d+(?:\.\d+)?)-(.+)\.json$/i;

/** `04.5-devops.json` → { number: '4.5', agent: 'devops' }; null for other files. */
export function parseStepFile(file: string): { number: string; agent: string } | null {
  const m = NAME.exec(file);
  if (!m) return null;
  return { number: stepKey(m[1])!, agent: m[2] };
}

/**
 * Canonical step key, numeric: `00` → `0`, `00.1` → `0.1`, `"step-4"` → `4`, `4.5` → `4.5`.
 * Plans write numbers, strings and `step-N` dependency names; gates write `04`; all meet here.
 */
export function stepKey(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  const s = str(v);
  const m = s ? /(\d+(?:\.\d+)?)(?!.*\d)/.exec(s) : null;
  return m ? String(Number(m[1])) : null;
}

/** How gate files write a step: integer part padded to two digits (`4.5` → `04.5`). */
export function displayStep(key: string): string {
  const [int, frac] = key.split('.');
  return frac === undefined ? int.padStart(2, '0') : `${int.padStart(2, '0')}.${frac}`;
}

/** Numeric order: 0 < 0.1 < 1 < 4 < 4.5 < 10 (string order would put 10 before 4). */
export const compareSteps = (a: string, b: string): number => Number(a) - Number(b) || a.localeCompare(b);

/** Errors as strings: the shipped writer uses `"/path: message (params)"`; Ajv objects also occur. */
function errorText(e: unknown): string {
  if (typeof e === 'string') return sanitizeLine(e);
  if (isRecord(e)) {
    const where = str(e.instancePath) ?? str(e.path) ?? str(e.field) ?? '';
    const msg = str(e.message) ?? JSON.stringify(e);
    return sanitizeLine(where ? `${where}: ${msg}` : msg);
  }
  return sanitizeLine(JSON.stringify(e) ?? String(e));
}

const errorsOf = (g: Record<string, unknown>): string[] => {
  const raw = g.errors ?? g.issues ?? (g.error !== undefined ? [g.error] : undefined);
  return Array.isArray(raw) ? raw.map(errorText) : raw !== undefined && raw !== null ? [errorText(raw)] : [];
};

const lower = (v: unknown): string | null => (typeof v === 'string' ? v.trim().toLowerCase() : null);

/** Read any known gate shape; null when the JSON has none of them. */
export function normaliseGate(value: unknown, file: string, agent: string): Gate | null {
  if (!isRecord(value)) return null;
  const base = { file, agent, errors: errorsOf(value), timestamp: str(value.timestamp) ?? str(value.validated_at) ?? null };
  // `reason` explains a refusal (`allowed: false`) or a skip; only the former is an error.
  const make = (shape: GateShape, passed: boolean, skipped = false): Gate => {
    const reason = !passed && base.errors.length === 0 && value.reason !== undefined ? [errorText(value.reason)] : [];
    return { ...base, errors: [...base.errors, ...reason], shape, passed, skipped };
  };
  if (value.skipped === true) return make('skipped', value.valid !== false, true);
  const vs = lower(value.validation_status);
  if (vs === 'pass' || vs === 'passed') return make('validation_status', true);
  if (vs === 'fail' || vs === 'failed') return make('validation_status', false);
  if (typeof value.valid === 'boolean') return make('valid', value.valid);
  if (typeof value.allowed === 'boolean') return make('allowed', value.allowed);
  const st = lower(value.status);
  // `fixed`: the gate failed, a fixer ran, and the re-check passed.
  if (st === 'pass' || st === 'fixed') return make('status', true);
  if (st === 'fail' || st === 'fail_after_fix') return make('status', false);
  return null;
}

/** A gate that could not be read: a half-product (truncated) or malformed. Never passed. */
export function brokenGate(file: string, agent: string, shape: 'truncated' | 'malformed', message: string): Gate {
  return { file, agent, shape, passed: false, skipped: false, errors: [sanitizeLine(message)], timestamp: null };
}

/**
 * Failure class of a failed gate (docs/domain.md, Failure classes and their caps). A gate *is* a validation, so errors
 * default to VERIFICATION_FAILED; build and context signs override; no errors at all is UNKNOWN.
 */
export function classifyGate(gate: Gate): FailureClass {
  if (gate.shape === 'truncated' || gate.shape === 'malformed') return 'UNKNOWN';
  const text = gate.errors.join('\n');
  // The gate signs are rows of the failure-class table, tried in its order.
  const signed = BUILT_IN_CLASSES.gateSigns.find((g) => g.sign.test(text));
  if (signed) return signed.class;
  return gate.errors.length > 0 ? 'VERIFICATION_FAILED' : 'UNKNOWN';
}

/**
 * What the first bytes of a cut-off gate say, before the artifact copy (`validated_data`) that
 * may hold `status` fields of its own: true (pass), false (fail) or null (not written yet).
 */
export function cutOffVerdict(head: string): boolean | null {
  const at = head.indexOf('"validated_data"');
  const t = at >= 0 ? head.slice(0, at) : head;
  const m =
    /"validation_status"\s*:\s*"(pass|passed|fail|failed)"/i.exec(t) ??
    /"(?:valid|allowed)"\s*:\s*(true|false)\b/.exec(t) ??
    /"status"\s*:\s*"(pass|fixed|fail|fail_after_fix)"/i.exec(t);
  if (!m) return null;
  return /^(pass|passed|fixed|true)$/i.test(m[1]);
}
