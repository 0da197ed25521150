import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

// better-sqlite3 is a native addon: loading it costs a dlopen and its JS wrapper at every
// start. Only a workspace with a todo database needs it, so it is required on first use
// (`status` loaded it for every workspace).

let ctor: typeof Database | null = null;

/** A connection to `path`; the addon is loaded on the first call. */
export function openDatabase(path: string, options?: Database.Options): Database.Database {
  ctor ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return new ctor(path, options);
}
