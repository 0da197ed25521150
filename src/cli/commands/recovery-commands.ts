import { lstat } from 'node:fs/promises';
import { basename, join, posix } from 'node:path';
import type { Cli } from '../args.js';
import { UsageError } from '../args.js';
import type { TextOptions } from '../../text/layout.js';
import { columnWidth, fit, pad } from '../../text/layout.js';
import { dirArg, type Out } from './core-commands.js';
import { assertWorkspace } from '../../workspace.js';
import { sanitize, sanitizeLine } from '../../text/sanitize.js';
import { diffBackup, originalOf, restoreBackup, scanBackups, BackupError, type BackupDiff } from '../../backups/backups.js';
import { loadRecoveryState } from '../../recover/load.js';
import { recoverReport } from '../../recover/report.js';
import { renderRecover, formatAge } from '../../recover/render.js';
import { checkMemory } from '../../memory/check.js';
import { buildResume } from '../../resume/build.js';
import { letterLang, writeResume } from '../../resume/io.js';
import { loadConfig } from '../../pipeline/config/config.js';
import { sweepAtStart } from '../sweep-at-start.js';
import { toJson } from '../json.js';
import { stderrOut } from '../text-out.js';
import { heldOutputs } from '../../holders/held-outputs.js';

// The recovery commands: `resume`, `recover`, `backups`. Each returns the exit code
// (0 ok, 1 runtime error); bad usage throws UsageError (exit 2 at the entry).


/** `checkroom resume [dir] [--write]`: print the RESUME.md letter; --write writes it (the old one is backed up). */
export async function resumeCommand(cli: Cli, o: TextOptions, out: Out): Promise<number> {
  const dir = dirArg(cli.positionals);
  const now = new Date();
  const { sources, state, journal } = await loadRecoveryState(dir, now.getTime());
  const memory = await checkMemory(sources.root, state);
  const opts = { now, decisions: journal.decisions, memory, breakers: journal.breakers, checkpointFile: sources.config.sources.checkpoint };
  if (!cli.write) {
    out.write(sanitize(buildResume(state, { ...opts, lang: await letterLang(sources.root, state, sources.config.sources.resume) })) + o.paint('muted', `\n(preview: nothing written; add --write to write ${sources.config.sources.resume}, the old one is backed up)\n`));
    return 0;
  }
  const swept = await sweepAtStart(sources.root, sources.config, sources.units);
  if (swept) out.write(`${o.paint('warn', swept)}\n`);
  const r = await writeResume(sources.root, state, { ...opts, file: sources.config.sources.resume });
  out.write(`wrote ${sanitizeLine(r.path)}${r.backup ? `; the previous version is in ${sanitizeLine(r.backup)}` : ''}\n`);
  return 0;
}

/**
 * `checkroom recover [dir] [--dry-run] [--json]`: the whole recovery flow as one report.
 * Exit 2 (RecoverRefused, nothing written) outside a workspace or on an empty view of one;
 * exit 1 when a rebuild it had to do could not be done (the report says which and why).
 */
export async function recoverCommand(cli: Cli, o: TextOptions, out: Out): Promise<number> {
  const dir = dirArg(cli.positionals);
  if (!cli.dryRun) {
    // Recovery writes: temp files of killed atomic writes go first, said;
    // on stderr under --json, so the JSON stays one document.
    const root = await assertWorkspace(dir);
    const swept = await sweepAtStart(root, await loadConfig(root), []);
    if (swept) (cli.json ? stderrOut : out).write(`${cli.json ? swept : o.paint('warn', swept)}\n`);
  }
  const report = await recoverReport(dir, { dryRun: cli.dryRun });
  out.write(cli.json ? toJson(report) + '\n' : renderRecover(report, o) + '\n');
  return !report.dryRun && report.rebuilt.some((a) => a.blocked) ? 1 : 0;
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
      // Not a regular file (a symlink, FIFO or directory named like a backup): a refusal, not a failure.
      return err.code === 'ENOTREG' ? 2 : 1;
    }
    throw err;
  }
}

