// SQLite errors from the todo database (docs/domain.md, Three sources of progress, level 2), turned into messages
// that say what to do (STYLE.md idiom 8).

/** What went wrong, in words an operator can act on. */
export function explainDbError(path: string, err: unknown, doing: 'read' | 'write' = 'read'): string {
  const e = err as { code?: string; message?: string };
  const code = e?.code ?? '';
  const msg = e?.message ?? String(err);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')
    return `the todo database is locked by another process (${msg}); the todo view is skipped this scan — it will be read again on the next scan, or close the session that holds the lock`;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
    return `${path} is not a readable SQLite database (${msg}); the markers on disk still decide what is done — restore the file from a backup or remove it`;
  if (code.startsWith('SQLITE_READONLY'))
    return `cannot write ${path}: it is read-only for checkroom (${msg}); give it write permission, or leave the table as it is — the markers on disk decide what is done`;
  if (code === 'SQLITE_CANTOPEN' || /does not exist/.test(msg))
    return `cannot open ${path} (${msg}); check the path (sources.todos in checkroom.yaml) and its permissions`;
  return `cannot ${doing} ${path}: ${msg}`;
}
