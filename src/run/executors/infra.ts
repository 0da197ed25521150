import type { ExecutorName } from '../../pipeline/config/types.js';

/**
 * The breaker that counts an executor's infrastructure faults (INFRA), apart from
 * every agent's: a drained cluster opens it once instead of opening every agent's breaker.
 * Agent names cannot hold ':' (schema ID_RE), so the key never collides with an agent.
 */
export const infraBreakerOf = (executor: ExecutorName | undefined): string | null => (!executor || executor === 'local' ? null : `${executor}:infra`);
