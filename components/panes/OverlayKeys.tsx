import { footerHints, type RecoveryScope } from '../../src/ui/keys/keymap.js';
import { fit } from '../../src/text/layout.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { Line } from '../Styled.js';

// An overlay's own key line, from the same key table that dispatches its keys.

export function OverlayKeys({ scope, width, extra }: { scope: RecoveryScope; width: number; extra?: string }) {
  const view = useAppStore((s) => s.view);
  const readonly = useAppStore((s) => s.readonly);
  const hints = footerHints(scope, view, readonly).map((h) => `${h.label} ${h.hint}`);
  return <Line tok="muted">{fit([...hints, ...(extra ? [extra] : [])].join(' · '), width)}</Line>;
}
