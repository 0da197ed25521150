import type { CommandId } from './keymap.js';
import { VIEWS } from '../views/views.js';

// The `:` command line: a name maps to a command of the key table, so `:write-checkpoint`
// and `w` run the same code (and both confirm, and both are refused in read-only mode).

// NAMES is typed by its values, not by CommandId: the key table's rows use these names in
// their labels, and CommandId is derived from those rows. IDS checks them.
const NAMES = {
  ...Object.fromEntries(VIEWS.map((v) => [v.id, `view.${v.id}` as const])),
  q: 'quit',
  quit: 'quit',
  help: 'help',
  refresh: 'refresh',
  'write-checkpoint': 'checkpoint.write',
  recover: 'recover.open',
  'write-resume': 'resume.write',
  'write-todos': 'todos.writeback',
  backups: 'backups.open',
  undo: 'undo',
  unskip: 'partial.unskip',
} as const;

/** Every name runs a command of the key table (a misspelt id fails the type check here). */
const IDS: Readonly<Record<string, CommandId>> = NAMES;

export const COMMAND_NAMES: readonly string[] = Object.keys(NAMES);

/** How a key-less command is typed (`:unskip`), for the key table's label: named once, in NAMES.
 *  Takes a string: the key table calls it while its rows, and so CommandId, are being built. */
export const commandLabel = (id: string): string => {
  const name = COMMAND_NAMES.find((n) => IDS[n] === id);
  if (!name) throw new Error(`command ${id} has no key and no : name`);
  return `:${name}`;
};

export function parseCommandLine(text: string): { id: CommandId } | { error: string } {
  const name = text.trim().replace(/^:/, '').toLowerCase();
  if (name === '') return { error: 'empty command; try :help' };
  const id = IDS[name];
  return id ? { id } : { error: `unknown command ":${name}" — try ${COMMAND_NAMES.filter((n) => n !== 'quit').map((n) => `:${n}`).join(' ')}` };
}
