import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("reads the environment, with explicit overrides on top", () => {
    const config = loadConfig(
      {
        PRICING_DATA_DIR: "/tmp/pricing-a",
        PRICING_PORT: "9090",
        PUBLIC_API_CORS_ORIGINS: " https://a.example.com ,https://b.example.com,",
        PRICING_RATE_LIMITS: '{"tokenPerKey":{"max":5,"windowMs":1000}}',
        PRICING_TRUST_PROXY: "true",
      },
      { port: 0 },
    );
    expect(config.dataDir).toBe("/tmp/pricing-a");
    expect(config.port).toBe(0);
    expect(config.corsOrigins).toEqual(["https://a.example.com", "https://b.example.com"]);
    expect(config.rateLimits.tokenPerKey).toEqual({ max: 5, windowMs: 1000 });
    expect(config.rateLimits.dataPerPartner).toEqual({ max: 600, windowMs: 60_000 });
    expect(config.trustProxy).toBe(true);
  });

  it("defaults to CORS off, loopback, port 8080 and ./data", () => {
    const config = loadConfig({});
    expect(config.corsOrigins).toEqual([]);
    expect(config.host).toBe("127.0.0.1");
    expect(config.port).toBe(8080);
    expect(config.dataDir).toMatch(/\/data$/);
  });

  it("names the bad setting", () => {
    expect(() => loadConfig({ PUBLIC_API_CORS_ORIGINS: "*" })).toThrow(/corsOrigins: .*never '\*'/);
    expect(() => loadConfig({ PRICING_PORT: "http" })).toThrow(/port/);
    expect(() => loadConfig({ PRICING_RATE_LIMITS: "{oops" })).toThrow(/PRICING_RATE_LIMITS must be JSON/);
    expect(() => loadConfig({ PRICING_RATE_LIMITS: '{"tokenPerKey":{"max":0,"windowMs":1}}' })).toThrow(
      /rateLimits\.tokenPerKey\.max/,
    );
  });
});
