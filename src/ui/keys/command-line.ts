import type { CommandId } from './keymap.js';
import { VIEWS } from '../views/views.js';

// The `:` command line: a name maps to a command of the key table, so `:write-checkpoint`
// and `w` run the same code (and both confirm, and both are refused in read-only mode).

// NAMES is typed by its values, not by CommandId: the key table's rows use these names in
// their labels, and CommandId is derived from those rows. IDS checks them.
const NAMES = {
  ...Object.fromEntries(VIEWS.map((v) => [v.id, `view.${v.id}` as const])),
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
  redrive: 'redrive.open',
  redo: 'cell.redo',
  drain: 'pause.drain',
  undrain: 'pause.undrain',
  pause: 'pause.pause',
  resume: 'pause.resume',
  concurrency: 'run.concurrency',
} as const;

// Short names the hand finds without looking, as k9s' `:po` and `:q`: one table, each a full
// name of NAMES (docs/keys.md, The command line). An alias wins over a prefix: `:p` is plan.
const ALIASES: Readonly<Record<string, string>> = {
  q: 'quit',
  h: 'help',
  p: 'plan',
  pa: 'partials',
  m: 'progress',
  s: 'sources',
  he: 'health',
  hi: 'history',
  r: 'refresh',
  w: 'write-checkpoint',
  u: 'undo',
};

/** Every name runs a command of the key table (a misspelt id fails the type check here). */
const IDS: Readonly<Record<string, CommandId>> = NAMES;

export const COMMAND_NAMES: readonly string[] = Object.keys(NAMES);
export const COMMAND_ALIASES: Readonly<Record<string, string>> = ALIASES;

/** How a key-less command is typed (`:unskip`), for the key table's label: named once, in NAMES.
 *  Takes a string: the key table calls it while its rows, and so CommandId, are being built. */
export const commandLabel = (id: string): string => {
  const name = COMMAND_NAMES.find((n) => IDS[n] === id);
  if (!name) throw new Error(`command ${id} has no key and no : name`);
  return `:${name}`;
};

/** `wck` is in `write-checkpoint`: its letters in order, any gaps between. */
const inOrder = (typed: string, name: string): boolean => {
  let at = 0;
  for (const ch of typed) if ((at = name.indexOf(ch, at) + 1) === 0) return false;
  return true;
};

/** The names `typed` could mean: those it begins, else those holding its letters in order. */
export function commandCandidates(typed: string): string[] {
  const t = typed.trim().replace(/^:/, '').toLowerCase();
  if (t === '') return [...COMMAND_NAMES];
  const prefix = COMMAND_NAMES.filter((n) => n.startsWith(t));
  return prefix.length ? prefix : COMMAND_NAMES.filter((n) => inOrder(t, n));
}

/** A `:` line: its command and the words after the name (`:redrive class=RATE_LIMITED` → args `class=RATE_LIMITED`). */
export function parseCommandLine(text: string): { id: CommandId; args: string } | { error: string } {
  const line = text.trim().replace(/^:/, '');
  const space = line.search(/\s/);
  const name = (space < 0 ? line : line.slice(0, space)).toLowerCase();
  const args = space < 0 ? '' : line.slice(space).trim();
  if (name === '') return { error: 'empty command; try :help' };
  const exact = IDS[ALIASES[name] ?? name];
  if (exact) return { id: exact, args };
  const cands = commandCandidates(name);
  if (cands.length === 1) return { id: IDS[cands[0]], args };
  if (cands.length > 1) return { error: `":${name}" could be ${cands.map((n) => `:${n}`).join(' ')} — type more, or tab to pick` };
  return { error: `unknown command ":${name}" — try ${COMMAND_NAMES.filter((n) => n !== 'quit').map((n) => `:${n}`).join(' ')}` };
}
