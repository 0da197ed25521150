#!/usr/bin/env node
import { createRequire } from 'node:module';
import { HELP, parseCli, UsageError, type Cli } from './cli/args.js';
import { colorEnabled, makePaint, outputWidth } from './text/paint.js';
import { charsetFor, setOutputCharset } from './text/charset.js';
import { ConfigError } from './pipeline/config/load.js';
import { WorkspaceError } from './workspace.js';
import { checkpointCommand, partialsCommand, planCommand, statusCommand, type ReadOptions } from './cli/commands/core-commands.js';
import type { TextOptions } from './text/layout.js';
import { extraCommands } from './cli/commands/extra-commands.js';
import { stderrOut, textOut } from './cli/text-out.js';
import { loadControlRoom, loadOverview } from './ui/entry/load.js';
import { WorkspacesError } from './many/entries.js';

// The entry. Interactive versus headless is decided here, once: the control room only when
// stdin and stdout are terminals; every other path prints and exits.

// Every line of text goes out through one escaping writer per stream, in
// the terminal's charset: the environment's until `--ascii` is read, so a
// usage error under LANG=C is ASCII too. `--json` is UTF-8 JSON for scripts, whatever the
// terminal: its writer is `unicode`.
setOutputCharset(charsetFor(process.env, false));
const colour = colorEnabled(process.stdout, process.env);
let out = textOut(process.stdout, colour);

/** TERM=dumb: no cursor addressing, so no full-screen UI (it got one). */
const DUMB_NOTE =
  'checkroom: TERM=dumb has no cursor addressing, so this is the status, printed once (`checkroom status`).\n' +
  'For the control room, run checkroom in a terminal that has it (TERM=xterm-256color, screen, tmux);\n' +
  '`checkroom --readonly` there watches without driving. Here: `checkroom plan`, `checkroom partials`.\n';

/** A running control room's `status --json`, byte for byte; `--json=pretty` indents it. False: no instance answered. */
async function statusFromSocket(cli: Cli): Promise<boolean> {
  const { statusFromControlRoom } = await import('./cli/commands/socket-commands.js');
  // The control room's bytes are escapeJsonText's already (src/socket/status-text.ts builds them with toJson).
  // eslint-disable-next-line no-restricted-syntax -- byte for byte, as the socket answered
  if (!cli.jsonPretty) return statusFromControlRoom(cli.positionals, (b) => process.stdout.write(b));
  const chunks: Buffer[] = [];
  if (!(await statusFromControlRoom(cli.positionals, (b) => chunks.push(b)))) return false;
  out.write((await import('./cli/json-stream.js')).reindentJson(Buffer.concat(chunks).toString('utf8')));
  return true;
}

/** `checkroom DIR1 DIR2 …` or `--workspaces FILE`: the overview, live on a terminal, printed once elsewhere (docs/many.md). */
async function overview(cli: Cli, o: TextOptions, tty: boolean): Promise<number> {
  if (cli.json) throw new UsageError('the overview has no --json: `checkroom status --json DIR1 DIR2` prints every workspace\'s status, an array');
  const { entriesFrom, readWorkspacesFile } = await import('./many/entries.js');
  const entries = entriesFrom(cli.positionals, cli.workspaces === null ? null : readWorkspacesFile(cli.workspaces));
  // This very program reads each local workspace (and is what Enter opens).
  const bin = process.argv[1] ?? '';
  if (!tty) {
    const [{ overviewSettings }, { overviewText }] = await Promise.all([import('./many/read-status.js'), import('./ui/overview/print.js')]);
    // Piped output has no width (COLUMNS sets one): 120 columns, room for the alarms.
    out.write(await overviewText(entries, overviewSettings(process.env, bin).read, Number.isFinite(o.width) ? o.width : 120));
    return 0;
  }
  return (await loadOverview())(entries, cli, o.ascii, bin);
}

async function main(argv: string[]): Promise<number> {
  const cli: Cli = parseCli(argv);
  const charset = charsetFor(process.env, cli.ascii);
  setOutputCharset(charset);
  if (cli.json) out = textOut(process.stdout, colour, 'unicode');
  if (cli.version) {
    const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };
    out.write(`checkroom ${pkg.version}\n`);
    return 0;
  }
  if (cli.help) {
    out.write(HELP + '\n');
    return 0;
  }
  const o: TextOptions = {
    paint: makePaint(colour),
    ascii: charset !== 'unicode',
    width: outputWidth(process.stdout, process.env),
  };
  // The facts cache: trusted and kept by a plain read; --readonly reads
  // it and writes nothing; --no-cache reads every artifact and leaves the cache alone.
  const read: ReadOptions = { pretty: cli.jsonPretty, cache: cli.noCache ? undefined : { write: !cli.readonly } };
  switch (cli.command) {
    case 'status':
      // A running control room answers from its live state; else the scan.
      if (cli.json && cli.positionals.length > 1) {
        const { statusManyCommand } = await import('./cli/commands/status-many.js');
        return statusManyCommand(cli.positionals, out, async (dir) => {
          const one = { ...cli, positionals: [dir] };
          if (!(await statusFromSocket(one))) await statusCommand([dir], true, o, out, read);
        });
      }
      if (cli.json && (await statusFromSocket(cli))) return 0;
      await statusCommand(cli.positionals, cli.json, o, out, read);
      return 0;
    case 'plan':
      await planCommand(cli.positionals, cli.json, o, out, read);
      return 0;
    case 'partials':
      await partialsCommand(cli.positionals, cli.json, o, out, read);
      return 0;
    case 'checkpoint':
      await checkpointCommand(cli.positionals, cli.write, o, out);
      return 0;
    case 'ui': {
      const dumb = process.env.TERM === 'dumb';
      if (cli.workspaces !== null || cli.positionals.length > 1) return overview(cli, o, !!process.stdin.isTTY && !!process.stdout.isTTY && !dumb);
      if (!process.stdin.isTTY || !process.stdout.isTTY || dumb) {
        if (cli.positionals.length > 1) throw new UsageError(`unexpected argument "${cli.positionals[1]}"`);
        await statusCommand(cli.positionals, cli.json, o, out, read);
        if (dumb && !cli.json && process.stdout.isTTY) out.write(DUMB_NOTE);
        return 0;
      }
      return (await loadControlRoom())(cli, o);
    }
    case 'watch':
      return (await import('./cli/commands/socket-commands.js')).watchCommand(cli.positionals, cli.json, process.stdout);
    default:
      return extraCommands(cli, o, out);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      stderrOut.write(`checkroom: ${err.message}\nRun "checkroom --help" for usage.\n`);
      process.exitCode = 2;
    } else if (err instanceof ConfigError) {
      stderrOut.write(`checkroom: ${err.message}\nFix checkroom.yaml (see README: configuration) and run again.\n`);
      process.exitCode = 2;
    } else if (err instanceof WorkspaceError || err instanceof WorkspacesError) {
      stderrOut.write(`checkroom: ${err.message}\n`);
      process.exitCode = 2;
    } else {
      const e = err as Error;
      // Messages can quote arguments, paths and file contents: stderrOut escapes them like everything else.
      stderrOut.write(`checkroom: ${e?.message ?? String(err)}\n`);
      if (process.env.CHECKROOM_DEBUG) stderrOut.write(`${e?.stack}\n`);
      process.exitCode = 1;
    }
  },
);
