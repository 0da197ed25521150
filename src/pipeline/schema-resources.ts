import { z } from 'zod';
import { DURATION_HINT, MAX_DURATION_MS, parseDuration } from './duration.js';
import { MEMORY_HINT, parseMemory, type Resources } from './resources.js';

// `resources:` of an agent (its default) and of a step (docs/scale-out.md, Resources; docs/config.md):
// a fragment of its own so the main schema holds one line of it. Values come out resolved
// (MiB, ms); a bad one (`memory: 4X`) is refused at its node with file:line:col.

const memory = z.union([z.string(), z.number()], { error: MEMORY_HINT }).transform((v, ctx) => {
  const mib = parseMemory(v);
  if (mib !== null) return mib;
  ctx.issues.push({ code: 'custom', input: v, message: MEMORY_HINT });
  return z.NEVER;
});

const timeHint = `a time limit above 0 of at most 24 days: ${DURATION_HINT}`;
const time = z.union([z.number(), z.string()], { error: timeHint }).transform((v, ctx) => {
  const ms = parseDuration(v);
  if (ms !== null && ms > 0 && ms <= MAX_DURATION_MS) return ms;
  ctx.issues.push({ code: 'custom', input: v, message: timeHint });
  return z.NEVER;
});

const count = (max: number, min = 1) => {
  const error = `an integer from ${min} to ${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
};

// Slurm names: letters, digits and - _ . only, so an argument can never carry an option.
const slurmName = z.string({ error: 'a string' }).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, { error: "a Slurm name of letters, digits, '-', '_' or '.'" });

const ladderHint = 'a list of rising memory sizes ([4G, 8G, 16G]) or { factor: 2, max: 16G }';
const ladder = z.union(
  [
    z
      .array(memory, { error: ladderHint })
      .min(2, { error: 'at least two memory sizes: a ladder with one step has nowhere to climb' })
      .refine((s) => s.every((m, i) => i === 0 || m > s[i - 1]!), { error: 'memory sizes that rise step by step ([4G, 8G, 16G])' }),
    z.strictObject({ factor: z.number({ error: 'a number from 1.1 to 16' }).min(1.1, { error: 'a number from 1.1 to 16' }).max(16, { error: 'a number from 1.1 to 16' }), max: memory }),
  ],
  { error: ladderHint },
);

export const resourcesSchema = z
  .strictObject({
    memory: memory.optional(),
    cpus: count(4096).optional(),
    gpus: count(64, 0).optional(),
    time: time.optional(),
    partition: slurmName.optional(),
    account: slurmName.optional(),
    memory_ladder: ladder.optional(),
  })
  .superRefine((r, ctx) => {
    const l = r.memory_ladder;
    if (l && !Array.isArray(l) && r.memory === undefined)
      ctx.addIssue({ code: 'custom', path: ['memory_ladder'], message: 'memory: set to the first step (memory: 4G)', params: { problem: 'a factor ladder climbs from memory:, which is not set,' } });
    if (l && !Array.isArray(l) && r.memory !== undefined && l.max <= r.memory)
      ctx.addIssue({ code: 'custom', path: ['memory_ladder', 'max'], message: 'a cap above memory:', params: { problem: 'the cap is not above memory:, so the ladder has no step' } });
  });

export type RawResources = z.output<typeof resourcesSchema>;

/** As the runner uses them. */
export const resourcesFrom = (r: RawResources | undefined): Resources | undefined => {
  if (!r) return undefined;
  const l = r.memory_ladder;
  return {
    ...(r.memory !== undefined ? { memoryMiB: r.memory } : {}),
    ...(r.cpus !== undefined ? { cpus: r.cpus } : {}),
    ...(r.gpus !== undefined ? { gpus: r.gpus } : {}),
    ...(r.time !== undefined ? { timeMs: r.time } : {}),
    ...(r.partition !== undefined ? { partition: r.partition } : {}),
    ...(r.account !== undefined ? { account: r.account } : {}),
    ...(l ? { ladder: Array.isArray(l) ? { steps: l } : { factor: l.factor, maxMiB: l.max } } : {}),
  };
};
