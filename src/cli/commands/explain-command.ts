import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Cli } from '../args.js';
import { UsageError } from '../args.js';
import type { TextOptions } from '../../text/layout.js';
import type { Out } from './core-commands.js';
import { loadConfig } from '../../pipeline/config/config.js';
import { capRows, capsText } from '../../run/policy/caps-table.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { secretsText } from './explain-secrets.js';

// `checkroom explain caps [dir]`: the caps in force, one row per failure
// class, from the same rows nextMove counts with and docs/agents.md is generated from.

const TOPICS = ['caps', 'secrets'] as const;

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

export async function explainCommand(cli: Cli, o: TextOptions, out: Out): Promise<number> {
  const [topic, dir, ...rest] = cli.positionals;
  if (!TOPICS.includes(topic as (typeof TOPICS)[number])) throw new UsageError(`explain what? topics: ${TOPICS.join(', ')} (e.g. checkroom explain caps [dir])`);
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const root = resolve(dir ?? '.');
  if (dir !== undefined && !isDir(root)) throw new UsageError(`"${dir}" is not a directory`);
  const config = await loadConfig(root);
  if (topic === 'secrets') {
    out.write(secretsText(root, config, o).join('\n'));
    return 0;
  }
  const lines = capsText(capRows(config.limits.caps));
  out.write(
    [
      o.paint('title', `Caps in force for ${sanitizeLine(root)}: attempts in all per failure class`),
      o.paint('muted', lines[0]!),
      ...lines.slice(1),
      '',
      'A cap counts the attempts of a cell while failures of that class occur (since its last success',
      'or reset), as the recovery skill\'s table does: UNKNOWN 2 is "retry once, then escalate"; 0',
      'escalates the moment the class is recognised. Change one with limits.caps in checkroom.yaml',
      '(e.g. caps: { VERIFICATION_FAILED: 4 }); classes retried "never" ignore it.',
      '',
    ].join('\n'),
  );
  return 0;
}