// The JSON `diff` of one backup: `added`/`removed` are null when no line diff was made
// (`kind` says why: too_large, binary, not_regular), never a false `+0 -0`.
const diffJson = (d: BackupDiff) => {
  const counted = d.kind === 'identical' || d.kind === 'lines' || d.kind === 'approximate';
  return {
    identical: d.identical,
    added: counted ? d.added : null,
    removed: counted ? d.removed : null,
    kind: d.kind,
    ...(d.summary && d.hunks[0] ? { note: d.hunks[0] } : {}),
  };
};

const diffText = (d: ReturnType<typeof diffJson> | null): string =>
  !d
    ? 'no current file to compare'
    : d.kind === 'identical'
      ? 'identical to the current file'
      : d.kind === 'lines'
        ? `vs current: +${d.added} -${d.removed} lines`
        : d.kind === 'approximate'
          ? `vs current: about +${d.added} -${d.removed} lines`
          : d.kind === 'too_large'
            ? 'too large to diff'
            : d.kind === 'binary'
              ? 'binary, not diffed'
              : 'not diffed: the current file is not a regular file';

async function list(root: string, file: string, json: boolean, o: TextOptions, out: Out): Promise<number> {
  const { backups, ignored } = await scanBackups(root, file);
  // lstat: a dangling symlink is still "a current file" (not a regular one: the diff says so).
  const current = await lstat(join(root, file)).then(
    () => true,
    () => false,
  );
  const now = Date.now();
  const rows = await Promise.all(
    backups.map(async (b) => {
      const d = current ? diffJson(await diffBackup(root, b.path, file)) : null;
      return { ...b, ageMs: Math.max(0, now - (b.stampMs ?? b.mtimeMs)), diff: d };
    }),
  );
  if (json) {
    out.write(toJson({ file, current, backups: rows, ignored }) + '\n');
    return 0;
  }
  const L = [o.paint('title', `Backups of ${sanitizeLine(file)} (${rows.length})`) + (current ? '' : o.paint('warn', '  the file itself does not exist'))];
  if (rows.length === 0) L.push(o.paint('muted', `  none (backups are named ${sanitizeLine(basename(file))}.bak.<YYYYMMDD-HHMMSS>)`));
  // Columns sized by what they hold (a 70254592 B backup ran into its age at a fixed 9), so
  // the diff summary at the end keeps as much room as it can.
  const shown = rows.slice(0, 15);
  const nameW = columnWidth(shown.map((r) => sanitizeLine(basename(r.path))), 10, 36);
  const sizeW = columnWidth(shown.map((r) => `${r.bytes} B`), 4, 16);
  const ageW = columnWidth(shown.map((r) => formatAge(r.ageMs)), 3, 14);
  for (const r of shown) {
    L.push(fit(`  ${pad(sanitizeLine(basename(r.path)), nameW)} ${pad(`${r.bytes} B`, sizeW)} ${pad(formatAge(r.ageMs), ageW)} ${diffText(r.diff)}`, o.width));
  }
  if (rows.length > 15) L.push(o.paint('muted', `  … ${rows.length - 15} more (--json for all)`));
  for (const g of ignored) L.push(o.paint('warn', fit(`  ignored ${sanitizeLine(basename(g.path))}: ${g.kind}, not a regular file`, o.width)));
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
  // The current file is moved aside first: not from under a process writing it.
  const held = heldOutputs(root, [file], new Set()).get(file);
  if (held) {
    out.write(`checkroom: not restored: ${sanitizeLine(held)}; nothing was changed\n`);
    return 2;
  }
  const r = await restoreBackup(root, backup);
  if (json) out.write(toJson({ restored: r.restored, from: backup, currentBackedUpTo: r.currentBackedUpTo }) + '\n');
  else
    out.write(
      `${o.paint('ok', 'restored')} ${sanitizeLine(r.restored)} from ${sanitizeLine(backup)}\n` +
        (r.currentBackedUpTo ? `the version it replaced is in ${sanitizeLine(r.currentBackedUpTo)}\n` : 'there was no current file to back up\n'),
    );
  return 0;
}
