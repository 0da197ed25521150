import type { ReactNode } from 'react';
import { Text } from 'ink';
import type { Token } from '../src/app/theme.js';
import { useTheme } from '../hooks/use-theme.js';

// Text through the theme's semantic tokens; `Line` is one terminal row that never wraps
// (a wrapped row would make the frame taller than the terminal).

export function T({ tok, children }: { tok?: Token; children: ReactNode }) {
  const theme = useTheme();
  return <Text {...(tok ? theme[tok] : {})}>{children}</Text>;
}

export function Line({ tok, children }: { tok?: Token; children?: ReactNode }) {
  const theme = useTheme();
  return (
    <Text wrap="truncate" {...(tok ? theme[tok] : {})}>
      {children ?? ' '}
    </Text>
  );
}
