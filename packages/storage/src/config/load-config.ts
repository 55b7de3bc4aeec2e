import { join } from 'node:path';
import { FerryError } from '@ferry/contract';
import type { z } from 'zod';
import { applyEnv, type ConfigProblem, variableFor } from './env.js';
import { type StorageConfig, storageConfigSchema } from './schema.js';

export interface LoadStorageConfigOptions {
  /** The storage section of ferry.config (already parsed from JSON/YAML); not modified. */
  file?: unknown;
  /** Usually `process.env`; its FERRY_* variables override the file. */
  env: NodeJS.ProcessEnv;
}

/**
 * Validates file + environment once, fills defaults and returns a deep-frozen config
 * (fastify's initial-config-validation). Every problem is reported at once, each naming the
 * variable or field it came from; secrets are never echoed.
 */
export function loadStorageConfig(options: LoadStorageConfigOptions): StorageConfig {
  const file = options.file ?? {};
  if (typeof file !== 'object' || file === null || Array.isArray(file)) {
    throw invalid([{ field: '(root)', message: 'the storage config must be an object' }]);
  }
  const raw = structuredClone(file) as Record<string, unknown>;
  const { sources, problems } = applyEnv(raw, options.env);
  const result = storageConfigSchema.safeParse(raw);
  if (!result.success) {
    // A variable that did not parse left the file's value in place; do not report that field twice.
    const envFields = new Set(problems.map((p) => p.field));
    const schemaProblems = result.error.issues.flatMap((issue) => toProblems(issue, sources));
    problems.push(...schemaProblems.filter((p) => !envFields.has(p.field)));
  }
  if (problems.length > 0 || !result.success) throw invalid(problems);

  const parsed = result.data;
  const config = {
    ...parsed,
    blob:
      parsed.blob.driver === 'local'
        ? { ...parsed.blob, root: parsed.blob.root ?? join(parsed.dataDir, 'blobs') }
        : parsed.blob,
    catalog:
      parsed.catalog.driver === 'sqlite'
        ? { ...parsed.catalog, filename: parsed.catalog.filename ?? join(parsed.dataDir, 'catalog.db') }
        : parsed.catalog,
  };
  return deepFreeze(config) as StorageConfig;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function toProblems(issue: z.core.$ZodIssue, sources: Map<string, string>): ConfigProblem[] {
  // One problem per unknown key, so each is named (and traced to its variable) on its own.
  const paths =
    issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path];
  return paths.map((path) => {
    const field = path.length === 0 ? '(root)' : path.map(String).join('.');
    const variable = sources.get(field);
    const message = issue.code === 'unrecognized_keys' ? 'unknown setting' : issue.message;
    return variable === undefined ? { field, message } : { field, variable, message };
  });
}

function invalid(problems: ConfigProblem[]): FerryError {
  const lines = problems.map((p) => {
    if (p.variable !== undefined) return `${p.variable} (${p.field}): ${p.message}`;
    const hint = variableFor(p.field);
    return `${p.field}: ${p.message}${hint === undefined ? '' : ` (or set ${hint})`}`;
  });
  return new FerryError('E_INVALID_INPUT', `Invalid storage configuration:\n  ${lines.join('\n  ')}`, {
    problems,
  });
}
