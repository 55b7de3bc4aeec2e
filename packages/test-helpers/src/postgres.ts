// A fresh PostgreSQL schema per test run, dropped at the end, so runs never see each other's rows.
// When the server is missing, creating the schema throws with what to do: never a quiet skip.
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

const TEST_POSTGRES_URL = process.env.FERRY_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestSchema {
  url: string;
  schema: string;
  drop(): Promise<void>;
}

export async function createTestSchema(prefix = 'ferry_test'): Promise<TestSchema> {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is unreachable at ${TEST_POSTGRES_URL} (${(error as Error).message || String(error)}). ` +
        'These tests need it: start it, or point FERRY_TEST_POSTGRES_URL at one.',
    );
  }
  await admin.query(`create schema ${schema}`);
  return {
    url: TEST_POSTGRES_URL,
    schema,
    drop: async () => {
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    },
  };
}

/**
 * Fault tests: terminates every backend whose application_name is `applicationName` (set in the
 * connection URL of the pool under test), as a failover or an operator's pg_terminate_backend
 * does, and never another test's. Resolves with how many were terminated.
 */
export async function terminateBackends(applicationName: string): Promise<number> {
  const admin = new Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 5000 });
  await admin.connect();
  try {
    const result = await admin.query<{ terminated: boolean }>(
      'select pg_terminate_backend(pid) as terminated from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()',
      [applicationName],
    );
    return result.rows.filter((row) => row.terminated).length;
  } finally {
    await admin.end();
  }
}
