import { loadConfig } from '../../src/pipeline/config/config.js';
import { openSupervisor, type Supervisor } from '../../src/run/supervisor/supervisor.js';
import type { WorkspaceConfig } from '../../src/pipeline/config/types.js';
import { closeStores, openStore, type StoreRoom } from './store.js';

// The store with a real supervisor under it (the agents slice fed every 10 ms), as the control
// room runs: its keys launch real processes (the demo's fake agent). `closeStoresWithAgents` in
// afterEach closes the stores, then the supervisors, cancelling what still runs.

const sups: Supervisor[] = [];

export async function openStoreWithAgents(root: string): Promise<StoreRoom & { sup: Supervisor; config: WorkspaceConfig }> {
  const config = await loadConfig(root);
  const sup = await openSupervisor({ root, config });
  sups.push(sup);
  return { ...(await openStore(root, { agents: { sup, config, flushMs: 10 } })), sup, config };
}

export async function closeStoresWithAgents(): Promise<void> {
  await closeStores();
  for (const s of sups.splice(0)) await s.close({ cancel: true });
}
