import { helpRows } from './keymap.js';

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
  ].join('\n');
}
