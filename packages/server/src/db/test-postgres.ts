import pg from "pg";

/** The PostgreSQL the tests use: `PRICING_TEST_PG_URL`, else the local server CI provides. */
export const TEST_PG_URL = process.env.PRICING_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Secrets every PostgreSQL configuration needs (the same on every process); test values, at least 32 characters. */
export const TEST_PG_SECRETS = {
  jwtSecret: "test-jwt-secret-shared-by-every-replica-0001",
  keyPepper: "test-key-pepper-shared-by-every-replica-0001",
} as const;

/**
 * Whether the PostgreSQL tests run. Under CI they always run (a server that is down fails them loudly); on a
 * developer's machine without PostgreSQL they are skipped, so the README's test command works with Node alone.
 */
export async function postgresTestsEnabled(url = TEST_PG_URL): Promise<boolean> {
  if (process.env.CI) return true;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    process.stderr.write(`PostgreSQL at ${new URL(url).host} is not reachable: skipping its tests\n`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh schema on the test server, for one test file; `drop` removes it with everything in it. */
export async function createTestSchema(
  prefix: string,
  url = TEST_PG_URL,
): Promise<{ schema: string; drop(): Promise<void> }> {
  const schema = `${prefix}_${process.pid}_${Date.now()}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create schema "${schema}"`);
  return { schema, drop: () => run(`drop schema if exists "${schema}" cascade`) };
}
