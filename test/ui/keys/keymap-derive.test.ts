import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { KEYMAP, bindingLabel, commandById, helpRows } from '../../../src/ui/keys/keymap.js';
import { COMMAND_NAMES, commandLabel, parseCommandLine } from '../../../src/ui/keys/command-line.js';

// Issue 19 item 5: CommandId and the labels were hand-copied beside KEYMAP. They now derive
// from its rows: a row added to the table is a command id, with a label, and nothing else is
// edited.

const KEYMAP_TS = resolve('src/ui/keys/keymap.ts');
const PROBE_TS = resolve('src/ui/keys/__keymap-probe.ts');
const NEW_ROW = "  cmd({ id: 'probe.added', keys: [{ ch: '~' }], hint: 'added', description: 'a row the test adds' }),\n";

/** Type-checks a probe module against keymap.ts as it would be with `extraRow` appended to its rows: both files in memory, nothing written. */
function probeErrors(extraRow: string, probe: string): string[] {
  const text = readFileSync(KEYMAP_TS, 'utf8');
  // After the last row (the prompt line's cancel), whatever the table is called.
  const last = text.indexOf("cmd({ id: 'prompt.cancel'");
  expect(last, 'keymap.ts has the prompt.cancel row').toBeGreaterThan(0);
  const at = text.indexOf('\n', last) + 1;
  const patched = text.slice(0, at) + extraRow + text.slice(at);
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    jsx: ts.JsxEmit.ReactJSX,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const files = new Map([
    [KEYMAP_TS, patched],
    [PROBE_TS, probe],
  ]);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => files.has(resolve(f)) || fileExists.call(host, f);
  host.readFile = (f) => files.get(resolve(f)) ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, ...rest) => {
    const own = files.get(resolve(f));
    return own !== undefined ? ts.createSourceFile(f, own, lang) : getSourceFile.call(host, f, lang, ...rest);
  };
  const program = ts.createProgram([PROBE_TS], options, host);
  const probeFile = program.getSourceFile(PROBE_TS)!;
  return [...program.getSemanticDiagnostics(probeFile), ...program.getSyntacticDiagnostics(probeFile)].map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  );
}

// One program (a type check takes seconds): the added row's id must be a CommandId, and an id
// no row has must not be (so CommandId did not simply become `string`).
const PROBE = [
  "import type { CommandId } from './keymap.js';",
  "export const added: CommandId = 'probe.added';",
  '// @ts-expect-error: no row has this id',
  "export const missing: CommandId = 'probe.missing';",
  '',
].join('\n');

describe('CommandId derives from KEYMAP', () => {
  it('a row added to the key table is a CommandId, with no other edit; an id no row has is not', { timeout: 120_000 }, () => {
    expect(probeErrors(NEW_ROW, PROBE)).toEqual([]);
  });
});

describe('labels derive from the bindings', () => {
  it('a row without its own label reads as its first key, or its : name when it has no key', () => {
    expect(commandById('run.launch').label).toBe('enter');
    expect(commandById('view.prev').label).toBe('shift-tab');
    expect(commandById('quit').label).toBe('q');
    expect(commandById('partial.unskip').label).toBe(':unskip');
    expect(commandById('recover.open').label).toBe(':recover');
    expect(bindingLabel({ ch: 'c', ctrl: true })).toBe('ctrl-c');
    for (const c of KEYMAP) {
      const derived = c.keys[0] ? bindingLabel(c.keys[0]) : commandLabel(c.id);
      // A row may say more (`k/↑` for k and up), never something its first key is not.
      expect(c.label.startsWith(derived), `${c.id}: ${c.label} vs ${derived}`).toBe(true);
    }
  });

  it('every row is dispatchable by its id and listed in the ? overlay, and every : name runs a row', () => {
    const rows = helpRows(false);
    for (const c of KEYMAP) {
      expect(commandById(c.id)).toBe(c);
      expect(rows.some((r) => r.description === c.description && r.keys === c.label)).toBe(true);
    }
    for (const n of COMMAND_NAMES) {
      const parsed = parseCommandLine(`:${n}`);
      expect('id' in parsed && KEYMAP.some((c) => c.id === parsed.id), n).toBe(true);
    }
  });
});
