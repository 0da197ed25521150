#!/usr/bin/env node
import { statusFast } from './socket/client-fast.js';

// The bin (the bundle's entry): `status --json` with a control room running is answered from
// its socket before the rest of the CLI is loaded (issue 10 item 4); everything else is cli.ts.

const fast = await statusFast(process.argv.slice(2), process.env, (b) => process.stdout.write(b));
if (fast !== 'answered') {
  // Asked already and nobody answered: the CLI scans without asking a second time.
  if (fast === 'asked') process.env.CHECKROOM_SOCKET = 'off';
  await import('./cli.js');
}
