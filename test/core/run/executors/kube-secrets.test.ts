import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../src/pipeline/config/config.js';
import { kubeJobManifest, kubeJobName, kubeSecretCommand, kubeSecretNames } from '../../../../src/run/executors/kube-manifest.js';
import type { ExecutorSpec } from '../../../../src/run/executors/types.js';
import { decodeOffline, hasKubectl } from '../../../helpers/kubectl.js';

// A Kubernetes Job never carries a secret's value (issue 22 item 5): a declared secret, or a
// key-like name in the agent's env, is a valueFrom.secretKeyRef into kubernetes.secret; the
// operator is shown the kubectl line that makes the Secret, with no value in it.

const KEY = 'sk-ant-kube-5e4d3c2b1a09';

const spec = (): ExecutorSpec => {
  const cfg = parseConfig(
    `executor: kubernetes\nkubernetes: { namespace: books, image: 'a:1', pvc: rwx, secret: agent-keys }\nsecrets:\n  ANTHROPIC_API_KEY: { env: ANTHROPIC_API_KEY }\nagents:\n  writer:\n    command: [node, w.mjs]\n    env: { MODEL: large, OPENAI_API_KEY: ${KEY}x }\n`,
    'checkroom.yaml',
  );
  const agent = cfg.agents.writer!;
  const env = { PATH: '/bin', ANTHROPIC_API_KEY: KEY, MODEL: 'large', OPENAI_API_KEY: `${KEY}x` };
  return { runId: 'ch01-draft-a1-x', argv: ['node', 'w.mjs'], cwd: '/ws', env, logPath: '/ws/.checkroom/runs/r.log', outputPath: null, idleTimeoutMs: 1, timeoutMs: 60_000, graceMs: 1000, root: '/ws', unit: 'ch01', step: 'draft', attempt: 1, agent, secretNames: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'], declaredSecrets: ['ANTHROPIC_API_KEY'], proven: () => false };
};

describe('secrets in a Kubernetes Job', () => {
  it('are secretKeyRefs into the Secret, never values; other env stays a value', () => {
    const m = kubeJobManifest({ spec: spec(), name: kubeJobName('ch01-draft-a1-x') }) as { spec: { template: { spec: { containers: { env: unknown[] }[] } } } };
    expect(m.spec.template.spec.containers[0]!.env).toEqual([
      { name: 'MODEL', value: 'large' },
      { name: 'ANTHROPIC_API_KEY', valueFrom: { secretKeyRef: { name: 'agent-keys', key: 'ANTHROPIC_API_KEY' } } },
      { name: 'OPENAI_API_KEY', valueFrom: { secretKeyRef: { name: 'agent-keys', key: 'OPENAI_API_KEY' } } },
    ]);
    expect(JSON.stringify(m)).not.toContain(KEY);
  });

  it('the line to make the Secret names the keys and no value', () => {
    const s = spec();
    const line = kubeSecretCommand(s.agent, kubeSecretNames(s));
    expect(line).toContain('kubectl --namespace books create secret generic agent-keys --from-env-file=secrets.env');
    expect(line).toContain('ANTHROPIC_API_KEY=…, OPENAI_API_KEY=…');
    expect(line).not.toContain(KEY);
  });

  it.skipIf(!hasKubectl)('kubectl decodes the secretKeyRef env offline (--dry-run=client) with nothing dropped', () => {
    const m = kubeJobManifest({ spec: spec(), name: kubeJobName('ch01-draft-a1-x') });
    const { status, stderr, back } = decodeOffline(m);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    back.spec.template.spec.containers[0].env.pop();
    expect(back).toMatchObject(m);
    expect(JSON.stringify(back)).not.toContain(KEY);
  });
});
