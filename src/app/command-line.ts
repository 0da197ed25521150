import type { CommandId } from './keymap.js';
import { VIEWS } from './views.js';

// The `:` command line: a name maps to a command of the key table, so `:write-checkpoint`
// and `w` run the same code (and both confirm, and both are refused in read-only mode).

const NAMES: Record<string, CommandId> = {
  ...Object.fromEntries(VIEWS.map((v) => [v.id, `view.${v.id}` as CommandId])),
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
};

export const COMMAND_NAMES = Object.keys(NAMES);

/** How a key-less command is typed (`:unskip`), for the key table's label: named once, in NAMES. */
export const commandLabel = (id: CommandId): string => {
  const name = COMMAND_NAMES.find((n) => NAMES[n] === id);
  if (!name) throw new Error(`command ${id} has no key and no : name`);
  return `:${name}`;
};

export function parseCommandLine(text: string): { id: CommandId } | { error: string } {
  const name = text.trim().replace(/^:/, '').toLowerCase();
  if (name === '') return { error: 'empty command; try :help' };
  const id = NAMES[name];
  return id ? { id } : { error: `unknown command ":${name}" — try ${COMMAND_NAMES.filter((n) => n !== 'quit').map((n) => `:${n}`).join(' ')}` };
}
