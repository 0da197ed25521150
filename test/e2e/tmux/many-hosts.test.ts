import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { copyDemo, tempDir } from '../../helpers/workspace.js';
import { CLI, TmuxSession } from '../../helpers/tmux.js';
import { run, sshdMissing, startSshd, writeSshdFiles } from '../../helpers/sshd.js';

// Issue 21 item 5, for real: three demo workspaces, two here and one on a second "host" — a
// network namespace joined to this one by a veth pair, where Debian's openssh-server listens
// with a key generated here — in one overview, in tmux at 80×24 and 120×40 (and NO_COLOR,
// --ascii). The remote one is read through its own checkroom (`ssh … checkroom status --json
// DIR`: this checkout's build, on the PATH the remote command sets). Enter opens a local
// workspace's control room (its driver lock taken) and Esc comes back; Enter on the remote
// shows its status read-only. Killing sshd, then downing the veth, shows it unreachable with
// the reason, never as an empty pipeline; it comes back when sshd and the link do.
//
// Needs root, `ip netns` and openssh-server (installed with apt-get when missing, as
// test/torture/ssh-drop.test.ts does). Without them the test is skipped and says why.

const why = sshdMissing();
if (why) console.warn(`many-hosts test skipped: ${why}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (ok: () => boolean, what: string, ms = 30_000): Promise<void> => {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
};

/** The overview's row of a host (`local` or the remote's address), by its host column. */
const rowOf = (screen: string, host: string): string[] => screen.split('\n').filter((l) => l.includes(` ${host} `));

describe.skipIf(why !== null)('e2e: many workspaces on two hosts in one overview (issue 21 item 5)', () => {
  const tag = `${process.pid % 10000}${randomBytes(1).toString('hex')}`;
  const ns = `crmany${tag}`;
  const [vh, vn] = [`vmh${tag}`, `vmn${tag}`];
  // 10.7.N.0/30: the remote's address fits the overview's host column at 80 columns.
  const net = `10.7.${randomInt(10, 99)}`;
  const remoteIp = `${net}.2`;
  const keys = tempDir('checkroom-many-ssh-');
  const sessions: TmuxSession[] = [];
  let sshd: ChildProcess | null = null;
  afterAll(() => {
    sessions.forEach((s) => s.kill());
    sshd?.kill('SIGKILL');
    // What sshd started there (a session's sshd, a remote checkroom mid-read) must not outlive
    // the test, nor write into a workspace while the temp directory is removed.
    const inNs = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).stdout ?? '';
    for (const pid of inNs.split('\n').filter((p) => /^\d+$/.test(p))) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    // Deleting the namespace deletes the veth pair with it.
    spawnSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    spawnSync('ip', ['link', 'del', vh], { stdio: 'ignore' });
    rmSync(keys, { recursive: true, force: true });
  });

  const setUpHost = (): void => {
    run('ip', ['netns', 'add', ns]);
    run('ip', ['link', 'add', vh, 'type', 'veth', 'peer', 'name', vn]);
    run('ip', ['link', 'set', vn, 'netns', ns]);
    run('ip', ['addr', 'add', `${net}.1/30`, 'dev', vh]);
    run('ip', ['link', 'set', vh, 'up']);
    run('ip', ['netns', 'exec', ns, 'ip', 'addr', 'add', `${remoteIp}/30`, 'dev', vn]);
    run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', vn, 'up']);
    run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
    writeSshdFiles(keys, remoteIp);
    // The overview's side: key auth with the generated key, no known_hosts to answer.
    writeFileSync(
      join(keys, 'ssh_config'),
      ['Host *', `  IdentityFile ${join(keys, 'client')}`, '  IdentitiesOnly yes', '  StrictHostKeyChecking no', '  UserKnownHostsFile /dev/null', '  LogLevel ERROR', ''].join('\n'),
    );
  };

  const up = async (): Promise<void> => {
    sshd = await startSshd(ns, keys, remoteIp);
  };

  const overview = (args: string, opts: { cols: number; rows: number; env?: Record<string, string> }): TmuxSession => {
    const env = {
      CHECKROOM_SSH_CONFIG: join(keys, 'ssh_config'),
      // The remote host runs this checkout's build; its PATH finds the same node.
      CHECKROOM_REMOTE_CHECKROOM: `env PATH=${dirname(process.execPath)}:/usr/bin:/bin ${CLI}`,
      CHECKROOM_OVERVIEW_POLL_MS: '1000',
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      ...opts.env,
    };
    const t = new TmuxSession(`sh -c 'node ${CLI} ${args}; echo EXITED-$?; sleep 600'`, { cols: opts.cols, rows: opts.rows, env });
    sessions.push(t);
    return t;
  };

  it('opens, enters and leaves; the remote goes unreachable with sshd and the link, and comes back', { timeout: 300_000 }, async () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    setUpHost();
    await up();
    const [a, b, demo] = [copyDemo(), copyDemo(), copyDemo()];
    // The remote directory's name is hostile to a shell: it must reach the remote checkroom whole, and run nothing there.
    const far = join(dirname(demo), "far it's $(touch PWNED); x");
    renameSync(demo, far);
    const list = join(keys, 'workspaces.txt');
    writeFileSync(list, `# the second host\nssh://root@${remoteIp}:2222${far}\n`);
    const remote = `--workspaces ${list}`;
    const t = overview(`${a} ${b} ${remote}`, { cols: 80, rows: 24 });

    // All three read: the remote through its own checkroom, with the demo's counts.
    const all = await t.waitFor((): boolean => {
      const s = t.capture();
      return rowOf(s, remoteIp).some((l) => l.includes('29/100')) && rowOf(s, 'local').filter((l) => l.includes('29/100')).length === 2;
    }, 60_000);
    expect(all).toContain('checkroom overview · 3 workspaces on 2 hosts');
    const screen80 = t.capture();
    for (const l of screen80.split('\n')) expect(l.length).toBeLessThanOrEqual(80);
    expect(screen80.split('\n').length).toBeLessThanOrEqual(25);

    // Enter on the first (local) row: its control room, its driver lock taken; Esc comes back.
    t.keys('Enter');
    await t.waitFor(/^checkroom · .*Phase 3/m, 45_000);
    await until(() => existsSync(join(a, '.checkroom', 'driver.lock')), 'the room to take the driver lock');
    for (let i = 0; i < 5 && !t.capture().includes('checkroom overview'); i++) {
      t.keys('Escape');
      await sleep(1500);
    }
    await t.waitFor('checkroom overview', 15_000);
    await until(() => !existsSync(join(a, '.checkroom', 'driver.lock')), 'the room to release the driver lock');

    // Another checkroom drives b: opened from the overview, b's room watches read-only and leaves that lock alone.
    const driver = new TmuxSession(`node ${CLI} ${b}`, { env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` } });
    sessions.push(driver);
    await driver.waitFor(/^auto off · live: /m, 45_000);
    const lockOfB = readFileSync(join(b, '.checkroom', 'driver.lock'), 'utf8');
    t.keys('j');
    await t.waitFor(`${b}: `);
    t.keys('Enter');
    await t.waitFor(/read-only: pid \d+@/, 45_000);
    for (let i = 0; i < 5 && !t.capture().includes('checkroom overview'); i++) {
      t.keys('Escape');
      await sleep(1500);
    }
    await t.waitFor('checkroom overview', 15_000);
    expect(readFileSync(join(b, '.checkroom', 'driver.lock'), 'utf8')).toBe(lockOfB);
    driver.kill();
    t.keys('k');
    await t.waitFor(`${a}: `);

    // Enter on the remote row: its status, read-only, and how to drive it there.
    // The rows start under the title and the column header; the cursor is on the first.
    const remoteAt = t.capture().split('\n').findIndex((l) => rowOf(l, remoteIp).length > 0) - 2;
    expect(remoteAt).toBeGreaterThan(0);
    for (let i = 0; i < remoteAt; i++) t.keys('j');
    t.keys('Enter');
    await t.waitFor('read-only status, read over ssh');
    expect(t.capture()).toContain(`ssh -t root@${remoteIp} -p 2222 checkroom ''\\''/tmp/`);
    t.keys('Escape');
    await t.waitFor('checkroom overview');

    // sshd killed: unreachable, connection refused, never an empty pipeline.
    (sshd as ChildProcess | null)?.kill('SIGKILL');
    // (A regex, so the screen returned is the one that matched.)
    const down = await t.waitFor(new RegExp(`^UNREACH .* ${remoteIp.replaceAll('.', '\\.')} +unreachable: connection refused`, 'm'), 30_000);
    expect(rowOf(down, remoteIp).some((l) => l.includes('0/0'))).toBe(false);
    expect(down).toContain('1 unreachable');
    // Back when sshd is (the backoff is bounded: 8 × the poll interval).
    await up();
    await t.waitFor(() => rowOf(t.capture(), remoteIp).some((l) => l.includes('29/100')), 30_000);

    // The link down: unreachable again (ssh's connect timeout), back when it is up.
    run('ip', ['link', 'set', vh, 'down']);
    await t.waitFor(() => rowOf(t.capture(), remoteIp).some((l) => /^UNREACH .*unreachable: /.test(l)), 60_000);
    run('ip', ['link', 'set', vh, 'up']);
    await t.waitFor(() => rowOf(t.capture(), remoteIp).some((l) => l.includes('29/100')), 60_000);

    expect(existsSync(join(homedir(), 'PWNED')), 'the remote shell ran a command from the directory name').toBe(false);

    // q quits the overview.
    t.keys('q');
    await t.waitFor('EXITED-0');

    // 120×40: the alarms have a column; NO_COLOR and --ascii at 80×24 draw the same rows in ASCII keys.
    const wide = overview(`${a} ${b} ${remote}`, { cols: 120, rows: 40 });
    const w = await wide.waitFor(new RegExp(` ${remoteIp.replaceAll('.', '\\.')} +P3 B1 +29/100 .*2 regressions`), 60_000);
    expect(w).toMatch(/ alarms/);
    expect(w).toMatch(/2 regressions/);
    for (const l of w.split('\n')) expect(l.length).toBeLessThanOrEqual(120);
    const plain = overview(`--ascii ${a} ${b} ${remote}`, { cols: 80, rows: 24, env: { NO_COLOR: '1' } });
    const p = await plain.waitFor(new RegExp(` ${remoteIp.replaceAll('.', '\\.')} +P3 B1 +29/100`), 60_000);
    expect(p).toContain('up/down move');
    expect(p).not.toContain('↑↓');

    // The host answers but has no checkroom there: unreachable, and why.
    const bare = overview(`--workspaces ${list}`, { cols: 120, rows: 24, env: { CHECKROOM_REMOTE_CHECKROOM: '/nonexistent/checkroom' } });
    await bare.waitFor(() => rowOf(bare.capture(), remoteIp).some((l) => /^UNREACH .*checkroom is not installed on the remote host/.test(l)), 60_000);
  });
});
