import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasTmux } from './tmux.js';

// A second "host" for the SSH tests: Debian's openssh-server in a network namespace of the
// test's own, root logging in with a key generated here. Shared by test/torture/ssh-drop.test.ts
// (sshd on the namespace's loopback) and test/e2e/tmux/many-hosts.test.ts (on a veth address).

const SSHD = '/usr/sbin/sshd';

/** Why this machine cannot run an SSH test, or null (openssh-server is installed when missing, as .ci/run does). */
export const sshdMissing = (): string | null => {
  if (process.getuid?.() !== 0) return 'needs root (sshd and ip netns)';
  if (!hasTmux()) return 'needs tmux';
  if (spawnSync('ip', ['netns', 'list'], { stdio: 'ignore' }).status !== 0) return 'needs `ip netns` (iproute2 and the right to create network namespaces)';
  if (!existsSync(SSHD)) spawnSync('apt-get', ['install', '-y', '-q', 'openssh-server'], { stdio: 'ignore', timeout: 180_000 });
  if (!existsSync(SSHD)) return 'openssh-server is not installed and `apt-get install openssh-server` failed';
  return null;
};

/** Run a command; its stderr in the error when it fails. */
export const run = (cmd: string, args: string[]): void => {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
};

/**
 * Keys and sshd_config in `keys` (a temp dir): a host key, a client key root may log in with,
 * key auth only, listening on `listen`:2222. The remote root logs in to a clean home: the
 * machine's ~/.bashrc (pyenv's rehash takes a lock a killed login can leave behind for 60 s)
 * is not the test's.
 */
export function writeSshdFiles(keys: string, listen: string): void {
  mkdirSync('/run/sshd', { recursive: true });
  const home = join(keys, 'home');
  mkdirSync(home, { recursive: true });
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keys, 'host')]);
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keys, 'client')]);
  writeFileSync(join(keys, 'authorized_keys'), readFileSync(join(keys, 'client.pub')), { mode: 0o600 });
  const config = [
    `ListenAddress ${listen}`,
    'Port 2222',
    `HostKey ${join(keys, 'host')}`,
    `AuthorizedKeysFile ${join(keys, 'authorized_keys')}`,
    `PidFile ${join(keys, 'sshd.pid')}`,
    'PermitRootLogin prohibit-password',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'StrictModes no',
    `SetEnv HOME=${home}`,
    '',
  ];
  writeFileSync(join(keys, 'sshd_config'), config.join('\n'));
}

/** sshd in namespace `ns` with the files of writeSshdFiles, resolved once it listens (bounded). */
export async function startSshd(ns: string, keys: string, listen: string): Promise<ChildProcess> {
  const d = spawn('ip', ['netns', 'exec', ns, SSHD, '-D', '-e', '-f', join(keys, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  d.stderr!.on('data', (b) => (log += b));
  for (const t0 = Date.now(); !log.includes(`Server listening on ${listen} port 2222`); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() - t0 > 20_000) {
      d.kill('SIGKILL');
      throw new Error(`timed out waiting for sshd to listen (${log})`);
    }
  }
  return d;
}
