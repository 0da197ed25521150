/**
 * A bounded wait for what a real process does, never a wall-clock assertion: polls `ok` every
 * `every` ms until it holds; throws naming `what` (or what it returns, read then) after `ms`.
 */
export const until = async (what: string | (() => string), ok: () => boolean | Promise<boolean>, ms = 60_000, every = 100): Promise<void> => {
  for (const t0 = Date.now(); Date.now() - t0 < ms; await new Promise((r) => setTimeout(r, every))) if (await ok()) return;
  throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
};
