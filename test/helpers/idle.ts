import type { Supervisor } from '../../src/run/supervisor/supervisor.js';

/** The reason of the supervisor's next `idle` event (autopilot has nothing more to launch, or stopped). */
export const idle = (s: Supervisor): Promise<string> =>
  new Promise((resolve) => {
    const off = s.subscribe((e) => {
      if (e.type === 'idle') {
        off();
        resolve(e.reason);
      }
    });
  });
