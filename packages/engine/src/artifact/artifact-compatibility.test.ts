import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EngineError } from "../base/engine-error.js";
import { ENGINE_VERSION, loadPolicyArtifact } from "./policy-artifact.js";
import { SUPPORTED_FORMAT_VERSIONS } from "./policy-manifest.js";

/** Bytes written by earlier engines (see fixtures/README.md): an upgrade must keep reading them. */
const fixture = (path: string) => readFileSync(new URL(`fixtures/${path}`, import.meta.url));
const oldWeights = () => new Uint8Array(fixture("engine-0.1.0/weights.bin"));
const json = (path: string): unknown => JSON.parse(fixture(path).toString("utf8"));

describe("artifacts across engine versions", () => {
  it("loads an artifact written by engine 0.1.0 and prices as that engine did", async () => {
    const manifest = json("engine-0.1.0/manifest.json") as { engineVersion: string; formatVersion: number };
    expect(manifest.engineVersion).not.toBe(ENGINE_VERSION);
    expect(manifest.formatVersion).toBeGreaterThanOrEqual(SUPPORTED_FORMAT_VERSIONS.min);
    const expected = json("engine-0.1.0/expected.json") as {
      probe: { product: number[]; day: number[]; stock: (number | null)[]; prevPrice: (number | null)[] };
      priceIndexes: number[];
    };
    const policy = await loadPolicyArtifact({ manifest, weights: oldWeights() });
    try {
      const { probe } = expected;
      const indexes = policy.priceStates({
        product: Int32Array.from(probe.product),
        day: Int32Array.from(probe.day),
        stock: Float64Array.from(probe.stock, (s) => s ?? Number.POSITIVE_INFINITY),
        prevPrice: Float64Array.from(probe.prevPrice, (p) => p ?? Number.NaN),
      });
      expect(Array.from(indexes)).toEqual(expected.priceIndexes);
      expect(policy.data.training.estimatedValue).toBeTypeOf("number");
    } finally {
      policy.dispose();
    }
  });

  it("refuses a format outside the supported range as incompatible, not invalid", async () => {
    const error = await loadPolicyArtifact({
      manifest: json("format-3/manifest.json"),
      weights: oldWeights(),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe("artifact_incompatible");
    expect((error as Error).message).toMatch(/format 3; engine .* reads formats 1 to 2/);
  });
});
