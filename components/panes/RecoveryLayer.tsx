import { useAppStore } from '../../hooks/use-app-store.js';
import { BackupsPanel } from './BackupsPanel.js';
import { QuitOffer } from './QuitOffer.js';
import { RecoverReport } from './RecoverReport.js';

// The recovery overlays, by priority: the quit offer, the backups panel, the recover report.

export function RecoveryLayer({ height, width }: { height: number; width: number }) {
  const which = useAppStore((s) => (s.recovery.quitOffer ? 'offer' : s.recovery.backups ? 'backups' : s.recovery.recover ? 'recover' : null));
  if (which === 'offer') return <QuitOffer height={height} width={width} />;
  if (which === 'backups') return <BackupsPanel height={height} width={width} />;
  if (which === 'recover') return <RecoverReport height={height} width={width} />;
  return null;
}
