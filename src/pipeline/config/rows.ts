import { adapterRows, type AgentAdapter } from '../../run/adapters/index.js';
import { executorRows } from '../../run/executors/registry.js';
import type { Executor } from '../../run/executors/types.js';
import { rawConfigSchemaOf, SCHEMA_KIT, type SchemaRow } from '../schema.js';

// checkroom.yaml as the registries say it (docs/architecture.md, How to add): each adapter's
// and executor's own file gives its keys, rules and options; this module only lists them for
// the schema, and builds the schema again only when a row was registered.

const adapterRow = (a: AgentAdapter): SchemaRow => ({
  id: a.id,
  ...(a.config.keys ? { keys: a.config.keys(SCHEMA_KIT) } : {}),
  ...(a.config.check ? { check: a.config.check as SchemaRow['check'] } : {}),
  canResume: a.canResume,
});

const executorRow = (e: Executor): SchemaRow => ({
  id: e.name,
  ...(e.options ? { options: { key: e.options.key, schema: e.options.schema(SCHEMA_KIT) } } : {}),
});

let memo: { adapters: readonly AgentAdapter[]; executors: readonly Executor[]; schema: ReturnType<typeof rawConfigSchemaOf> } | null = null;

/** The schema of checkroom.yaml for the adapters and executors registered now. */
export const configSchema = (): ReturnType<typeof rawConfigSchemaOf> => {
  const adapters = adapterRows();
  const executors = executorRows();
  if (memo?.adapters !== adapters || memo.executors !== executors) {
    memo = { adapters, executors, schema: rawConfigSchemaOf(adapters.map(adapterRow), executors.map(executorRow)) };
  }
  return memo.schema;
};
