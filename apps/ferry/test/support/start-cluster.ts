// Several real Ferry instances sharing what scale mode shares: one PostgreSQL schema (the catalog),
// one s3rver bucket on loopback (the blobs), one token key (each accepts the download links the
// others sign) and one Redis key prefix. Each instance keeps its own directory (workspaces, its own
// local MCP server processes), as instances on different machines do. Every resource is fresh per
// cluster, so test files running in parallel never meet.
import { randomBytes } from 'node:crypto';
import type { Host } from '@ferry/host';
import type { OpenedStorage } from '@ferry/storage';
import { createTestSchema, type TestSchema } from '@ferry/test-helpers/postgres';
import { createTestRedis, type TestRedis } from '@ferry/test-helpers/redis';
import { type S3TestServer, startS3Server } from '@ferry/test-helpers/s3-server';
import { afterAll, beforeAll } from 'vitest';
import type { AppDeps } from '../../src/app.js';
import type { AppConfigInput } from '../../src/config/app-config.js';
import { createSharedState, type SharedState } from '../../src/shared/shared-state.js';
import { PROXY_AUTH, startTestApp, type TestApp } from './start-app.js';

export interface TestCluster {
  instances: TestApp[];
  schema: TestSchema;
  s3: S3TestServer;
  redis: TestRedis;
  /** Closes every instance, then drops the schema, the bucket's server and the Redis keys. */
  close(): Promise<void>;
}

export interface StartTestClusterOptions {
  /** @default 2 */
  count?: number;
  /** App config of every instance. @default proxy auth (PROXY_AUTH), so ALICE and BOB work */
  app?: AppConfigInput;
  servers?: Record<string, unknown>;
  /**
   * Each instance gets scale mode's shared state over the cluster's Redis prefix (calls, the bus),
   * as `FERRY_REDIS_URL` gives it. false: storage is all they share. @default true
   */
  sharedState?: boolean;
  /**
   * The shared state's heartbeat (the reaper's round too). @default 200 ms: a stopped instance
   * counts as gone within a second
   */
  heartbeatMs?: number;
  /** More of one instance's parts (its shared state, once there is one), by its index. */
  deps?: (parts: {
    index: number;
    redis: TestRedis;
    host: Host;
    storage: OpenedStorage;
    dir: string;
  }) => Partial<AppDeps>;
}

export async function startTestCluster(options: StartTestClusterOptions = {}): Promise<TestCluster> {
  const count = options.count ?? 2;
  const started: { close(): Promise<unknown> }[] = [];
  const closeAll = async () => {
    // Instances first (they hold connections to the rest), then the shared parts.
    for (const part of started.reverse()) await part.close().catch(() => undefined);
  };
  try {
    const schema = await createTestSchema('ferry_cluster');
    started.push({ close: () => schema.drop() });
    const s3 = await startS3Server();
    started.push({ close: () => s3.stop() });
    const redis = await createTestRedis();
    started.push({ close: () => redis.drop() });
    const storage = {
      catalog: { driver: 'postgres', url: schema.url, schema: schema.schema },
      blob: {
        driver: 's3',
        endpoint: s3.endpoint,
        bucket: s3.bucket,
        region: s3.region,
        forcePathStyle: true,
        ...s3.credentials,
      },
      tokens: { keys: [{ id: 'cluster', secret: randomBytes(32).toString('hex') }] },
    };
    const instances: TestApp[] = [];
    for (let index = 0; index < count; index++) {
      let shared: SharedState | undefined;
      if (options.sharedState !== false) {
        shared = await createSharedState({
          redis: {
            url: redis.url,
            prefix: redis.prefix,
            heartbeatMs: options.heartbeatMs ?? 200,
            requestTimeoutMs: 5_000,
          },
        });
        const opened = shared;
        if (opened) started.push({ close: () => opened.close() });
      }
      const instance = await startTestApp({
        app: options.app ?? { auth: PROXY_AUTH },
        storage,
        ...(options.servers ? { servers: options.servers } : {}),
        deps: (parts) => ({
          ...(shared ? { shared } : {}),
          ...options.deps?.({ ...parts, index, redis }),
        }),
      });
      instances.push(instance);
      started.push(instance);
    }
    return { instances, schema, s3, redis, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** A cluster as a test file reads it: each getter throws until beforeAll has started the cluster. */
export interface ClusterContext<C> {
  readonly cluster: C;
  /** The first instance's URL. */
  readonly a: string;
  /** The second instance's URL. */
  readonly b: string;
}

/**
 * Starts the cluster in beforeAll (60 s) and closes it in afterAll, for a test file or a describe.
 * Vitest runs afterAll hooks last-registered first, so services registered before this call (a
 * bucket's server the cluster is built over) start before the cluster and stop after it closes;
 * hooks registered after it run with the cluster started and end before it closes.
 */
export function useTestCluster<C extends { instances: { url: string }[]; close(): Promise<void> }>(
  start: () => Promise<C>,
): ClusterContext<C> {
  let started: C | undefined;
  beforeAll(async () => {
    started = await start();
  }, 60_000);
  afterAll(async () => {
    await started?.close();
  });
  const cluster = (): C => {
    if (!started)
      throw new Error('The cluster has not started: read it in a test or in a hook after useTestCluster');
    return started;
  };
  const url = (index: number): string => {
    const instance = cluster().instances[index];
    if (!instance)
      throw new Error(`The cluster has no instance ${index} (it has ${cluster().instances.length})`);
    return instance.url;
  };
  return {
    get cluster() {
      return cluster();
    },
    get a() {
      return url(0);
    },
    get b() {
      return url(1);
    },
  };
}
