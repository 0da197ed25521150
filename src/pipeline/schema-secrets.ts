import { z } from 'zod';

// `secrets:` in checkroom.yaml (docs/scale-out.md, Secrets; docs/config.md): each name an agent
// gets in its environment, and where its value is read — an environment variable of
// checkroom's, or a file (0600, owned by the user: run/secrets/secrets.ts checks it at launch).
// The value itself is never written in checkroom.yaml.

const NAME_HINT = 'an environment variable name (letters, digits and _, not starting with a digit)';
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envName = z.string({ error: NAME_HINT }).regex(ENV_NAME_RE, { error: NAME_HINT });

const SOURCE_HINT = '{ env: VARIABLE } or { file: path/of/a/0600/file }';
const source = z.union([z.strictObject({ env: envName }), z.strictObject({ file: z.string({ error: 'a path' }).min(1, { error: 'a path' }) })], { error: SOURCE_HINT });

export const secretsSchema = z.record(envName, source, { error: `a mapping of names to ${SOURCE_HINT}` });

export type RawSecrets = z.output<typeof secretsSchema>;
