import { parentPort, workerData } from 'node:worker_threads';
import type { PipelineDef } from '../types.js';
import { scanFiles } from './scan.js';

// One share of the per-unit artifacts, read on another core (see parallel.ts).
const { root, pipeline, units } = workerData as { root: string; pipeline: PipelineDef; units: string[] };
parentPort!.postMessage([...scanFiles(root, pipeline, units).values()]);
