import { describe, expect, it } from 'vitest';
import { parseEntry } from '../../../src/many/entries.js';
import { quoteForShell, sshStatusCommand, unreachableReason } from '../../../src/many/ssh.js';

// docs/many.md, Remote: an argv array for ssh, the remote command quoted word by word for the
// remote shell, and ssh's failures told apart from the remote checkroom's own.

const ssh = (text: string) => {
  const e = parseEntry(text);
  if (e.kind !== 'ssh') throw new Error('not ssh');
  return e;
};

describe('sshStatusCommand', () => {
  it('BatchMode, a bounded connect, `--` before the host, the remote command as one quoted line', () => {
    const c = sshStatusCommand(ssh("ssh://ana@h2:2200/srv/it's $(rm -rf ~); x"), { config: '/k/ssh_config' });
    expect(c.file).toBe('ssh');
    expect(c.args.slice(0, 2)).toEqual(['-o', 'BatchMode=yes']);
    expect(c.args).toContain('ConnectTimeout=10');
    const dd = c.args.indexOf('--');
    expect(c.args.slice(dd - 6, dd)).toEqual(['-F', '/k/ssh_config', '-p', '2200', '-l', 'ana']);
    expect(c.args.slice(dd + 1)).toEqual(['h2', `'checkroom' 'status' '--json' '/srv/it'\\''s $(rm -rf ~); x'`]);
  });

  it('the remote checkroom may be other words (an absolute path, a PATH for env), each quoted', () => {
    const c = sshStatusCommand(ssh('ssh://h/w'), { remote: ['env', 'PATH=/opt/node/bin:/usr/bin', '/opt/cr/checkroom.js'] });
    expect(c.args.at(-1)).toBe(`'env' 'PATH=/opt/node/bin:/usr/bin' '/opt/cr/checkroom.js' 'status' '--json' '/w'`);
    expect(c.args).not.toContain('-p');
    expect(c.args).not.toContain('-l');
  });

  it('quoteForShell: one word whatever it holds', () => {
    expect(quoteForShell("a'b")).toBe(`'a'\\''b'`);
    expect(quoteForShell('')).toBe(`''`);
  });
});

describe('unreachableReason', () => {
  it.each([
    [255, 'ssh: connect to host 10.7.1.2 port 2222: Connection refused', false, 'connection refused'],
    [255, 'ssh: connect to host h port 22: Connection timed out', false, 'connection timed out'],
    [255, 'root@h: Permission denied (publickey).', false, 'authentication failed'],
    [255, 'ssh: Could not resolve hostname nope: Name or service not known', false, 'unknown host'],
    [255, 'ssh: connect to host h port 22: No route to host', false, 'no route to host'],
    [127, 'bash: line 1: checkroom: command not found', false, 'checkroom is not installed on the remote host (or not on its PATH)'],
    [null, '', true, 'timed out'],
  ])('exit %s, %j: %s', (code, stderr, timedOut, why) => {
    expect(unreachableReason(code, stderr, timedOut)).toBe(why);
  });

  it('the remote checkroom failing (not a workspace) is not unreachable', () => {
    expect(unreachableReason(2, 'checkroom: /w: no such directory', false)).toBeNull();
    expect(unreachableReason(0, '', false)).toBeNull();
  });
});
