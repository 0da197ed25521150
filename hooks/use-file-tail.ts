import { useEffect, useState } from 'react';
import { join } from 'node:path';
import { readTail, type Tail } from '../src/app/tail.js';
import { Confine } from '../src/scan/confine.js';

// The tail of one workspace file for a preview, re-read when the path or the scan changes.

/** `outside`: checkroom.yaml's outside_roots; anything else out of the workspace is not read (issue 8 item 7). */
export function useFileTail(root: string, path: string | null, scannedAt: number, outside?: readonly string[]): { tail: Tail | null; note: string | null } {
  const [result, setResult] = useState<{ key: string; tail: Tail | null; note: string | null }>({ key: '', tail: null, note: null });
  const key = `${path}@${scannedAt}`;
  useEffect(() => {
    if (!path) return;
    let live = true;
    readTail(join(root, path), new Confine(root, outside)).then(
      (tail) => live && setResult({ key, tail, note: null }),
      (err: Error) => live && setResult({ key, tail: null, note: `cannot read: ${err.message}` }),
    );
    return () => {
      live = false;
    };
  }, [root, path, key, outside]);
  return result.key === key ? result : { tail: null, note: null };
}
