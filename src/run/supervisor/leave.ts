import type { LeftRunning } from '../journal/journal.js';
import type { Flight } from './cell.js';
import type { RunResult } from './types.js';

// "Leave running" (docs/reliability.md): every live run is handed to a relay (relay.ts) and listed,
// so the session stop tells the next checkroom which agents are still ours and where their
// output goes. Retries waiting for their backoff are dropped (the next session plans them
// again); a run whose handle cannot be left is stopped rather than orphaned.

export async function leaveFlights(flights: Map<string, Flight>, running: Map<string, Promise<RunResult>>): Promise<LeftRunning[]> {
  const left: LeftRunning[] = [];
  const settled: Promise<RunResult>[] = [];
  for (const [key, f] of flights) {
    const h = f.handle;
    if (h && f.runId && h.leave) {
      const relayPid = await h.leave();
      const job = h.job ? { executor: h.job.executor, jobId: h.job.id } : {};
      left.push({ runId: f.runId, unit: f.unit, step: f.step, pid: h.pid, procStart: h.procStart, logPath: f.logPath ?? '', relayPid, ...job });
      continue;
    }
    // A flight still starting (no handle yet) must not start after all and then hold the close
    // until its agent ends: a hang-up mid-autopilot would run into the shutdown's deadline.
    if (!h) Object.assign(f, { cancelled: true, cancelledBy: 'shutdown' });
    h?.cancel();
    f.wait?.resolve(true);
    const r = running.get(key);
    if (r) settled.push(r);
  }
  await Promise.allSettled(settled);
  return left;
}
