import { createHash } from 'node:crypto';
import type { AgentDef } from '../../pipeline/config/types.js';

// Whose quota an agent spends (docs/quota.md, Accounts): its adapter and the identity of the
// key it runs with. The key never leaves this file: only a hash of the variable's name and
// value is kept, journalled and shown, so two agents on the same key share one wait and an
// agent on another key does not.

/** The variables the agent CLIs read their credentials from, in the order they win. */
export const KEY_VARS: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'OPENAI_API_KEY',
];

export interface Account {
  /** `claude-code:3f9a2c41d0be`: stable across restarts and processes, never the key. */
  id: string;
  /** `claude-code key 3f9a2c (ANTHROPIC_API_KEY)` or `claude-code login`: what the operator reads. */
  label: string;
}

const cache = new WeakMap<AgentDef, Map<string, Account>>();

/** The account of an agent under an environment (the agent's own `env:` wins, as at launch). */
export function accountOf(agent: AgentDef, env: NodeJS.ProcessEnv = process.env): Account {
  const kind = agent.adapter ?? 'command';
  const vars = KEY_VARS.flatMap((name) => {
    const value = agent.env[name] ?? env[name];
    return value ? [[name, value] as const] : [];
  });
  // One entry per agent and key set: autopilot asks for every plan row.
  const memo = `${kind}\u0000${vars.map(([n, v]) => `${n}=${v}`).join('\u0000')}`;
  let byEnv = cache.get(agent);
  const hit = byEnv?.get(memo);
  if (hit) return hit;
  let account: Account;
  if (vars.length === 0) {
    // No key in sight: the CLI's own login (a subscription), one per adapter on this machine.
    account = { id: `${kind}:login`, label: `${kind} login` };
  } else {
    const hash = createHash('sha256').update(memo).digest('hex').slice(0, 12);
    account = { id: `${kind}:${hash}`, label: `${kind} key ${hash.slice(0, 6)} (${vars[0]![0]})` };
  }
  if (!byEnv) cache.set(agent, (byEnv = new Map()));
  byEnv.set(memo, account);
  return account;
}

/** Every configured agent's account id, by agent name: who else waits when one account does (the ETA, Health). */
export const accountsOf = (agents: Readonly<Record<string, AgentDef>>, env: NodeJS.ProcessEnv = process.env): Record<string, string> =>
  Object.fromEntries(Object.entries(agents).map(([name, a]) => [name, accountOf(a, env).id]));
