import { useEffect, useState } from 'react';
import { readWorkspaceTail, type TailRead } from '../src/ui/views/tail.js';

// The tail of one workspace file for a preview, re-read when the path or the scan changes.

/** `outside`: checkroom.yaml's outside_roots; anything else out of the workspace is not read. */
export function useFileTail(root: string, path: string | null, scannedAt: number, outside?: readonly string[]): TailRead {
  const [result, setResult] = useState<TailRead & { key: string }>({ key: '', tail: null, note: null });
  const key = `${path}@${scannedAt}`;
  useEffect(() => {
    if (!path) return;
    let live = true;
    void readWorkspaceTail(root, path, outside).then((r) => live && setResult({ key, ...r }));
    return () => {
      live = false;
    };
  }, [root, path, key, outside]);
  return result.key === key ? result : { tail: null, note: null };
}
