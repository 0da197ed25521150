import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { executorFor } from '../executors/registry.js';
import type { Ledger } from '../journal/ledger.js';
import type { OperatorPorts } from './launch.js';
import { SupervisorError } from './types.js';

// The operator's concurrency of an agent, changed while it runs (docs/scale-out.md, Arrays):
// journalled, so a restart (quit, kill -9, takeover) folds it back over checkroom.yaml's; the
// resolved agent's `concurrency` is the one value autopilot's pick, `run --next --auto` and
// the executors read; an executor that throttles a batch itself (a Slurm array's %T) is told.

/** The journal's concurrency over checkroom.yaml's, on the resolved agents (once the ledger is read). */
export const applyConcurrency = (config: WorkspaceConfig, ledger: Pick<Ledger, 'concurrency'>): void => {
  for (const [name, n] of Object.entries(ledger.concurrency)) {
    const agent = config.agents[name];
    if (agent) agent.concurrency = n;
  }
};

/** The same bounds as `concurrency:` in checkroom.yaml. */
export const CONCURRENCY_MIN = 1;
export const CONCURRENCY_MAX = 64;

/** Change it, journal it, carry it to what runs. Resolves with the executor's problems, in words. */
export async function setConcurrency({ ready, roles, ws, journal, pilot }: OperatorPorts, agent: string, n: number): Promise<string[]> {
  await ready;
  roles.refuse('change an agent’s concurrency');
  const def = ws.config.agents[agent];
  if (!def) throw new SupervisorError(`no agent '${sanitizeLine(agent)}' in checkroom.yaml`);
  if (!Number.isInteger(n) || n < CONCURRENCY_MIN || n > CONCURRENCY_MAX) throw new SupervisorError(`concurrency must be a whole number from ${CONCURRENCY_MIN} to ${CONCURRENCY_MAX}, not ${sanitizeLine(String(n))}`);
  await journal.append({ type: 'concurrency', at: journal.now(), agent, concurrency: n });
  def.concurrency = n;
  const problems = (await executorFor(def).throttle?.(ws.root, def, n).catch((err: Error) => [err.message])) ?? [];
  pilot.tick();
  return problems;
}
