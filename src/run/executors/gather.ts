// Reads of a cluster that many jobs ask at about the same time (an array's tasks ending in one
// poll tick): each asker waits a short window for the others of its cluster, then one call
// answers them all and each takes its own part. Keyed by the cluster's SLURM_CONF, bounded in
// ids per call; a window opened after a call left is a new call.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Gathered<R> = (id: string, env: Record<string, string>) => Promise<R>;

export function gatherer<R>(windowMs: number, maxIds: number, call: (ids: string[], env: Record<string, string>) => Promise<R>): Gathered<R> {
  const open = new Map<string, { ids: Set<string>; answer: Promise<R> }>();
  return (id, env) => {
    const key = env.SLURM_CONF ?? '';
    let g = open.get(key);
    if (!g || g.ids.size >= maxIds) {
      const ids = new Set<string>();
      const answer = sleep(windowMs).then(() => {
        if (open.get(key)?.ids === ids) open.delete(key);
        return call([...ids], env);
      });
      g = { ids, answer };
      open.set(key, g);
    }
    g.ids.add(id);
    return g.answer;
  };
}
