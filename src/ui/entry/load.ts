import type { runControlRoom } from './entry.js';
import { growHeapByHalf, keepYoungGenerationSmall } from '../../live/idle-gc.js';

// Ink decides once, when its module is evaluated, whether it runs "in CI" (the is-in-ci
// package: CI or CONTINUOUS_INTEGRATION set and not "0"/"false"); there it draws nothing
// until the app exits. The control room only starts on a real terminal, so an exported
// CI=true (a runner box, a CI shell reached over SSH, our own CI driving tmux) must not
// leave the operator a blank screen. The variables are hidden while ink loads and put
// back right after, so the agents we launch still see the environment the operator had.

const CI_VARS = ['CI', 'CONTINUOUS_INTEGRATION'] as const;

export async function loadControlRoom(env: NodeJS.ProcessEnv = process.env): Promise<typeof runControlRoom> {
  // Before the UI and the engine load: the control room's heap is the one that gets large.
  // The young generation is kept at its first size from here, not from the live model's
  // open (which still asks): by then Ink, React and the first frame had grown it (measured
  // at 50k files after growHeapByHalf: peak RSS 150 → 137 MB, the same CPU).
  growHeapByHalf();
  keepYoungGenerationSmall();
  const hidden = CI_VARS.filter((k) => k in env).map((k) => [k, env[k]] as const);
  for (const [k] of hidden) delete env[k];
  try {
    return (await import('./entry.js')).runControlRoom;
  } finally {
    for (const [k, v] of hidden) env[k] = v;
  }
}

/** The overview's entry (docs/many.md), loaded with CI hidden from Ink like the control room. */
export async function loadOverview(env: NodeJS.ProcessEnv = process.env): Promise<typeof import('./overview.js').runOverview> {
  const hidden = CI_VARS.filter((k) => k in env).map((k) => [k, env[k]] as const);
  for (const [k] of hidden) delete env[k];
  try {
    return (await import('./overview.js')).runOverview;
  } finally {
    for (const [k, v] of hidden) env[k] = v;
  }
}
