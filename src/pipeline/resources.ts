import { formatDuration } from './duration.js';

// What one step may use where it runs (docs/scale-out.md, Resources): memory, cpus, gpus, a
// time limit, a Slurm partition and account, and the memory ladder an OOM-killed attempt
// climbs. Pure values and their words; the schema is schema-resources.ts, each executor maps
// them in its own file, and the ladder is decided once in run/policy/memory-ladder.ts.

/** `memory_ladder:` — explicit steps, or a factor from `memory` up to a cap. */
export type MemoryLadder = { steps: number[] } | { factor: number; maxMiB: number };

export interface Resources {
  /** Memory in MiB (binary units, as Slurm reads --mem). */
  memoryMiB?: number;
  cpus?: number;
  gpus?: number;
  /** The attempt's time limit, ms: the agent's `timeout:` for this step. */
  timeMs?: number;
  partition?: string;
  account?: string;
  ladder?: MemoryLadder;
}

const UNIT_MIB: Record<string, number> = { k: 1 / 1024, m: 1, g: 1024, t: 1024 * 1024 };

export const MEMORY_HINT = 'a memory size like 512M, 4G or 1.5T (K, M, G or T: binary units, as Slurm reads them)';

/** `4G`, `512M`, `1.5T`, `8Gi`, `4GB` → MiB (binary units); null when it is not a size. */
export const parseMemory = (text: string | number): number | null => {
  if (typeof text === 'number') return Number.isInteger(text) && text > 0 ? text : null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt])(?:ib?|b)?\s*$/i.exec(text);
  if (!m) return null;
  const mib = Math.ceil(Number(m[1]) * UNIT_MIB[m[2]!.toLowerCase()]!);
  return mib > 0 && Number.isFinite(mib) ? mib : null;
};

/** MiB in the shortest exact binary unit: 4096 → `4G`, 1536 → `1536M`. */
export const formatMemory = (mib: number): string => {
  if (mib % (1024 * 1024) === 0) return `${mib / (1024 * 1024)}T`;
  if (mib % 1024 === 0) return `${mib / 1024}G`;
  return `${mib}M`;
};

/** The step's resources over its agent's, field by field (the step wins). */
export const resourcesOf = (agent: Resources | undefined, step: Resources | undefined): Resources => ({ ...(agent ?? {}), ...(step ?? {}) });

/** The resources in one line, for the launch preview and the cell detail ('' when none). */
export const resourcesWords = (r: Resources, memoryMiB: number | undefined = r.memoryMiB): string =>
  [
    memoryMiB !== undefined ? `memory ${formatMemory(memoryMiB)}` : '',
    r.cpus !== undefined ? `${r.cpus} cpu${r.cpus === 1 ? '' : 's'}` : '',
    r.gpus !== undefined ? `${r.gpus} gpu${r.gpus === 1 ? '' : 's'}` : '',
    r.timeMs !== undefined ? `time ${formatDuration(r.timeMs)}` : '',
    r.partition ? `partition ${r.partition}` : '',
    r.account ? `account ${r.account}` : '',
  ]
    .filter(Boolean)
    .join(', ');
