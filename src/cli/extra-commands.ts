import type { Cli } from './args.js';
import { UsageError } from './args.js';
import type { TextOptions } from './text.js';
import type { Out } from './core-commands.js';

// Commands that stand on the launcher and the recovery sources.

export async function extraCommands(cli: Cli, _o: TextOptions, _out: Out): Promise<number> {
  throw new UsageError(`unknown command "${cli.command}"`);
}
