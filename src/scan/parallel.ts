import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import type { FileFacts, PipelineDef } from '../types.js';
import { scanArtifacts, scanFiles, scanGlobals, type ScanResult } from './scan.js';

// Large workspaces are read on every core: the scan is syscall-bound (open, read, close
// per artifact) and one thread leaves the other core idle while grep-class tools finish
// first. Below PARALLEL_MIN files the cost of starting workers outweighs the gain.

export const PARALLEL_MIN = 4000;

const WORKER = fileURLToPath(new URL('./scan-worker.js', import.meta.url));

export async function scanArtifactsFast(root: string, pipeline: PipelineDef, units: readonly string[]): Promise<ScanResult> {
  const perUnit = pipeline.steps.filter((s) => s.kind === 'file').length;
  const cores = Math.min(availableParallelism(), 4);
  // Workers load compiled JavaScript; under a TypeScript test runner we stay on one thread.
  if (units.length * perUnit < PARALLEL_MIN || cores < 2 || !existsSync(WORKER)) return scanArtifacts(root, pipeline, units);
  const chunks: string[][] = Array.from({ length: cores }, () => []);
  units.forEach((u, i) => chunks[i % cores].push(u));
  const parts = await Promise.all(
    chunks.map(
      (chunk) =>
        new Promise<FileFacts[]>((resolve, reject) => {
          const w = new Worker(WORKER, { workerData: { root, pipeline, units: chunk } });
          w.once('message', (facts: FileFacts[]) => resolve(facts));
          w.once('error', reject);
          w.once('exit', (code) => code !== 0 && reject(new Error(`scan worker exited with ${code}`)));
        }),
    ),
  );
  const files = new Map<string, FileFacts>();
  for (const part of parts) for (const f of part) files.set(f.path, f);
  return { files, ...scanGlobals(root, pipeline), scannedAt: Date.now() };
}
