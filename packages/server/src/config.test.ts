import { describe, expect, it } from "vitest";
import { loadConfig, overrideConfig } from "./config.js";

function collectWarnings() {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => warnings.push(message) };
}

describe("loadConfig", () => {
  it("reads the environment, with explicit overrides on top", () => {
    const config = loadConfig(
      {
        PRICING_DATA_DIR: "/tmp/pricing-a",
        PRICING_PORT: "9090",
        PUBLIC_API_CORS_ORIGINS: " https://a.example.com ,https://b.example.com,",
        PRICING_RATE_LIMITS: '{"tokenPerKey":{"max":5,"windowMs":1000}}',
        PRICING_TRUST_PROXY: "true",
        PRICING_RUNS_KEEP: "7",
        PRICING_TRAIN_SECONDS: "2.5",
      },
      { port: 0, pricing: { runDays: 14 } },
    );
    expect(config.dataDir).toBe("/tmp/pricing-a");
    expect(config.port).toBe(0);
    expect(config.corsOrigins).toEqual(["https://a.example.com", "https://b.example.com"]);
    expect(config.rateLimits.tokenPerKey).toEqual({ max: 5, windowMs: 1000 });
    expect(config.rateLimits.dataPerPartner).toEqual({ max: 600, windowMs: 60_000 });
    expect(config.trustProxy).toBe(true);
    expect(config.pricing).toMatchObject({ runsKeep: 7, trainSeconds: 2.5, runDays: 14 });
  });

  it("defaults to CORS off, loopback, port 8080, ./data, a 02:00 UTC batch and artifacts under the data dir", () => {
    const config = loadConfig({});
    expect(config.corsOrigins).toEqual([]);
    expect(config.host).toBe("127.0.0.1");
    expect(config.port).toBe(8080);
    expect(config.dataDir).toMatch(/\/data$/);
    expect(config.pricing).toMatchObject({ batchCron: "0 2 * * *", runsKeep: 60, trainSeconds: 60 });
    expect(loadConfig({}, { dataDir: "/tmp/pricing-b" }).pricing.artifactsDir).toBe(
      "/tmp/pricing-b/artifacts",
    );
  });

  it("counts an empty variable as unset", () => {
    const config = loadConfig({ PRICING_PORT: "", PRICING_HOST: " ", PRICING_RUNS_KEEP: "" });
    expect(config.port).toBe(8080);
    expect(config.host).toBe("127.0.0.1");
    expect(config.pricing.runsKeep).toBe(60);
  });

  it("puts a command's defaults under the environment, and its flags over it", () => {
    const demo = loadConfig({}, {}, { command: "demo" });
    expect(demo.logLevel).toBe("warn");
    expect(demo.pricing.trainSeconds).toBe(3);
    expect(loadConfig({}, {}, { command: "serve" }).pricing.trainSeconds).toBe(60);
    const env = { PRICING_LOG_LEVEL: "debug", PRICING_TRAIN_SECONDS: "1", PRICING_PORT: "9090" };
    const configured = loadConfig(env, {}, { command: "demo", flags: { "--port": "0" } });
    expect(configured).toMatchObject({ logLevel: "debug", port: 0, pricing: { trainSeconds: 1 } });
  });

  it("names the bad setting and where it came from", () => {
    expect(() => loadConfig({ PUBLIC_API_CORS_ORIGINS: "*" })).toThrow(
      /corsOrigins \(PUBLIC_API_CORS_ORIGINS\): must list exact origins, never '\*'/,
    );
    expect(() => loadConfig({ PRICING_PORT: "http" })).toThrow(/port \(PRICING_PORT, --port\)/);
    expect(() => loadConfig({}, {}, { flags: { "--port": "70000" } })).toThrow(
      /port \(PRICING_PORT, --port\)/,
    );
    expect(() => loadConfig({ PRICING_RATE_LIMITS: "{oops" })).toThrow(
      /rateLimits \(PRICING_RATE_LIMITS\): must be JSON/,
    );
    expect(() => loadConfig({ PRICING_RATE_LIMITS: '{"tokenPerKey":{"max":0,"windowMs":1}}' })).toThrow(
      /rateLimits\.tokenPerKey\.max \(PRICING_RATE_LIMITS\)/,
    );
    expect(() => loadConfig({ PRICING_RUNS_KEEP: "many" })).toThrow(
      /pricing\.runsKeep \(PRICING_RUNS_KEEP\)/,
    );
    expect(() => loadConfig({ PRICING_RUNS_KEEP: "0" })).toThrow(/pricing\.runsKeep \(PRICING_RUNS_KEEP\)/);
  });
});

