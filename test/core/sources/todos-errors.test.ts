import { describe, expect, it } from 'vitest';
import { explainDbError } from '../../../src/sources/todos-errors.js';

// SQLite errors of the todo database in words that say what to do (src/sources/todos-errors.ts).

describe('explainDbError', () => {
  const db = 'todos.db';
  it.each([
    ['SQLITE_BUSY', /locked by another process .*read again on the next scan/],
    ['SQLITE_LOCKED', /locked by another process/],
    ['SQLITE_NOTADB', /todos\.db is not a readable SQLite database .*restore the file from a backup or remove it/],
    ['SQLITE_CORRUPT', /not a readable SQLite database/],
    ['SQLITE_READONLY_DBMOVED', /cannot write todos\.db: it is read-only .*give it write permission/],
    ['SQLITE_CANTOPEN', /cannot open todos\.db .*sources\.todos in checkroom\.yaml/],
  ])('%s says what to do', (code, says) => {
    expect(explainDbError(db, { code, message: 'boom' })).toMatch(says);
    expect(explainDbError(db, { code, message: 'boom' })).toContain('(boom)');
  });

  it('an unknown error still names the file and what was being done', () => {
    expect(explainDbError(db, new Error('disk I/O error'), 'write')).toBe('cannot write todos.db: disk I/O error');
    expect(explainDbError(db, 'odd')).toBe('cannot read todos.db: odd');
    expect(explainDbError(db, { message: 'unable to open: file does not exist' })).toMatch(/^cannot open todos\.db/);
  });
});
