import { loadConfig } from '../../pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../run/supervisor/supervisor.js';
import type { LiveWorkspace } from '../../live/live-workspace.js';
import type { AgentsOptions } from './types.js';
import { killLiveRunsNow } from '../../run/process/live-runs.js';

// The entry's side of the supervisor: open it beside the live workspace (the driver lock
// decides driver or read-only), and close it on the way out — cancelling what is in flight,
// or leaving it running for the next checkroom to adopt.

export interface OpenedAgents {
  options: AgentsOptions | undefined;
  why: string | null;
  /** `reason`: how the session ended (quit, a signal, a closed terminal, a crash), journaled with the stop. */
  close(mode: 'cancel' | 'leave' | null, say: (line: string) => void, reason?: string): Promise<void>;
  /** A shutdown out of time: kill the runs (unless left running), journal the stop, release the lock — synchronously. */
  closeNow(mode: 'cancel' | 'leave' | null, reason: string): void;
}

export async function openAgents(live: Pick<LiveWorkspace, 'state'>, readonly: boolean): Promise<OpenedAgents> {
  const none = (why: string): OpenedAgents => ({ options: undefined, why, close: async () => undefined, closeNow: () => undefined });
  let sup: Supervisor;
  let config;
  try {
    config = await loadConfig(live.state.root);
    if (Object.keys(config.agents).length === 0) return none('checkroom.yaml configures no agents (see the agents: section of the README)');
    // With --readonly the supervisor only reads the journal: the Health view shows the history.
    sup = await openSupervisor({ root: live.state.root, config, readonly });
  } catch (err) {
    return none(`cannot start the supervisor: ${(err as Error).message}`);
  }
  return {
    options: { sup, config },
    why: null,
    async close(mode, say, reason = 'quit') {
      const snap = sup.snapshot();
      const n = snap.runs.length + snap.waiting.length;
      if (mode === 'leave' && n > 0) {
        // Handed to relays (or, for cluster jobs, simply not cancelled) and journaled with the
        // stop; said after the fact, with what was really left.
        const left = await sup.close({ leave: true, reason });
        const k = left.length;
        if (k > 0) say(`checkroom: ${k} run${k === 1 ? '' : 's'} left running; the next checkroom on this workspace adopts ${k === 1 ? 'it' : 'them'} and decides by the marker`);
        if (k < n) say(`checkroom: ${n - k} of ${n} could not be left running (a retry waiting for its backoff, or a run that could not be handed over) and ${n - k === 1 ? 'was' : 'were'} stopped`);
        return;
      }
      if (n > 0) say(`checkroom: cancelling ${n} run${n === 1 ? '' : 's'} in flight…`);
      await sup.close({ cancel: true, reason });
    },
    closeNow(mode, reason) {
      if (mode !== 'leave') killLiveRunsNow();
      sup.closeNow(reason);
    },
  };
}
