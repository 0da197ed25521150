import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { unlockDriverLock } from '../run/lock.js';
import { sanitizeLine } from '../sanitize.js';
import type { Cli } from './args.js';
import { UsageError } from './args.js';
import type { Out } from './core-commands.js';

// `checkroom unlock [dir] --host NAME` (issue 8 item 5): the checked way out of a driver lock
// held on another host, which this host cannot see die. The operator names the host; the lock
// goes only if it is that host's (lock.ts says why not, and nothing is removed).

export function unlockCommand(cli: Cli, out: Out): number {
  if (cli.positionals.length > 1) throw new UsageError(`unexpected argument "${cli.positionals[1]}"`);
  if (!cli.host) throw new UsageError('unlock needs --host NAME: the host named in the lock (see the read-only notice of the control room)');
  const root = resolve(cli.positionals[0] ?? '.');
  if (!existsSync(root)) throw new UsageError(`no workspace at ${root}`);
  // A refusal throws: the entry prints it on stderr and exits 1.
  out.write(`${sanitizeLine(unlockDriverLock(root, cli.host))}\n`);
  return 0;
}
