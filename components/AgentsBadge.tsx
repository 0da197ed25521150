import { sanitizeLine } from '../src/sanitize.js';
import { useAppStore } from '../hooks/use-app-store.js';
import { T } from './Styled.js';

// Header pieces for the agent supervisor: autopilot ("auto on/off/PAUSED"), and who drives when this
// instance is read-only (a second checkroom on the same workspace).

export function AutopilotBadge() {
  const auto = useAppStore((s) => s.agents.snap?.autopilot ?? null);
  if (!auto) return null;
  // Short words: the live line also carries the watch mode, checkpoint time and scan time.
  return auto.on ? <T tok="accent">auto on · </T> : auto.paused ? <T tok="warn">auto PAUSED · </T> : <T tok="muted">auto off · </T>;
}

/** "read-only: pid 4242@host drives · " when another instance holds the driver lock. */
export function useDriverNote(): string {
  return useAppStore((s) => {
    const snap = s.agents.snap;
    if (!snap || snap.role !== 'readonly') return '';
    const h = snap.holder;
    // No holder: read-only by --readonly, not because someone else drives.
    return sanitizeLine(h ? `read-only: pid ${h.pid}@${h.host} drives · ` : 'read-only (--readonly) · ');
  });
}
