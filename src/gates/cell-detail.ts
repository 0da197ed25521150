import { formatMinute } from '../text/local-time.js';
import type { Cell } from '../types.js';
import type { GateCell, GateProof, GateProofKind } from './types.js';

// How the cell detail speaks about a gate cell (docs/domain.md, Workflow gate files): the
// proof of completion is a passing gate file, not a marker at the end of an artifact, and
// the plan's status is the claim that checkpoint.md makes for the book. Pure: the component
// only lays these lines out, and escapes the gate's own text (errors, timestamps, paths)
// where it draws it (components/Styled.tsx).

export const isGateCell = (cell: Cell): cell is GateCell => typeof (cell as Partial<GateCell>).gate === 'object' && (cell as Partial<GateCell>).gate !== null;

/** Reasoning paths are shown from here down: the shared prefix only takes room. */
const HISTORY = /^\.claude\/context\/history\//;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `2026-11-29 10:02`, local time: when the gate file was last written. */
export const localMinute = (ms: number): string => formatMinute(new Date(ms));

/** The `gate` line: what the gate file proves, or why there is no proof. */
export function describeProof(p: GateProof): string {
  const first = p.errors[0] === undefined ? '' : p.errors[0];
  switch (p.kind) {
    case 'passed':
      if (p.provenBy?.length) return `cut off mid-write, counted as passed: ${p.provenBy.join('; ')}`;
      return `passed (file, ${p.shape ?? 'gate'} gate)${p.timestamp ? ` · validated ${p.timestamp}` : ''}`;
    case 'skipped':
      return 'skipped (file): settled without running';
    case 'failed':
      return `failed ${p.failureClass ?? 'UNKNOWN'}${p.errors.length ? ` · ${plural(p.errors.length, 'error')}: ${first}` : ''}`;
    case 'cut_off':
      return 'cut off mid-write: proves nothing; re-run the validation';
    case 'unreadable':
      return `unreadable${first ? ` (${first})` : ''}: proves nothing; re-run the validation`;
    case 'interrupted':
      return `no gate yet · interrupted: no final decision in ${p.reasoning ? p.reasoning.replace(HISTORY, '') : 'its reasoning'}`;
    case 'none':
      return 'no gate yet';
  }
}

/** What the disk says, in a word or two, next to the plan's claim. */
export const GATE_DISK_WORD: Record<GateProofKind, string> = {
  passed: 'gate passed',
  skipped: 'gate skipped',
  failed: 'gate failed',
  cut_off: 'gate cut off',
  unreadable: 'gate unreadable',
  interrupted: 'reasoning, no gate',
  none: 'no gate',
};

export interface GateDetailLines {
  size: string;
  gate: string;
  claims: string;
}

/** The detail's size, gate and claims lines; `claim` is the plan's status as shown, or null. */
export function gateDetailLines(cell: GateCell, claim: string | null): GateDetailLines {
  return {
    size: cell.exists ? `${cell.bytes} bytes · ${cell.chars} characters · written ${localMinute(cell.mtimeMs)}` : 'no gate file on disk',
    gate: describeProof(cell.gate),
    claims: `plan: ${claim ?? 'no status'}   disk: ${GATE_DISK_WORD[cell.gate.kind]}`,
  };
}
