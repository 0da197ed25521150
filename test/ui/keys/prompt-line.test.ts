import { afterEach, describe, expect, it } from 'vitest';
import { COMMAND_ALIASES, commandCandidates, parseCommandLine } from '../../../src/ui/keys/command-line.js';
import { editLine } from '../../../src/ui/keys/line-edit.js';
import { HISTORY_KEPT, remember } from '../../../src/ui/keys/prompt-line.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND_HISTORY_FILE } from '../../../src/ui/keys/command-history-file.js';
import { closeStores, openStore, tokens } from '../../helpers/store.js';
import { copyDemo } from '../../helpers/workspace.js';

// Keys that fit the hand (issue 21 item 6): the `:` line completes, matches a unique beginning
// or letters in order, keeps a history, and every prompt clears with ctrl-u and ctrl-w.

afterEach(closeStores);

const key = (k: string) => tokens(k)[0];

describe('the : line resolves what the hand types', () => {
  it('a unique beginning runs its command; an ambiguous one lists the candidates', () => {
    expect(parseCommandLine(':parti')).toEqual({ id: 'view.partials', args: '' });
    expect(parseCommandLine('hist')).toEqual({ id: 'view.history', args: '' });
    const re = parseCommandLine(':re');
    expect(re).toMatchObject({ error: expect.stringContaining(':recover') });
    expect(re).toMatchObject({ error: expect.stringContaining(':refresh') });
    expect(parseCommandLine(':nope')).toMatchObject({ error: expect.stringContaining('unknown command ":nope"') });
  });

  it('the words after the name are the command\'s arguments, kept as typed', () => {
    expect(parseCommandLine(':undo  Batch 2  ')).toEqual({ id: 'undo', args: 'Batch 2' });
    expect(parseCommandLine(':UNSKIP')).toEqual({ id: 'partial.unskip', args: '' });
    expect(parseCommandLine(':nope x')).toMatchObject({ error: expect.stringContaining('unknown command ":nope"') });
  });

  it('letters in order find a name when no name begins with them', () => {
    expect(commandCandidates('wck')).toEqual(['write-checkpoint']);
    expect(parseCommandLine(':wck')).toEqual({ id: 'checkpoint.write', args: '' });
  });

  it("aliases as k9s' (:q, :h, :p) win over a beginning, and every alias runs a command", () => {
    expect(parseCommandLine(':q')).toEqual({ id: 'quit', args: '' });
    expect(parseCommandLine(':h')).toEqual({ id: 'help', args: '' });
    expect(parseCommandLine(':p')).toEqual({ id: 'view.plan', args: '' });
    for (const a of Object.keys(COMMAND_ALIASES)) expect('id' in parseCommandLine(`:${a}`), a).toBe(true);
  });
});

describe('the : line in the store: tab, history', () => {
  it('tab completes the beginning, and cycles the candidates (shift-tab back)', async () => {
    const r = await openStore(copyDemo());
    await r.press(':', 'parti', 'tab');
    expect(r.s().prompt).toMatchObject({ kind: 'command', text: 'partials' });
    const cands = commandCandidates('re');
    expect([...cands].sort()).toEqual(['recover', 'redo', 'redrive', 'refresh', 'resume']);
    await r.press('esc', ':', 're');
    for (const name of cands) {
      await r.press('tab');
      expect(r.s().prompt?.text).toBe(name);
    }
    await r.press('tab');
    expect(r.s().prompt?.text).toBe(cands[0]);
    await r.press('shift-tab');
    expect(r.s().prompt?.text).toBe(cands.at(-1));
    // Tab in the : line never switches the view.
    expect(r.s().view).toBe('progress');
    await r.press('enter');
    expect(r.s().prompt).toBeNull();
  });

  it('↑/↓ walk the lines submitted before', async () => {
    const r = await openStore(copyDemo());
    await r.press(':', 'plan', 'enter', ':', 'parti', 'enter');
    expect(r.s().view).toBe('partials');
    await r.press(':', 'up');
    expect(r.s().prompt?.text).toBe('parti');
    await r.press('up');
    expect(r.s().prompt?.text).toBe('plan');
    await r.press('up');
    expect(r.s().prompt?.text).toBe('plan');
    await r.press('down');
    expect(r.s().prompt?.text).toBe('parti');
    await r.press('down');
    expect(r.s().prompt?.text).toBe('');
    await r.press('up', 'enter');
    expect(r.s().view).toBe('partials');
    // The cursor of the view did not move under the prompt.
    expect(r.s().commandHistory).toEqual(['plan', 'parti']);
  });
});

describe('the history kept', () => {
  it('outlives the session in .checkroom/, and a read-only control room writes none', async () => {
    const root = copyDemo();
    const r = await openStore(root);
    await r.press(':', 'plan', 'enter', ':', 'parti', 'enter');
    await r.s().idle();
    expect(readFileSync(join(root, COMMAND_HISTORY_FILE), 'utf8')).toBe('plan\nparti\n');
    await closeStores();
    const again = await openStore(root);
    await again.press(':', 'up');
    expect(again.s().prompt?.text).toBe('parti');
    const ro = copyDemo();
    const seen = await openStore(ro, { readonly: true });
    await seen.press(':', 'plan', 'enter');
    await seen.s().idle();
    expect(seen.s().view).toBe('plan');
    expect(existsSync(join(ro, COMMAND_HISTORY_FILE))).toBe(false);
  });

  it('keeps a repeat once, skips blank lines, and is bounded', () => {
    expect(remember(['plan'], ' plan ')).toEqual(['plan']);
    expect(remember(['plan'], '  ')).toEqual(['plan']);
    let h: readonly string[] = [];
    for (let i = 0; i < HISTORY_KEPT + 5; i++) h = remember(h, `l${i}`);
    expect(h.length).toBe(HISTORY_KEPT);
    expect(h[h.length - 1]).toBe(`l${HISTORY_KEPT + 4}`);
  });
});

describe('ctrl-u and ctrl-w in every prompt', () => {
  it('edit a line as readline does', () => {
    expect(editLine('write check', key('ctrl-w'))).toBe('write ');
    expect(editLine('write ', key('ctrl-w'))).toBe('');
    expect(editLine('ch07 draft', key('ctrl-u'))).toBe('');
    expect(editLine('ch0', key('7'))).toBe('ch07');
    expect(editLine('ch0', key('ctrl-x'))).toBeNull();
  });

  it('the : line and the / filter clear, the filter applying as it changes', async () => {
    const r = await openStore(copyDemo());
    await r.press(':', 'write check', 'ctrl-w');
    expect(r.s().prompt?.text).toBe('write ');
    await r.press('ctrl-u');
    expect(r.s().prompt).toMatchObject({ kind: 'command', text: '' });
    await r.press('esc', '/', 'ch07 dr', 'ctrl-w');
    expect(r.s().filter).toBe('ch07 ');
    await r.press('ctrl-u');
    expect(r.s().prompt).toMatchObject({ kind: 'filter', text: '' });
    expect(r.s().filter).toBe('');
  });
});
