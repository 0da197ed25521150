import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, parseConfig } from '../../../../src/pipeline/config/config.js';
import { readSecrets, SecretError } from '../../../../src/run/secrets/secrets.js';
import { forgetSecrets, knownSecrets, redactSecrets } from '../../../../src/text/redact.js';
import { escapeJsonText } from '../../../../src/text/json-escape.js';
import { tempDir } from '../../../helpers/workspace.js';
import { secretsText } from '../../../../src/cli/commands/explain-secrets.js';
import { secretsSchema } from '../../../../src/pipeline/schema-secrets.js';

// Secrets (issue 22 item 5): read from checkroom's environment or from a 0600 file of the
// user's inside the workspace, outside_roots or home; every value read is redacted from then on.

const KEY = 'sk-ant-test-9f3c2e1d7b6a5';
afterEach(() => forgetSecrets());

const fileSecret = (mode: number, body = `${KEY}\n`): { root: string; file: string } => {
  const root = tempDir('checkroom-secret-');
  mkdirSync(join(root, 'keys'));
  const file = join(root, 'keys', 'anthropic');
  writeFileSync(file, body);
  chmodSync(file, mode);
  return { root, file };
};

const refused = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof SecretError) return e.message;
    throw e;
  }
  throw new Error('expected a SecretError');
};

describe('reading secrets', () => {
  it('from the environment, and key-like names already there are secrets too', () => {
    const s = readSecrets({ ANTHROPIC_API_KEY: { env: 'MY_KEY' } }, { MY_KEY: KEY, GITHUB_TOKEN: 'ghp_0123456789abcdef', CHECKROOM_RUN_TOKEN: 'not-a-secret-x', PATH: '/bin' }, ['/nowhere']);
    expect(s.env).toEqual({ ANTHROPIC_API_KEY: KEY });
    expect(s.names).toEqual(['ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'MY_KEY']);
    expect(knownSecrets()).toEqual(expect.arrayContaining([KEY, 'ghp_0123456789abcdef']));
    expect(refused(() => readSecrets({ ANTHROPIC_API_KEY: { env: 'UNSET_KEY' } }, {}, []))).toContain('the environment variable UNSET_KEY is not set: export it');
  });

  it('from a 0600 file of the user, one line; a file others can read is refused with the chmod to run', () => {
    const ok = fileSecret(0o600);
    expect(readSecrets({ K: { file: ok.file } }, {}, [ok.root]).env).toEqual({ K: KEY });
    const open = fileSecret(0o644);
    expect(refused(() => readSecrets({ K: { file: open.file } }, {}, [open.root]))).toContain(`has mode 0644, readable by others: chmod 600 ${open.file}`);
    const two = fileSecret(0o600, 'a-first-line\nsecond-line\n');
    expect(refused(() => readSecrets({ K: { file: two.file } }, {}, [two.root]))).toContain('more than one line');
    expect(refused(() => readSecrets({ K: { file: ok.file } }, {}, ['/srv/elsewhere']))).toContain('is outside the workspace, outside_roots and your home directory');
    expect(refused(() => readSecrets({ K: { file: join(ok.root, 'nope') } }, {}, [ok.root]))).toContain('does not exist');
  });

  it('a value read is redacted from every text and JSON written after; short values are not remembered', () => {
    readSecrets({ A: { env: 'A' }, B: { env: 'B' } }, { A: KEY, B: 'short' }, []);
    expect(redactSecrets(`the key is ${KEY}.`)).toBe('the key is [secret].');
    expect(escapeJsonText(JSON.stringify({ line: `echo ${KEY}` }))).toBe('{"line":"echo [secret]"}');
    expect(redactSecrets('short stays')).toBe('short stays');
  });
});

describe('secrets: in checkroom.yaml', () => {
  it('names and sources resolve; a file path is relative to checkroom.yaml', () => {
    const cfg = parseConfig('secrets:\n  ANTHROPIC_API_KEY: { env: ANTHROPIC_API_KEY }\n  GH_TOKEN: { file: keys/gh }\n  NPM_TOKEN: { file: ~/.npm-token }\n', '/ws/checkroom.yaml');
    expect(cfg.secrets).toEqual({ ANTHROPIC_API_KEY: { env: 'ANTHROPIC_API_KEY' }, GH_TOKEN: { file: '/ws/keys/gh' }, NPM_TOKEN: { file: join(homedir(), '.npm-token') } });
  });

  it('a source is an env name or a file, nothing else', () => {
    expect(secretsSchema.safeParse({ K: { env: 'VAR' } }).success).toBe(true);
    expect(secretsSchema.safeParse({ K: { env: 'VAR', file: 'f' } }).success).toBe(false);
    expect(secretsSchema.safeParse({ 'bad-name': { env: 'VAR' } }).success).toBe(false);
  });

  it('a value written in place of its source is refused at its node', () => {
    try {
      parseConfig(`secrets:\n  ANTHROPIC_API_KEY: ${KEY}\n`, 'checkroom.yaml');
      throw new Error('expected a ConfigError');
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      expect([e.line, e.column]).toEqual([2, 22]);
      expect(e.message).toContain('{ env: VARIABLE } or { file: path/of/a/0600/file }');
      expect(e.message).toContain("not shown: a secret's value never goes in checkroom.yaml");
      expect(e.message).not.toContain(KEY);
    }
  });
});

describe('explain secrets', () => {
  it('says each source and whether it can be read, and the kubectl line, never a value', () => {
    const { root, file } = fileSecret(0o644);
    const cfg = parseConfig(`executor: kubernetes\nkubernetes: { namespace: books }\nsecrets:\n  A_KEY: { env: EXPLAIN_TEST_KEY }\n  B_KEY: { file: ${file} }\nagents:\n  w:\n    command: [x]\n`, join(root, 'checkroom.yaml'));
    process.env.EXPLAIN_TEST_KEY = KEY;
    const text = secretsText(root, cfg, { paint: (_t: string, s: string) => s } as never).join('\n');
    delete process.env.EXPLAIN_TEST_KEY;
    expect(text).toContain('A_KEY  from $EXPLAIN_TEST_KEY\n');
    expect(text).toContain(`B_KEY  from ${file} — secret B_KEY: the file ${file} has mode 0644, readable by others: chmod 600`);
    expect(text).toContain('kubectl --namespace books create secret generic checkroom-secrets --from-env-file=secrets.env   # secrets.env: A_KEY=…, B_KEY=…');
    expect(text).not.toContain(KEY);
  });
});
