import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";
import { createTestSchema, postgresTestsEnabled, TEST_PG_SECRETS, TEST_PG_URL } from "./db/test-postgres.js";
import { type RunningWorker, startWorker } from "./process-roles.js";

const enabled = await postgresTestsEnabled();

describe.runIf(enabled)("the worker role", () => {
  const lines: string[] = [];
  let dataDir: string;
  let schema: Awaited<ReturnType<typeof createTestSchema>>;
  let jobSchema: Awaited<ReturnType<typeof createTestSchema>>;
  let worker: RunningWorker | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-worker-role-"));
    schema = await createTestSchema("pricing_worker_role");
    jobSchema = await createTestSchema("pricing_worker_role_jobs");
    const config = loadConfig(
      {},
      {
        dataDir,
        databaseUrl: TEST_PG_URL,
        ...TEST_PG_SECRETS,
        logLevel: "info",
        pricing: { jobSchema: jobSchema.schema, workerConcurrency: 1 },
      },
    );
    worker = await startWorker(config, {
      pgSchema: schema.schema,
      logStream: { write: (line: string) => void lines.push(line) },
    });
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await schema?.drop();
    await jobSchema?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("logs through the API's redaction: a job's log line never prints a secret it was handed", () => {
    const secret = "sk_live_worker-secret-0123456789";
    const token = "eyJ.worker-token.sig";
    worker?.ctx.logger.warn(
      {
        secret_key: secret,
        access_token: token,
        partner: { secret_key: secret, access_token: token },
        company_id: "co-1",
      },
      "a job logged what it was handed",
    );
    const line = lines.find((l) => l.includes("a job logged what it was handed"));
    expect(line).toBeDefined();
    expect(line).not.toContain(secret);
    expect(line).not.toContain(token);
    expect(JSON.parse(line ?? "{}")).toMatchObject({
      secret_key: "[redacted]",
      access_token: "[redacted]",
      partner: { secret_key: "[redacted]", access_token: "[redacted]" },
      company_id: "co-1",
    });
  });
});
