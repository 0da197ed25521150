import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { unlockDriverLock } from '../../run/supervisor/lock.js';
import { askHandover } from '../../socket/handover.js';
import { sanitizeLine } from '../../text/sanitize.js';
import type { Cli } from '../args.js';
import { UsageError } from '../args.js';
import type { Out } from './core-commands.js';

// `checkroom unlock [dir] --host NAME`: the checked way out of a driver lock
// held on another host, which this host cannot see die. The operator names the host; the lock
// goes only if it is that host's (lock.ts says why not, and nothing is removed).
// `checkroom unlock [dir] --handover`: the way out of a lock held by a live
// driver of this host whose terminal vanished: asked through its control socket, it leaves
// its runs running and exits, and the next checkroom drives and adopts them.

async function handover(root: string, out: Out): Promise<number> {
  const a = await askHandover(root);
  if (!a.ok) throw new Error(`no handover: ${a.why}`);
  if (!a.released) throw new Error(`pid ${a.pid} accepted the handover but still holds the lock after 30 s; look at its terminal, or wait and run unlock --handover again`);
  out.write(`pid ${a.pid} handed over: its runs keep running; a read-only checkroom open on this workspace drives now, or the next one started does, and adopts them\n`);
  return 0;
}

export async function unlockCommand(cli: Cli, out: Out): Promise<number> {
  if (cli.positionals.length > 1) throw new UsageError(`unexpected argument "${cli.positionals[1]}"`);
  if (cli.host && cli.handover) throw new UsageError('unlock takes --host NAME (a lock left on another host) or --handover (a driver running on this host), not both');
  if (!cli.host && !cli.handover)
    throw new UsageError('unlock needs --handover (the driver runs on this host: it hands its runs over) or --host NAME (the host named in the lock, when that host is down; see the read-only notice of the control room)');
  const root = resolve(cli.positionals[0] ?? '.');
  if (!existsSync(root)) throw new UsageError(`no workspace at ${root}`);
  if (cli.handover) return handover(root, out);
  // A refusal throws: the entry prints it on stderr and exits 1.
  out.write(`${sanitizeLine(unlockDriverLock(root, cli.host!))}\n`);
  return 0;
}
