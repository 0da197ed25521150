import { existsSync } from 'node:fs';
import { basename, join, posix } from 'node:path';
import type { Cli } from './args.js';
import { UsageError } from './args.js';
import type { TextOptions } from './text.js';
import { fit, pad } from './text.js';
import type { Out } from './core-commands.js';
import { assertWorkspace } from '../workspace.js';
import { sanitize, sanitizeLine } from '../sanitize.js';
import { diffBackup, listBackups, originalOf, restoreBackup, BackupError } from '../backups.js';
import { loadRecoveryState } from '../recover/load.js';
import { recoverReport } from '../recover/report.js';
import { renderRecover, formatAge } from '../recover/render.js';
import { checkMemory } from '../memory/check.js';
import { buildResume } from '../resume/build.js';
import { writeResume } from '../resume/io.js';

// The recovery commands: `resume`, `recover`, `backups`. Each returns the exit code
// (0 ok, 1 runtime error); bad usage throws UsageError (exit 2 at the entry).

const dirArg = (positionals: string[], max = 1): string => {
  if (positionals.length > max) throw new UsageError(`unexpected argument "${positionals[max]}"`);
  return positionals[0] ?? '.';
};

/** `checkroom resume [dir] [--write]`: print the RESUME.md letter; --write writes it (the old one is backed up). */
export async function resumeCommand(cli: Cli, o: TextOptions, out: Out): Promise<number> {
  const dir = dirArg(cli.positionals);
  const now = new Date();
  const { sources, state, journal } = await loadRecoveryState(dir, now.getTime());
  const memory = await checkMemory(sources.root, state);
  const opts = { now, decisions: journal.decisions, memory, breakers: journal.breakers, checkpointFile: sources.config.sources.checkpoint };
  if (!cli.write) {
    out.write(sanitize(buildResume(state, opts)) + o.paint('muted', `\n(preview: nothing written; add --write to write ${sources.config.sources.resume}, the old one is backed up)\n`));
    return 0;
  }
  const r = await writeResume(sources.root, state, { ...opts, file: sources.config.sources.resume });
  out.write(`wrote ${sanitizeLine(r.path)}${r.backup ? `; the previous version is in ${sanitizeLine(r.backup)}` : ''}\n`);
  return 0;
}

/** `checkroom recover [dir] [--dry-run] [--json]`: the whole recovery flow as one report. */
export async function recoverCommand(cli: Cli, o: TextOptions, out: Out): Promise<number> {
  const report = await recoverReport(dirArg(cli.positionals), { dryRun: cli.dryRun });
  out.write(cli.json ? JSON.stringify(report, null, 2) + '\n' : renderRecover(report, o) + '\n');
  return 0;
}

/** `checkroom backups [dir] <file> [--restore BACKUP] [--json]`. */
export async function backupsCommand(cli: Cli, o: TextOptions, out: Out): Promise<number> {
  const p = cli.positionals;
  if (p.length === 0) throw new UsageError('backups needs a file: checkroom backups [dir] <file> [--restore BACKUP]');
  if (p.length > 2) throw new UsageError(`unexpected argument "${p[2]}"`);
  const [dir, fileArg] = p.length === 2 ? [p[0], p[1]] : ['.', p[0]];
  const root = await assertWorkspace(dir);
  const file = posix.normalize(fileArg.replace(/\\/g, '/')).replace(/^\.\//, '');
  if (file.startsWith('../') || file.startsWith('/')) throw new UsageError(`${fileArg}: give the file's path inside the workspace`);
  try {
    if (cli.restore !== null) return await restore(root, file, cli.restore, cli.json, o, out);
    return await list(root, file, cli.json, o, out);
  } catch (err) {
    if (err instanceof BackupError) {
      out.write(`checkroom: ${sanitizeLine(err.message)}\n`);
      return 1;
    }
    throw err;
  }
}

async function list(root: string, file: string, json: boolean, o: TextOptions, out: Out): Promise<number> {
  const backups = await listBackups(root, file);
  const current = existsSync(join(root, file));
  const now = Date.now();
  const rows = await Promise.all(
    backups.map(async (b) => {
      const d = current ? await diffBackup(root, b.path, file) : null;
      return { ...b, ageMs: Math.max(0, now - (b.stampMs ?? b.mtimeMs)), diff: d ? { identical: d.identical, added: d.added, removed: d.removed } : null };
    }),
  );
  if (json) {
    out.write(JSON.stringify({ file, current, backups: rows }, null, 2) + '\n');
    return 0;
  }
  const L = [o.paint('bold', `Backups of ${sanitizeLine(file)} (${rows.length})`) + (current ? '' : o.paint('warn', '  the file itself does not exist'))];
  if (rows.length === 0) L.push(o.paint('muted', `  none (backups are named ${sanitizeLine(basename(file))}.bak.<YYYYMMDD-HHMMSS>)`));
  for (const r of rows.slice(0, 15)) {
    const diff = !r.diff ? 'no current file to compare' : r.diff.identical ? 'identical to the current file' : `vs current: +${r.diff.added} -${r.diff.removed} lines`;
    L.push(fit(`  ${pad(sanitizeLine(basename(r.path)), 36)} ${pad(`${r.bytes} B`, 9)} ${pad(formatAge(r.ageMs), 12)} ${diff}`, o.width));
  }
  if (rows.length > 15) L.push(o.paint('muted', `  … ${rows.length - 15} more (--json for all)`));
  if (rows.length) L.push(o.paint('muted', `  restore one with --restore <backup>; the current file is backed up first, so both versions survive`));
  out.write(L.join('\n') + '\n');
  return 0;
}

async function restore(root: string, file: string, backupArg: string, json: boolean, o: TextOptions, out: Out): Promise<number> {
  // Accept the backup's workspace path or just its name next to the file.
  const backup = backupArg.includes('/') ? posix.normalize(backupArg).replace(/^\.\//, '') : posix.join(posix.dirname(file), backupArg);
  let original: string;
  try {
    original = originalOf(backup);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (original !== file) throw new UsageError(`${backupArg} is a backup of ${original}, not of ${file}`);
  const r = await restoreBackup(root, backup);
  if (json) out.write(JSON.stringify({ restored: r.restored, from: backup, currentBackedUpTo: r.currentBackedUpTo }, null, 2) + '\n');
  else
    out.write(
      `${o.paint('ok', 'restored')} ${sanitizeLine(r.restored)} from ${sanitizeLine(backup)}\n` +
        (r.currentBackedUpTo ? `the version it replaced is in ${sanitizeLine(r.currentBackedUpTo)}\n` : 'there was no current file to back up\n'),
    );
  return 0;
}
