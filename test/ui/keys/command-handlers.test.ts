import { describe, expect, it } from 'vitest';
import { KEYMAP, type CommandId } from '../../../src/ui/keys/keymap.js';
import { COMMAND_HANDLERS, handlerOf } from '../../../src/ui/keys/command-handlers.js';
import { isNav } from '../../../src/ui/views/nav.js';

// Issue 9 item 2: key commands dispatch through a table beside KEYMAP. Its type already makes
// the compiler refuse a CommandId without a row; this checks the same at run time, and that
// the table holds no row for a command the key map does not have.

const elsewhere = (id: CommandId): boolean => isNav(id) || id.startsWith('view.') || id.startsWith('prompt.');

describe('the command handler table', () => {
  it('has a handler for every key-map command not answered elsewhere, and no other', () => {
    const ids = [...new Set(KEYMAP.map((c) => c.id))];
    for (const id of ids) expect([id, handlerOf(id) !== null]).toEqual([id, !elsewhere(id)]);
    expect(Object.keys(COMMAND_HANDLERS).sort()).toEqual(ids.filter((id) => !elsewhere(id)).sort());
  });
});
