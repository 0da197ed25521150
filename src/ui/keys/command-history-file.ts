import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { assertInside } from '../../fs/confine-path.js';
import { HISTORY_KEPT } from './prompt-line.js';

// The `:` line's history outlives the session in the workspace's own .checkroom/, one line a
// command (docs/keys.md, The command line). It is a convenience: a missing or unreadable file
// is an empty history, and a failed save never interrupts the command that was typed.

export const COMMAND_HISTORY_FILE = join('.checkroom', 'command-history');

export function readCommandHistory(root: string): readonly string[] {
  try {
    const text = readFileSync(join(root, COMMAND_HISTORY_FILE), 'utf8');
    return text.split('\n').filter((l) => l.trim() !== '').slice(-HISTORY_KEPT);
  } catch {
    return [];
  }
}

export async function writeCommandHistory(root: string, lines: readonly string[]): Promise<void> {
  try {
    // Not recursive: never recreate a workspace that was moved away.
    mkdirSync(assertInside('mkdir', join(root, '.checkroom'), [root]));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
  }
  await writeFileAtomic(join(root, COMMAND_HISTORY_FILE), lines.map((l) => `${l}\n`).join(''), [root]).catch(() => undefined);
}
