#!/usr/bin/env -S node --max-semi-space-size=1
// The flag (peak RSS): V8's young generation grows to 2 × 16 MB while a 50k-file
// workspace is read and stays committed; capped at 1 MB, `status --json` at 50k peaks at
// ~115 MB instead of ~155 MB for the same CPU. V8 takes it only at startup (setting it from
// code later has no effect), hence the shebang; `env -S` splits it (coreutils 8.30+, BSD env).
import { statusFast } from './socket/client-fast.js';

// The bin (the bundle's entry): `status --json` with a control room running is answered from
// its socket before the rest of the CLI is loaded; everything else is cli.ts.

// The control room's bytes are escapeJsonText's already (src/socket/status-text.ts builds them with toJson).
// eslint-disable-next-line no-restricted-syntax -- byte for byte, as the socket answered
const fast = await statusFast(process.argv.slice(2), process.env, (b) => process.stdout.write(b));
if (fast !== 'answered') {
  // Asked already and nobody answered: the CLI scans without asking a second time.
  if (fast === 'asked') process.env.CHECKROOM_SOCKET = 'off';
  await import('./cli.js');
}
