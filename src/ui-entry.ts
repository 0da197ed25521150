import type { Cli } from './cli/args.js';
import type { TextOptions } from './cli/text.js';

export async function runControlRoom(_cli: Cli, _o: TextOptions): Promise<number> {
  throw new Error('the control room is being built');
}
