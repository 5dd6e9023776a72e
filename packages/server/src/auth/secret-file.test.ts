import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadOrCreateSecret } from "./secret-file.js";

const dir = mkdtempSync(join(tmpdir(), "pricing-secret-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("loadOrCreateSecret", () => {
  it("generates the secret once into the data dir with mode 0600 and returns it again after", () => {
    const first = loadOrCreateSecret(dir, "jwt-secret", undefined);
    expect(first.length).toBeGreaterThanOrEqual(43);
    expect(statSync(join(dir, "jwt-secret")).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecret(dir, "jwt-secret", undefined)).toBe(first);
    expect(loadOrCreateSecret(dir, "jwt-secret", "")).toBe(first);
  });

  it("prefers a configured secret and refuses one shorter than 32 characters", () => {
    const configured = "c".repeat(40);
    expect(loadOrCreateSecret(dir, "other", configured)).toBe(configured);
    expect(() => loadOrCreateSecret(dir, "other", "short")).toThrow(/at least 32/);
    expect(() => loadOrCreateSecret(dir, "other", "short")).not.toThrow(/short/);
  });
});