describe("deprecated variable names", () => {
  it("keeps the metrics port off unless set, and apart from the public port", () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ PRICING_METRICS_PORT: "9464" }).metricsPort).toBe(9464);
    expect(loadConfig({}, {}, { flags: { "--metrics-port": "0" } }).metricsPort).toBe(0);
    expect(() => loadConfig({ PRICING_PORT: "9464", PRICING_METRICS_PORT: "9464" })).toThrow(
      /metricsPort \(PRICING_METRICS_PORT, --metrics-port\): must differ from port/,
    );
  });

  it("keeps the console off unless set (on 8081 in the demo), on loopback, apart from the other ports", () => {
    expect(loadConfig({}).consolePort).toBeUndefined();
    expect(loadConfig({}, {}, { command: "demo" })).toMatchObject({
      consolePort: 8081,
      consoleHost: "127.0.0.1",
    });
    expect(loadConfig({ PRICING_CONSOLE_PORT: "9000" }, {}, { command: "demo" }).consolePort).toBe(9000);
    expect(() => loadConfig({ PRICING_CONSOLE_PORT: "8080" })).toThrow(
      /consolePort.*never served on the public port/,
    );
    expect(() => loadConfig({ PRICING_CONSOLE_PORT: "9464", PRICING_METRICS_PORT: "9464" })).toThrow(
      /consolePort/,
    );
    expect(loadConfig({ PRICING_CONSOLE_PORT: "0", PRICING_PORT: "0" }).consolePort).toBe(0);
  });

  it("refuses a console beyond loopback without a token, and a short token", () => {
    const beyond = { PRICING_CONSOLE_PORT: "8081", PRICING_CONSOLE_HOST: "0.0.0.0" };
    expect(() => loadConfig(beyond)).toThrow(
      /consoleToken \(PRICING_CONSOLE_TOKEN\).*set PRICING_CONSOLE_TOKEN/,
    );
    expect(() => loadConfig({ ...beyond, PRICING_CONSOLE_HOST: "console.example.com" })).toThrow(
      /PRICING_CONSOLE_TOKEN/,
    );
    const token = "a-console-token-of-at-least-32-characters";
    expect(loadConfig({ ...beyond, PRICING_CONSOLE_TOKEN: token }).consoleToken).toBe(token);
    expect(() => loadConfig({ ...beyond, PRICING_CONSOLE_TOKEN: "short" })).toThrow(/at least 32 characters/);
    for (const host of ["127.0.0.1", "127.0.0.2", "::1", "localhost"]) {
      expect(loadConfig({ ...beyond, PRICING_CONSOLE_HOST: host }).consoleHost).toBe(host);
    }
    // A console that is off needs nothing, wherever its host would be.
    expect(loadConfig({ PRICING_CONSOLE_HOST: "0.0.0.0" }).consoleToken).toBeUndefined();
  });

  it("reads the console's host names as a list of names without ports", () => {
    expect(
      loadConfig({ PRICING_CONSOLE_HOSTNAMES: "console.example.com, ops.example.com" }).consoleHostnames,
    ).toEqual(["console.example.com", "ops.example.com"]);
    expect(() => loadConfig({ PRICING_CONSOLE_HOSTNAMES: "console.example.com:8443" })).toThrow(
      /without a port/,
    );
  });

  it("reads the old name when it alone is set, warning once with its replacement", () => {
    const { warnings, warn } = collectWarnings();
    const config = loadConfig({ PRICING_NIGHTLY_CRON: "30 1 * * *" }, {}, { warn });
    expect(config.pricing.batchCron).toBe("30 1 * * *");
    expect(warnings).toEqual([
      "PRICING_NIGHTLY_CRON is deprecated and will stop working in the next release: rename it to PRICING_BATCH_CRON",
    ]);
  });

  it("lets the current name win when both are set, and says so", () => {
    const { warnings, warn } = collectWarnings();
    const env = { PRICING_NIGHTLY_CRON: "30 1 * * *", PRICING_BATCH_CRON: "0 3 * * *" };
    expect(loadConfig(env, {}, { warn }).pricing.batchCron).toBe("0 3 * * *");
    expect(warnings).toEqual([
      "PRICING_NIGHTLY_CRON is deprecated and ignored because PRICING_BATCH_CRON is also set: remove PRICING_NIGHTLY_CRON",
    ]);
  });

  it("stays silent when only the current name is set", () => {
    const { warnings, warn } = collectWarnings();
    expect(loadConfig({ PRICING_BATCH_CRON: "0 3 * * *" }, {}, { warn }).pricing.batchCron).toBe("0 3 * * *");
    expect(warnings).toEqual([]);
  });
});

describe("overrideConfig", () => {
  const config = loadConfig({ PRICING_RUNS_KEEP: "7" }, { dataDir: "/tmp/pricing-c" });

  it("puts overrides on a loaded config and keeps the rest", () => {
    const overridden = overrideConfig(config, { pricing: { trainSeconds: 1.5 } });
    expect(overridden.pricing).toMatchObject({
      runsKeep: 7,
      trainSeconds: 1.5,
      artifactsDir: "/tmp/pricing-c/artifacts",
    });
    expect(overridden.dataDir).toBe("/tmp/pricing-c");
  });

  it("validates the overrides with the same schema", () => {
    expect(() => overrideConfig(config, { pricing: { runsKeep: 0 } })).toThrow(/pricing\.runsKeep/);
  });
});

describe("secrets with PostgreSQL", () => {
  const url = "postgres://db.example/pricing";
  const secret = "a-shared-secret-of-at-least-32-characters";

  it("refuses a PostgreSQL URL without both shared secrets, naming what is missing", () => {
    expect(() => loadConfig({ PRICING_DATABASE_URL: url })).toThrow(
      "invalid configuration: jwtSecret (PRICING_JWT_SECRET): PostgreSQL (PRICING_DATABASE_URL) needs the same secrets on every process: set PRICING_JWT_SECRET and PRICING_KEY_PEPPER",
    );
    expect(() => loadConfig({ PRICING_DATABASE_URL: url, PRICING_JWT_SECRET: secret })).toThrow(
      /keyPepper \(PRICING_KEY_PEPPER\): .* set PRICING_KEY_PEPPER$/,
    );
    expect(() =>
      loadConfig({ PRICING_DATABASE_URL: url, PRICING_KEY_PEPPER: secret, PRICING_JWT_SECRET: " " }),
    ).toThrow(/set PRICING_JWT_SECRET$/);
  });

  it("accepts PostgreSQL with both, and SQLite without either (the data dir's secret files)", () => {
    expect(
      loadConfig({ PRICING_DATABASE_URL: url, PRICING_JWT_SECRET: secret, PRICING_KEY_PEPPER: secret })
        .databaseUrl,
    ).toBe(url);
    expect(loadConfig({}).jwtSecret).toBeUndefined();
  });
});
