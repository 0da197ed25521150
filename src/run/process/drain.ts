import type { Readable } from 'node:stream';

// After an agent exits, what it wrote is still in its pipes: read it to the end, but only for
// a bounded time. A process that keeps a pipe open — one checkroom could not
// stop — must not hold the run open: then the streams are destroyed and the run ends anyway.

/** How long output is still read after the agent and every process found of its run are gone. */
export const DRAIN_MS = 2000;

const ended = (s: Readable): Promise<void> =>
  new Promise((resolve) => {
    if (s.readableEnded || s.destroyed) return resolve();
    s.once('end', () => resolve());
    s.once('close', () => resolve());
    s.once('error', () => resolve());
  });

/** Wait until every stream ended, at most `ms`; true when some had to be cut off. */
export const drainStreams = async (streams: (Readable | null | undefined)[], ms: number): Promise<boolean> => {
  const open = streams.filter((s): s is Readable => !!s);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<true>((resolve) => {
    timer = setTimeout(() => resolve(true), ms);
  });
  const cut = await Promise.race([Promise.all(open.map(ended)).then(() => false as const), timedOut]);
  clearTimeout(timer);
  if (cut) for (const s of open) if (!s.readableEnded) s.destroy();
  return cut;
};
