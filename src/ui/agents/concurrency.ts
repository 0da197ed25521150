import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import { CONCURRENCY_MAX, CONCURRENCY_MIN } from '../../run/supervisor/concurrency.js';
import type { storeKit } from '../store/kit.js';
import type { AppState } from '../store/types.js';
import type { SupervisorPort } from './types.js';

// `:concurrency writer 4` (docs/scale-out.md, Arrays): the words after the name, read into an
// agent and a number, or an error that says what to type (pure); then the supervisor's one
// setConcurrency, and Health's slots follow.

export const CONCURRENCY_USAGE = `:concurrency <agent> <${CONCURRENCY_MIN}-${CONCURRENCY_MAX}>`;

export const parseConcurrencyArgs = (args: string, agents: readonly string[]): { agent: string; n: number } | { error: string } => {
  const words = args.trim().split(/\s+/).filter(Boolean);
  // One agent: its name may be left out.
  const [agent, raw] = words.length === 1 && agents.length === 1 ? [agents[0]!, words[0]!] : words;
  if (!agent || raw === undefined || words.length > 2) return { error: `type ${CONCURRENCY_USAGE} (agents: ${agents.join(', ')})` };
  if (!agents.includes(agent)) return { error: `no agent '${agent}' in checkroom.yaml (agents: ${agents.join(', ')})` };
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < CONCURRENCY_MIN || n > CONCURRENCY_MAX) return { error: `concurrency is a whole number from ${CONCURRENCY_MIN} to ${CONCURRENCY_MAX}, not '${raw}'` };
  return { agent, n };
};

type Kit = ReturnType<typeof storeKit>;

interface Deps {
  sup: Pick<SupervisorPort, 'setConcurrency' | 'snapshot'>;
  config: WorkspaceConfig;
  set: (f: (s: AppState) => Partial<AppState>) => void;
  act: Kit['act'];
  sayClean: Kit['sayClean'];
}

/** The agents slice's `:concurrency` action. */
export const concurrencyAction =
  ({ sup, config, set, act, sayClean }: Deps) =>
  (args: string): void => {
    const p = parseConcurrencyArgs(args, Object.keys(config.agents));
    if ('error' in p) return sayClean(p.error, 'warn');
    act(null, async () => {
      const problems = await sup.setConcurrency(p.agent, p.n);
      set((st) => ({ agents: { ...st.agents, concurrency: { ...st.agents.concurrency, [p.agent]: p.n }, snap: sup.snapshot() } }));
      if (problems.length) sayClean(`${p.agent}: concurrency ${p.n}, but ${problems.join('; ')}`, 'warn');
      else sayClean(`${p.agent}: concurrency ${p.n} (journalled; a live Slurm array's throttle follows)`, 'ok');
    });
  };
