import { FerryError } from '@ferry/contract';
import type { z } from 'zod';
import {
  SCHEMA_BY_TRANSPORT,
  SERVER_NAME_PATTERN,
  SERVER_TRANSPORTS,
  type ServerConfig,
  type ServerConfigInput,
  type ServerTransport,
} from './server-config.js';

/** The MCP servers of ferry.config, validated once and deep-frozen. */
export interface ServerRegistry {
  /** Every configured server, enabled or not, in config order. */
  list(): readonly ServerConfig[];
  /** The server called `name`; an unknown name throws FerryError E_INVALID_INPUT naming it. */
  get(name: string): ServerConfig;
  has(name: string): boolean;
}

export interface ServerConfigProblem {
  /** The server's name as written in the config; '' for a problem with the section itself. */
  server: string;
  /** Dotted path inside the server's entry, e.g. `timeouts.hardCapSeconds`; `(name)` for the key. */
  field: string;
  message: string;
}

/**
 * Reads the `servers` section of a whole ferry.config object (already parsed from JSON/YAML).
 * A config without `servers` has no servers. Other sections are ignored.
 */
export function loadServerRegistry(config: unknown): ServerRegistry {
  if (!isPlainObject(config)) {
    throw invalid([{ server: '', field: '(root)', message: 'the config must be an object' }]);
  }
  return createServerRegistry((config.servers ?? {}) as Record<string, ServerConfigInput>);
}

/**
 * Validates every entry at once (all problems are reported together, each naming server and
 * field), fills defaults and freezes the result (fastify's initial-config-validation).
 */
export function createServerRegistry(servers: Readonly<Record<string, ServerConfigInput>>): ServerRegistry {
  const configs = parseServers(servers);
  const byName = new Map(configs.map((config) => [config.name, config]));
  return Object.freeze({
    list: () => configs,
    get(name: string): ServerConfig {
      const config = byName.get(name);
      if (config === undefined) {
        throw new FerryError('E_INVALID_INPUT', `Unknown MCP server "${name}"`, {
          field: 'server',
          server: name,
        });
      }
      return config;
    },
    has: (name: string) => byName.has(name),
  });
}

function parseServers(servers: unknown): readonly ServerConfig[] {
  if (!isPlainObject(servers)) {
    throw invalid([{ server: '', field: '(root)', message: 'servers must be an object of name → server' }]);
  }
  const problems: ServerConfigProblem[] = [];
  const configs: ServerConfig[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    if (!SERVER_NAME_PATTERN.test(name)) {
      problems.push({
        server: name,
        field: '(name)',
        message: 'server names are 1-63 of a-z 0-9 _ -, starting with a letter or digit',
      });
    }
    if (!isPlainObject(raw)) {
      problems.push({ server: name, field: '(root)', message: 'a server must be an object' });
      continue;
    }
    const transport = raw.transport;
    if (!isTransport(transport)) {
      problems.push({
        server: name,
        field: 'transport',
        message: `transport must be one of ${SERVER_TRANSPORTS.map((t) => `"${t}"`).join(', ')}`,
      });
      continue;
    }
    const result = SCHEMA_BY_TRANSPORT[transport].safeParse(raw);
    if (!result.success) {
      problems.push(...result.error.issues.flatMap((issue) => toProblems(name, transport, issue)));
      continue;
    }
    const config: ServerConfig = { name, ...result.data };
    configs.push(config);
  }
  if (problems.length > 0) throw invalid(problems);
  return deepFreeze(configs);
}

function toProblems(
  server: string,
  transport: ServerTransport,
  issue: z.core.$ZodIssue,
): ServerConfigProblem[] {
  // One problem per unknown key, so each is named on its own.
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      server,
      field: [...issue.path, key].map(String).join('.'),
      message: `not a setting of ${transport} servers`,
    }));
  }
  const field = issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.');
  return [{ server, field, message: issue.message }];
}

function invalid(problems: ServerConfigProblem[]): FerryError {
  const lines = problems.map((p) => {
    const where = p.server === '' ? 'servers' : `servers.${p.server}`;
    return p.field === '(root)' ? `${where}: ${p.message}` : `${where}.${p.field}: ${p.message}`;
  });
  return new FerryError('E_INVALID_INPUT', `Invalid server configuration:\n  ${lines.join('\n  ')}`, {
    problems,
  });
}

function isTransport(value: unknown): value is ServerTransport {
  return typeof value === 'string' && (SERVER_TRANSPORTS as readonly string[]).includes(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
