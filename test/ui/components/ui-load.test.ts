import { describe, expect, it } from 'vitest';
import { loadControlRoom } from '../../../src/ui/entry/load.js';

// The CI variables are hidden only while ink loads (it would draw nothing under CI=true);
// the agents launched afterwards must still see them. The drawing itself is checked in tmux
// with CI=true by the end-to-end tests.
describe('loadControlRoom', () => {
  it('gives the control room and puts the CI variables back as they were', async () => {
    const env: NodeJS.ProcessEnv = { CI: 'true', CONTINUOUS_INTEGRATION: '1', PATH: '/bin' };
    const run = await loadControlRoom(env);
    expect(typeof run).toBe('function');
    expect(env).toEqual({ CI: 'true', CONTINUOUS_INTEGRATION: '1', PATH: '/bin' });
  });

  it('does not invent variables that were not set', async () => {
    const env: NodeJS.ProcessEnv = { PATH: '/bin' };
    await loadControlRoom(env);
    expect(env).toEqual({ PATH: '/bin' });
  });
});
