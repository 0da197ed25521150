import type { Cli } from '../args.js';
import { UsageError } from '../args.js';
import type { TextOptions } from '../../text/layout.js';
import type { Out } from './core-commands.js';

// Commands that stand on the launcher and the recovery sources; loaded on demand so
// `checkroom status` never pays for SQLite or the process layer.

export async function extraCommands(cli: Cli, o: TextOptions, out: Out): Promise<number> {
  switch (cli.command) {
    case 'run':
      return (await import('./run-command.js')).runCommand(cli, o, out);
    case 'resume': {
      // `resume --all|--agent|--cell|--executor` ends a pause (docs/drain.md); plain `resume` is the RESUME.md letter.
      const p = await import('./pause-command.js');
      if (p.resumesPause(cli)) return p.pauseCommand(cli, out);
      return (await import('./recovery-commands.js')).resumeCommand(cli, o, out);
    }
    case 'drain':
    case 'pause':
      return (await import('./pause-command.js')).pauseCommand(cli, out);
    case 'recover':
      return (await import('./recovery-commands.js')).recoverCommand(cli, o, out);
    case 'backups':
      return (await import('./recovery-commands.js')).backupsCommand(cli, o, out);
    case 'explain':
      return (await import('./explain-command.js')).explainCommand(cli, o, out);
    case 'history':
      return (await import('./history-command.js')).historyCommand(cli, out);
    case 'digest':
      return (await import('./history-command.js')).digestCommand(cli, out);
    case 'logs':
      return (await import('./logs-command.js')).logsCommand(cli, o, out);
    case 'redrive':
      return (await import('./redrive-command.js')).redriveCommand(cli, o, out);
    case 'redo':
      return (await import('./redo-command.js')).redoCommand(cli, o, out);
    case 'unlock':
      return (await import('./unlock-command.js')).unlockCommand(cli, out);
    default:
      throw new UsageError(`unknown command "${cli.command}"`);
  }
}
