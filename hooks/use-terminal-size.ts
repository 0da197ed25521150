import { useEffect, useState } from 'react';
import { useStdout } from 'ink';

// The terminal's size, re-read on 'resize'. Fallbacks are the classic 80×24 for streams
// that do not report a size (ink-testing-library's fake stdout has no rows).

export interface Size {
  rows: number;
  columns: number;
}

const read = (s: { rows?: number; columns?: number }): Size => ({ rows: s.rows || 24, columns: s.columns || 80 });

export function useTerminalSize(): Size {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => read(stdout));
  useEffect(() => {
    const onResize = () => setSize(read(stdout));
    onResize();
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}
