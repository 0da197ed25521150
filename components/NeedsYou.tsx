import { useAppStore } from '../hooks/use-app-store.js';
import { needsYouOf, needsYouWords } from '../src/notify/needs-you.js';
import { T } from './Styled.js';

// The header's "needs you" banner (docs/notify.md, Banner): escalations not yet acknowledged,
// until `A`; a new escalation brings it back. It leads its line so 80 columns never cut it.

export function NeedsYouBadge() {
  const n = useAppStore((s) => needsYouOf(s.agents.snap?.ledger).count);
  const first = useAppStore((s) => needsYouOf(s.agents.snap?.ledger).cells[0] ?? '');
  if (n === 0) return null;
  return (
    <T tok="fail">
      ✋ {needsYouWords(n)}
      {n === 1 ? ` (${first})` : ''} · A ack ·{' '}
    </T>
  );
}
