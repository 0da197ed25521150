import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { tabCounts, VIEWS, type ViewId } from '../src/ui/views/views.js';
import { fit } from '../src/text/layout.js';
import { useAppStore } from '../hooks/use-app-store.js';
import { Line, T } from './Styled.js';

// The view bar, from the VIEWS registry: number key, title, how many items each holds. One
// space after an inactive tab: the six views' bar fits 80 columns.

export function Tabs({ width }: { width: number }) {
  const view = useAppStore((s) => s.view);
  const filter = useAppStore((s) => s.filter);
  const n: Record<ViewId, number | null> = useAppStore(useShallow(tabCounts));
  return (
    <Box>
      <Line>
        {VIEWS.map((v) => {
          const label = `${v.key} ${v.title}${n[v.id] !== null ? ` (${n[v.id]})` : ''}`;
          return v.id === view ? (
            <T key={v.id} tok="accent">{`[${label}] `}</T>
          ) : (
            <T key={v.id}>{` ${label} `}</T>
          );
        })}
        {filter ? <T tok="warn">{fit(` /${filter}`, Math.max(8, width - 60))}</T> : null}
      </Line>
    </Box>
  );
}
