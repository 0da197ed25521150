import { existsSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { sanitizeLine } from '../text/sanitize.js';
import type { Warning } from '../types.js';
import { ARTIFACTS_DIR } from './plan.js';
import { isRecord, readJson, str } from './read-json.js';
import { stepKey } from './gate-file.js';

// The artifact registry (docs/domain.md, Workflow gate files: each artifact
// must exist on disk). `artifacts` is a map name → entry, or an array in older tools. Paths are
// relative to the workspace; an absolute path is often from another machine, so we try its
// basename under the artifacts dir — and say so, because that is a guess.

export interface RegistryCheck {
  /** False when there is no registry file. */
  present: boolean;
  artifacts: number;
  missing: { name: string; path: string }[];
  /** Artifacts found on disk, with the step that produced them (canonical key) when the entry says. */
  onDisk: RegistryArtifact[];
}

export interface RegistryArtifact {
  name: string;
  path: string;
  step: string | null;
}

function entries(artifacts: unknown): [string, Record<string, unknown>][] {
  if (Array.isArray(artifacts)) return artifacts.filter(isRecord).map((a, i) => [str(a.name) ?? str(a.path) ?? `#${i}`, a]);
  if (isRecord(artifacts)) return Object.entries(artifacts).filter((e): e is [string, Record<string, unknown>] => isRecord(e[1]));
  return [];
}

export async function checkRegistry(root: string, id: string, warnings: Warning[]): Promise<RegistryCheck> {
  const rel = `${ARTIFACTS_DIR}/registry-${id}.json`;
  const read = await readJson(join(root, rel));
  if (read.kind === 'missing') return { present: false, artifacts: 0, missing: [], onDisk: [] };
  if (read.kind !== 'ok' || !isRecord(read.value)) {
    warnings.push({ source: rel, message: `registry cannot be read (${read.kind}); artifacts are not checked — rebuild it from the gate files` });
    return { present: true, artifacts: 0, missing: [], onDisk: [] };
  }
  const list = entries(read.value.artifacts);
  const missing: { name: string; path: string }[] = [];
  const onDisk: RegistryArtifact[] = [];
  for (const [key, a] of list) {
    const name = sanitizeLine(str(a.name) ?? key);
    const p = str(a.path) ?? str(a.file_path) ?? str(a.filePath);
    if (!p) {
      warnings.push({ source: rel, message: `artifact ${name} has no path; it cannot be checked on disk` });
      continue;
    }
    const shown = sanitizeLine(p);
    const found = { name, path: shown, step: stepKey(a.step ?? a.step_number ?? a.stepNumber) };
    if (!isAbsolute(p)) {
      if (!existsSync(resolve(root, p))) missing.push({ name, path: shown });
      else onDisk.push(found);
      continue;
    }
    if (existsSync(p)) {
      onDisk.push(found);
      continue;
    }
    const local = join(root, ARTIFACTS_DIR, basename(p));
    if (existsSync(local)) {
      warnings.push({ source: rel, message: `artifact ${name} has an absolute path from another machine (${shown}); found by name at ${ARTIFACTS_DIR}/${sanitizeLine(basename(p))} — check it is the same file` });
      onDisk.push({ ...found, path: `${ARTIFACTS_DIR}/${sanitizeLine(basename(p))}` });
    } else {
      missing.push({ name, path: shown });
    }
  }
  return { present: true, artifacts: list.length, missing, onDisk };
}
