import { askStatus } from './client.js';

// The front of `checkroom status --json` while a control room runs (≤ 0.3×
// `grep -rl` at 50k). Measured with `node --cpu-prof`: the whole CLI spent ~120 ms loading
// yaml, zod and the engine before it asked the socket, more than the answer itself. This
// module needs node:net, node:fs and node:crypto only; the bin (src/bin.ts) loads it first
// and the rest of the CLI only when no control room answers.

/** The workspace of exactly `status --json [dir]` (in any order); null: anything else is the full CLI's. */
export function statusJsonDir(argv: readonly string[]): string | null {
  let json = false;
  const positionals: string[] = [];
  for (const a of argv) {
    if (a === '--json' && !json) json = true;
    else if (a.startsWith('-')) return null;
    else positionals.push(a);
  }
  if (!json || positionals[0] !== 'status' || positionals.length > 2) return null;
  return positionals[1] ?? '.';
}

/**
 * 'answered': a running control room's answer was written whole. 'asked': none answered
 * (the full CLI scans, and need not ask again). 'not-asked': not a `status --json` call, or
 * CHECKROOM_SOCKET=off.
 */
export async function statusFast(argv: readonly string[], env: NodeJS.ProcessEnv, write: (b: Buffer) => void): Promise<'answered' | 'asked' | 'not-asked'> {
  const dir = statusJsonDir(argv);
  if (dir === null || env.CHECKROOM_SOCKET === 'off') return 'not-asked';
  const chunks = await askStatus(dir, { env });
  if (!chunks) return 'asked';
  for (const c of chunks) write(c);
  return 'answered';
}
