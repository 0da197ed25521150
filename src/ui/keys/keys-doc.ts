import { helpRows } from './keymap.js';
import { COMMAND_ALIASES } from './command-line.js';

// docs/keys.md is generated from the key table (a hand-written key table had
// drifted from the key map). `npm run docs` writes it; test/house/docs.test.ts fails when the file
// and the key map differ.

const cell = (s: string): string => s.replace(/\|/g, '\\|');
const code = (s: string): string => (s.includes('`') ? `\`\` ${s} \`\`` : `\`${s}\``);

export function renderKeysDoc(): string {
  const rows = helpRows(false).map((r) => `| ${code(r.keys)} | ${cell(r.description)} | ${cell(r.where)} | ${r.writes ? 'confirms first' : ''} |`);
  return [
    '# Keys',
    '',
    '<!-- Generated from src/ui/keys/keymap.ts by `npm run docs`; test/house/docs.test.ts checks it. Do not edit by hand. -->',
    '',
    'One table drives key dispatch, the footer and the `?` overlay. Several keys arriving in one',
    "read (`jjj` over SSH) are all handled. Everything marked \"confirms first\" shows exactly which",
    'files change and how; `--readonly` removes those actions and the ones that launch agents.',
    '',
    '| keys | command | where | writes / runs |',
    '|---|---|---|---|',
    ...rows,
    '',
    '## The command line',
    '',
    '`:` opens it. A name runs when it is typed whole, when its beginning is unique (`:parti` runs',
    '`:partials`) or, when no name begins so, when its letters in order find one name (`:wck` runs',
    '`:write-checkpoint`); several candidates are listed instead, and shown as you type. Tab completes',
    'and, pressed again, cycles the candidates (shift-tab goes back); ↑/↓ walk the lines submitted',
    'before, the last 100 kept in `.checkroom/command-history` (not under `--readonly`). Short names,',
    'as in k9s, win over a beginning:',
    '',
    '| alias | runs |',
    '|---|---|',
    ...Object.entries(COMMAND_ALIASES).map(([a, n]) => `| \`:${a}\` | \`:${n}\` |`),
    '',
    '## Prompts',
    '',
    'Every text prompt (the `:` line, the `/` filter, the log search) edits alike: backspace, ctrl-u',
    'clears the line, ctrl-w deletes the word before the cursor. Esc followed at once by a key (in',
    'one read over tmux or SSH, or within the terminal\'s Esc delay) is both keys: the Esc closes',
    'the prompt, then the key acts. Alt is never bound, as a terminal sends Alt-j as Esc then j.',
    '',
  ].join('\n');
}
