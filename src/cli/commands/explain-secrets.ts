import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import type { TextOptions } from '../../text/layout.js';
import { readSecretFile, secretRoots, SecretError } from '../../run/secrets/secrets.js';
import { kubeSecretCommand, kubeSecretNames } from '../../run/executors/kube-manifest.js';

// `checkroom explain secrets [dir]` (docs/scale-out.md, Secrets): each declared secret, where
// its value is read and whether it can be, how each executor hands it to its agents, and the
// kubectl line that makes a Kubernetes agents' Secret. Never a value: a file is opened only
// to check it, and what it holds is not printed.

const sourceLine = (root: string, config: WorkspaceConfig, name: string): string => {
  const src = config.secrets![name]!;
  if ('env' in src) return `  ${name}  from $${src.env}${process.env[src.env] ? '' : ' — NOT SET in this environment: export it before starting checkroom'}`;
  try {
    readSecretFile(name, src.file, secretRoots(root, config.pipeline.outsideRoots));
    return `  ${name}  from ${src.file} (0600, yours)`;
  } catch (e) {
    if (e instanceof SecretError) return `  ${name}  from ${src.file} — ${e.message}`;
    throw e;
  }
};

export const secretsText = (root: string, config: WorkspaceConfig, o: TextOptions): string[] => {
  const names = Object.keys(config.secrets ?? {}).sort();
  const agents = Object.values(config.agents);
  const kube = agents.filter((a) => a.executor === 'kubernetes');
  const lines = [o.paint('title', `Secrets of ${root}`)];
  if (names.length === 0) lines.push('  none declared (secrets: in checkroom.yaml); key-like names in checkroom\'s environment (…_API_KEY, …_TOKEN) are still kept off Slurm jobs and redacted');
  else lines.push(...names.map((n) => sourceLine(root, config, n)));
  lines.push(
    '',
    'local agents get them in their environment (never on a command line); Slurm jobs in a 0600 file the',
    'job script reads and deletes (never in the submitted environment); Kubernetes Jobs by secretKeyRef.',
  );
  for (const a of kube) {
    const refs = kubeSecretNames({ agent: a, declaredSecrets: names, secretNames: names });
    if (refs.length) lines.push('', `agent ${a.name} (kubernetes) reads ${refs.join(', ')} from the Secret ${a.kubernetes.secret}; make it with:`, `  ${kubeSecretCommand(a, refs)}`);
  }
  return [...lines, ''];
};
