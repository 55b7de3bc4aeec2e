// Scale mode's parts for fault tests (issue 22): like start-cluster.ts, but the test brings the
// backing service it is about to break (an s3rver it can kill, a redis-server of its own), so
// the instances are built over it. Everything else is fresh per cluster: a PostgreSQL schema, a
// Redis key prefix, a token key.
import { randomBytes } from 'node:crypto';
import { createTestSchema, type TestSchema } from '@ferry/test-helpers/postgres';
import { deleteUnder } from '@ferry/test-helpers/redis';
import { Redis } from 'ioredis';
import type { AppConfigInput } from '../../src/config/app-config.js';
import { createSharedState, type SharedState } from '../../src/shared/shared-state.js';
import { PROXY_AUTH, startTestApp, type TestApp } from './start-app.js';

export interface FaultS3 {
  endpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

export interface FaultCluster {
  instances: TestApp[];
  schema: TestSchema;
  /** The storage section every instance was given: for fsck, or a `ferry start` of the same store. */
  storage: Record<string, unknown>;
  /** The token key every instance signs with (FERRY_TOKEN_SECRET of a child instance). */
  tokenSecret: string;
  redis: { url: string; prefix: string } | undefined;
  close(): Promise<void>;
}

export interface StartFaultClusterOptions {
  s3: FaultS3;
  /** Shared state over this Redis (heartbeat 200 ms); none: the instances share storage only. */
  redisUrl?: string;
  /** @default 2 */
  count?: number;
  app?: AppConfigInput;
  servers?: Record<string, unknown>;
  /** @default 'ferry_fault' */
  schemaPrefix?: string;
  /**
   * Set as the catalog connections' application_name, so a test can find exactly this cluster's
   * backends in pg_stat_activity (and terminate them) without touching anyone else's.
   */
  pgApplicationName?: string;
}

export async function startFaultCluster(options: StartFaultClusterOptions): Promise<FaultCluster> {
  const started: { close(): Promise<unknown> }[] = [];
  const closeAll = async () => {
    for (const part of started.reverse()) await part.close().catch(() => undefined);
  };
  try {
    const schema = await createTestSchema(options.schemaPrefix ?? 'ferry_fault');
    started.push({ close: () => schema.drop() });
    const tokenSecret = randomBytes(32).toString('hex');
    const url = new URL(schema.url);
    if (options.pgApplicationName) url.searchParams.set('application_name', options.pgApplicationName);
    const storage = {
      catalog: { driver: 'postgres', url: url.toString(), schema: schema.schema },
      blob: {
        driver: 's3',
        endpoint: options.s3.endpoint,
        bucket: options.s3.bucket,
        region: options.s3.region,
        forcePathStyle: true,
        ...options.s3.credentials,
      },
      tokens: { keys: [{ id: 'env', secret: tokenSecret }] },
    };
    let redis: FaultCluster['redis'];
    if (options.redisUrl) {
      redis = { url: options.redisUrl, prefix: `ferry-fault-${randomBytes(6).toString('hex')}:` };
      const { url, prefix } = redis;
      // Runs last: the keys go once every instance has left.
      started.push({ close: () => dropKeys(url, prefix) });
    }
    const instances: TestApp[] = [];
    for (let index = 0; index < (options.count ?? 2); index++) {
      let shared: SharedState | undefined;
      if (redis) {
        shared = await createSharedState({
          redis: { url: redis.url, prefix: redis.prefix, heartbeatMs: 200, requestTimeoutMs: 5_000 },
        });
        const opened = shared;
        if (opened) started.push({ close: () => opened.close() });
      }
      const instance = await startTestApp({
        app: options.app ?? { auth: PROXY_AUTH },
        storage,
        ...(options.servers ? { servers: options.servers } : {}),
        deps: () => (shared ? { shared } : {}),
      });
      instances.push(instance);
      started.push(instance);
    }
    return { instances, schema, storage, tokenSecret, redis, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

async function dropKeys(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    await deleteUnder(client, prefix);
  } finally {
    client.disconnect();
  }
}
