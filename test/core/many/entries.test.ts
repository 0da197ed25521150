import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { entriesFrom, parseEntry, parseWorkspacesFile, readWorkspacesFile, WorkspacesError } from '../../../src/many/entries.js';
import { tempDir } from '../../helpers/workspace.js';

// The overview's workspaces (docs/many.md): directories and ssh:// entries, validated before
// anything reaches an argv.

describe('parseEntry', () => {
  it('a directory is local; ssh:// gives user, host, port and an absolute directory', () => {
    expect(parseEntry('books/one')).toEqual({ kind: 'local', dir: 'books/one', label: 'books/one' });
    expect(parseEntry('ssh://ana@build-2.lan:2200/srv/book%20two')).toEqual({ kind: 'ssh', user: 'ana', host: 'build-2.lan', port: 2200, dir: '/srv/book two', label: 'build-2.lan:/srv/book two' });
    expect(parseEntry('ssh://10.0.0.2/w')).toMatchObject({ user: null, host: '10.0.0.2', port: null, dir: '/w' });
    expect(parseEntry('ssh://[fd00::2]:22/w')).toMatchObject({ host: '[fd00::2]', port: 22 });
  });

  it.each([
    ['ssh://-oProxyCommand=touch$IFS/tmp/x/dir', /not a host name/],
    ['ssh://-p/dir', /not a host name/],
    ['ssh://-oProxyCommand=x@host/dir', /not a user name/],
    ['ssh://host', /has no directory/],
    ['ssh://host/%zz', /broken %-escape/],
    ['ssh://host:0/dir', /port must be a number/],
    ['ssh://host:99999/dir', /port must be a number/],
    ['ssh://host:/dir', /port must be a number/],
    ['ssh://host/dir%0a-oX', /absolute path without control characters/],
    ['http://host/dir', /only ssh:\/\//],
    ['books\u001b[2J', /control character/],
  ])('%s is refused, saying why', (text, why) => {
    expect(() => parseEntry(text)).toThrow(WorkspacesError);
    expect(() => parseEntry(text)).toThrow(why);
  });
});

describe('parseWorkspacesFile', () => {
  it('one entry a line; # comments and blank lines skipped; a relative directory is relative to the file', () => {
    const text = '# my books\n\n/abs/one   # the first\nrel/two\nssh://ana@h2/srv/three\n';
    expect(parseWorkspacesFile(text, '/etc/cr/ws.txt').map((e) => (e.kind === 'local' ? e.dir : e.label))).toEqual(['/abs/one', '/etc/cr/rel/two', 'h2:/srv/three']);
  });

  it('a bad line is an error naming the file and its line', () => {
    expect(() => parseWorkspacesFile('/a\n# ok\nssh://-oProxyCommand=x/d\n', 'ws.txt')).toThrow(/^ws\.txt:3: .*not a host name/);
    expect(() => parseWorkspacesFile('# nothing\n\n', 'ws.txt')).toThrow(/ws\.txt lists no workspace/);
  });

  it('readWorkspacesFile says why a file cannot be read', () => {
    const d = tempDir();
    expect(() => readWorkspacesFile(join(d, 'none.txt'))).toThrow(/cannot read --workspaces .*none\.txt: no such file/);
    expect(() => readWorkspacesFile(d)).toThrow(/it is a directory/);
    writeFileSync(join(d, 'ws.txt'), '/x\n');
    expect(readWorkspacesFile(join(d, 'ws.txt')).text).toBe('/x\n');
  });

  it('the same workspace twice is refused, by argument or file', () => {
    expect(() => entriesFrom(['/a', '/a/'], null)).toThrow(/listed twice/);
    expect(() => entriesFrom(['ssh://h/d'], { name: 'f', text: 'ssh://h/d\n' })).toThrow(/listed twice/);
    expect(entriesFrom(['/a', 'ssh://h/a'], null)).toHaveLength(2);
  });
});
