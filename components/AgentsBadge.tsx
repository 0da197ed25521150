import { useAppStore } from '../hooks/use-app-store.js';
import { T } from './Styled.js';
import { budgetSpent, headerSpend } from '../src/ui/views/spend.js';
import { silenceWords } from '../src/socket/handover.js';
import { operatorOf } from '../src/ui/store/operator.js';
import { quotaCountdown } from '../src/operator/words.js';

// Header pieces for the agent supervisor: autopilot ("auto on/off/PAUSED"), and who drives when this
// instance is read-only (a second checkroom on the same workspace).

export function AutopilotBadge() {
  // The operator model's state: paused wins over on, and an observer shows the driver's.
  const auto = useAppStore((s) => (s.agents.snap ? operatorOf(s).autopilot.state : null));
  if (!auto) return null;
  // Short words: the live line also carries the watch mode, checkpoint time and scan time.
  return auto === 'on' ? <T tok="accent">auto on · </T> : auto === 'paused' ? <T tok="warn">auto PAUSED · </T> : <T tok="muted">auto off · </T>;
}

/** An account waiting for its quota's reset: one countdown from the model's deadline (docs/quota.md); "+1" more accounts. */
export function QuotaBadge() {
  const words = useAppStore((s) => {
    if (!s.agents.snap) return '';
    const m = operatorOf(s);
    const first = m.quota[0];
    return first ? `${quotaCountdown(first, m.at)}${m.quota.length > 1 ? ` +${m.quota.length - 1}` : ''}` : '';
  });
  return words ? <T tok="warn">{words} · </T> : null;
}

/** Money and tokens spent, "spent $0.04 of $2.50 this session · … · ", when agents reported any. */
export function SpendBadge() {
  const words = useAppStore((s) => headerSpend(s.agents.snap?.ledger.costs, s.agents.limits?.budget));
  const spent = useAppStore((s) => budgetSpent(s.agents.snap?.ledger.costs, s.agents.limits?.budget));
  if (!words) return null;
  return <T tok={spent ? 'warn' : 'muted'}>{words} · </T>;
}

/**
 * "read-only: pid 4242@host drives · T take over · its terminal silent 14 min · " when another instance holds the driver
 * lock, with how long its terminal has sent no key when that is a minute or more (a terminal that vanished without a close looks alive otherwise).
 */
export function useDriverNote(): string {
  return useAppStore((s) => {
    const snap = s.agents.snap;
    if (!snap || snap.role !== 'readonly') return '';
    const h = snap.holder;
    // No holder: read-only by --readonly, not because someone else drives.
    if (!h) return 'read-only (--readonly) · ';
    const quiet = silenceWords(s.agents.driverLastInput, s.agents.at || Date.now());
    return `read-only: pid ${h.pid}@${h.host} drives · T take over · ${quiet ? `its terminal ${quiet} · ` : ''}`;
  });
}
