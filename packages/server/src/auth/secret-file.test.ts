import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadOrCreateSecrets } from "./secret-file.js";

const dir = mkdtempSync(join(tmpdir(), "pricing-secret-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("loadOrCreateSecrets", () => {
  it("generates the secret once into the data dir with mode 0600 and returns it again after", () => {
    const [first = ""] = loadOrCreateSecrets(dir, "jwt-secret", undefined);
    expect(first.length).toBeGreaterThanOrEqual(43);
    expect(statSync(join(dir, "jwt-secret")).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecrets(dir, "jwt-secret", undefined)).toEqual([first]);
    expect(loadOrCreateSecrets(dir, "jwt-secret", "")).toEqual([first]);
  });

  it("prefers a configured secret and refuses one shorter than 32 characters", () => {
    const configured = "c".repeat(40);
    expect(loadOrCreateSecrets(dir, "other", configured)).toEqual([configured]);
    expect(loadOrCreateSecrets(dir, "other", `${"d".repeat(40)}, ${configured}`)).toEqual([
      "d".repeat(40),
      configured,
    ]);
    expect(() => loadOrCreateSecrets(dir, "other", `${configured},short`)).toThrow(/at least 32/);
    expect(() => loadOrCreateSecrets(dir, "other", `${configured},short`)).not.toThrow(/,short/);
  });
});
