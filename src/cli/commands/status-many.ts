import { resolve } from 'node:path';
import { escapeJsonText } from '../../text/json-escape.js';
import { jsonOut, type Out } from '../text-out.js';

// `checkroom status --json DIR1 DIR2 …` (docs/many.md, docs/status-json.md): an array, one
// document per workspace, each exactly what `status --json DIR` prints (a running control
// room's answer or the scan's), streamed one after the other — a 50k-cell document is never
// held whole. A directory that is not a workspace gets `{ version, workspace, error }` in its
// place and the exit code is 1, so one bad path never hides the others.

/** Writes one workspace's document (the single-dir path of cli.ts). */
export type OneStatus = (dir: string) => Promise<void>;

export async function statusManyCommand(dirs: readonly string[], out: Out, one: OneStatus): Promise<number> {
  const w = jsonOut(out);
  let failed = 0;
  w.write('[');
  for (const [i, dir] of dirs.entries()) {
    if (i > 0) w.write(',');
    try {
      await one(dir);
    } catch (err) {
      failed++;
      const error = String((err as Error)?.message ?? err);
      w.write(escapeJsonText(JSON.stringify({ version: 1, workspace: resolve(dir), error })) + '\n');
    }
  }
  w.write(']\n');
  return failed > 0 ? 1 : 0;
}
