import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PHASE_1_2, REPO, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { slurmForFile } from '../../helpers/slurm.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal } from '../../../src/run/journal/journal.js';
import { openSupervisor, type SupervisorEvent } from '../../../src/run/supervisor/supervisor.js';
import { kubeJobManifest, kubeJobName } from '../../../src/run/executors/kube-manifest.js';
import { targetOf, buildCommand } from '../../../src/run/attempt/launch-spec.js';
import { forgetSecrets } from '../../../src/text/redact.js';

// Secrets stay secret (issue 22 item 5): agents that print their key, run locally and as a
// job of the real one-node Slurm, and a Kubernetes Job rendered for the same agent, with a
// distinctive key. Every file they and checkroom leave (outputs, run logs, the journal, the
// Slurm job's files and the controller's state), the Job manifest, `status --json`,
// `explain secrets`, the room's events, and every /proc/*/cmdline seen while they ran are
// searched for the key: it is nowhere. The agents did get it (their outputs say its length).

const { missing, cluster } = slurmForFile(beforeAll, afterAll);
const BIN = join(REPO, 'dist/bundle/checkroom.js');
const AGENT = join(import.meta.dirname, '..', '..', 'fixtures', 'echo-key-agent.mjs');
const KEY = `sk-ant-grep-${randomBytes(12).toString('hex')}`;

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return [];
    return st.isDirectory() ? filesUnder(p) : st.isFile() ? [p] : [];
  });
const holders = (files: string[]): string[] => files.filter((f) => readFileSync(f).includes(KEY));

/** Every command line on the machine, read every 20 ms until stopped. */
const watchCmdlines = (): { stop(): string[] } => {
  const seen = new Set<string>();
  const look = (): void => {
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        seen.add(readFileSync(`/proc/${d}/cmdline`, 'latin1'));
      } catch {
        // gone meanwhile
      }
    }
  };
  const timer = setInterval(look, 20);
  look();
  return {
    stop() {
      clearInterval(timer);
      look();
      return [...seen];
    },
  };
};

const workspace = (): string => {
  const root = tempDir('checkroom-secrets-');
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]) });
  const agent = (name: string, executor: string) => [`  ${name}:`, `    executor: ${executor}`, `    command: [node, ${JSON.stringify(AGENT)}, '{output}', '{marker}']`, '    idle_timeout: 60s', '    grace: 1s'];
  writeFileSync(
    join(root, 'checkroom.yaml'),
    [
      'preset: book',
      'units: { list: [ch01] }',
      'batches: [{ id: 1, units: [ch01] }]',
      'slurm: { poll: 500ms }',
      "kubernetes: { image: 'agents:1', pvc: book-rwx }",
      'secrets:',
      '  ANTHROPIC_API_KEY: { env: GREP_TEST_KEY }',
      'agents:',
      ...agent('researcher', 'local'),
      ...agent('writer', 'slurm'),
      ...agent('reviewer', 'kubernetes'),
      'limits: { backoff_base: 100ms, backoff_max: 500ms }',
      '',
    ].join('\n'),
  );
  return root;
};

describe.skipIf(missing)('a distinctive key reaches the agents and nothing else', () => {
  it('local agent and Slurm job print it; a Kubernetes Job is rendered; no file, output or command line holds it', async () => {
    const root = workspace();
    process.env.GREP_TEST_KEY = KEY;
    const events: SupervisorEvent[] = [];
    const cmdlines = watchCmdlines();
    try {
      const env = cluster().env;
      for (const [k, v] of Object.entries(env)) if (k.startsWith('SLURM')) process.env[k] = v;
      const s = await openSupervisor({ root, config: await loadConfig(root), onEvent: (e) => events.push(e) });
      try {
        expect((await s.launch('ch01', 'research')).outcome).toBe('done');
        expect((await s.launch('ch01', 'draft')).outcome).toBe('done');
      } finally {
        await s.close({ cancel: true });
      }
    } finally {
      const lines = cmdlines.stop();
      expect(lines.length).toBeGreaterThan(10);
      expect(lines.filter((l) => l.includes(KEY))).toEqual([]);
    }
    const config = await loadConfig(root);
    // Both agents had the key, by the environment (local) and the job's 0600 file (Slurm).
    for (const f of ['research/ch01-research.md', 'drafts/ch01-draft.md']) expect(readFileSync(join(root, f), 'utf8')).toContain(`had the key: yes, ${KEY.length} characters`);
    // The job's secrets file was read and deleted.
    expect(filesUnder(join(root, '.checkroom', 'runs')).filter((f) => f.endsWith('.secrets'))).toEqual([]);
    // What the agents printed reached the logs and the journal only as [secret].
    const logs = filesUnder(join(root, '.checkroom', 'runs')).filter((f) => f.endsWith('.log'));
    expect(logs).toHaveLength(2);
    for (const l of logs) expect(readFileSync(l, 'utf8')).toContain('my key is [secret]');
    expect(holders(filesUnder(root))).toEqual([]);
    expect(holders(filesUnder(cluster().dir))).toEqual([]);
    expect(JSON.stringify(await readJournal(root))).not.toContain(KEY);
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(JSON.stringify(events)).toContain('[secret]');
    // The Kubernetes Job of the reviewer: a reference to the Secret, no value.
    const t = targetOf(root, config, 'ch01', 'r1');
    const cmd = buildCommand(root, 'ch01', t, { attempt: 1, backup: '', lastError: '' });
    const spec = { runId: 'ch01-r1-a1-x', argv: cmd.argv, cwd: cmd.cwd, env: cmd.env, logPath: join(root, '.checkroom/runs/x.log'), outputPath: null, idleTimeoutMs: 1, timeoutMs: 60_000, graceMs: 1000, root, unit: 'ch01', step: 'r1', attempt: 1, agent: t.agent, secretNames: cmd.secretNames, declaredSecrets: cmd.declaredSecrets, proven: () => false };
    const manifest = JSON.stringify(kubeJobManifest({ spec, name: kubeJobName(spec.runId) }));
    expect(manifest).toContain('"secretKeyRef":{"name":"checkroom-secrets","key":"ANTHROPIC_API_KEY"}');
    expect(manifest).not.toContain(KEY);
    // status --json and explain secrets, from the built binary with the key in its environment.
    forgetSecrets();
    for (const args of [['status', '--json', root], ['explain', 'secrets', root]]) {
      const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, CHECKROOM_SOCKET: 'off' } });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(KEY);
    }
    const explain = spawnSync(process.execPath, [BIN, 'explain', 'secrets', root], { encoding: 'utf8' }).stdout;
    expect(explain).toContain('ANTHROPIC_API_KEY  from $GREP_TEST_KEY');
    expect(explain).toContain('kubectl create secret generic checkroom-secrets --from-env-file=secrets.env');
  }, 120_000);
});
