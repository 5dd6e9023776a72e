import { ApiError } from "@pricing/http-adapter";
import type { ActiveSource, PolicyResolution, PolicyResolver } from "@pricing/policy-store";
import { describe, expect, it } from "vitest";
import { createServerMetrics } from "./server-metrics.js";

function metricsWith(committed: Record<string, ActiveSource> = {}) {
  let reads = 0;
  const metrics = createServerMetrics({
    trainingsRunning: () => 0,
    committedSources: async () => {
      reads += 1;
      return new Map(Object.entries(committed));
    },
  });
  return { metrics, reads: () => reads };
}

/** The samples of family `name` by sample name and labels (a histogram's values name their `_bucket`, ...). */
async function values(metrics: ReturnType<typeof createServerMetrics>, name: string) {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  const samples = (metric?.values ?? []) as { metricName?: string; labels: object; value: number }[];
  return Object.fromEntries(
    samples.map((v) => [`${v.metricName ?? name}${JSON.stringify(v.labels)}`, v.value]),
  );
}

/** A resolver that answers `source` for every company. */
function fixedResolver(source: ActiveSource): PolicyResolver<null> {
  return {
    resolve: async (companyId) =>
      ({
        active:
          source === "rule"
            ? { source, modelId: null, policy: null }
            : { source, modelId: "mdl_1", policy: null },
        report: { company_id: companyId },
      }) as PolicyResolution<null>,
    close: () => {},
  };
}

describe("the server's metrics", () => {
  it("keep one registry per context, so two servers in one process do not collide", async () => {
    const a = metricsWith().metrics;
    const b = metricsWith().metrics;
    a.tokenExchange("issued");
    expect(await values(a, "pricing_token_exchanges_total")).toMatchObject({
      'pricing_token_exchanges_total{"outcome":"issued"}': 1,
    });
    expect(await values(b, "pricing_token_exchanges_total")).toMatchObject({
      'pricing_token_exchanges_total{"outcome":"issued"}': 0,
    });
  });

  it("classify trainings: succeeded, conflict, insufficient history, aborted, failed", async () => {
    const { metrics } = metricsWith();
    await metrics.training(async (claimed) => claimed(new AbortController().signal));
    const refused = metrics.training(async () => {
      throw new ApiError("training_in_progress");
    });
    await expect(refused).rejects.toThrow();
    await expect(
      metrics.training(async (claimed) => {
        claimed(new AbortController().signal);
        throw new ApiError("insufficient_history");
      }),
    ).rejects.toThrow();
    const controller = new AbortController();
    await expect(
      metrics.training(async (claimed) => {
        claimed(controller.signal);
        controller.abort(new ApiError("unavailable"));
        throw controller.signal.reason;
      }),
    ).rejects.toThrow();
    await expect(
      metrics.training(async (claimed) => {
        claimed(new AbortController().signal);
        throw new Error("disk full");
      }),
    ).rejects.toThrow();
    expect(await values(metrics, "pricing_trainings_total")).toEqual({
      'pricing_trainings_total{"outcome":"succeeded"}': 1,
      'pricing_trainings_total{"outcome":"conflict"}': 1,
      'pricing_trainings_total{"outcome":"insufficient_history"}': 1,
      'pricing_trainings_total{"outcome":"aborted"}': 1,
      'pricing_trainings_total{"outcome":"failed"}': 1,
    });
    // The refused one never held the slot: four durations, none for the conflict.
    const durations = await values(metrics, "pricing_training_duration_seconds");
    const counts = Object.entries(durations).filter(([key]) => key.includes("_count"));
    expect(counts.map(([key]) => key).sort()).toEqual([
      'pricing_training_duration_seconds_count{"outcome":"aborted"}',
      'pricing_training_duration_seconds_count{"outcome":"failed"}',
      'pricing_training_duration_seconds_count{"outcome":"insufficient_history"}',
      'pricing_training_duration_seconds_count{"outcome":"succeeded"}',
    ]);
  });

  it("count companies by source: committed slots first, then each resolution and commit", async () => {
    const { metrics, reads } = metricsWith({ a: "rule", b: "latest", c: "approved" });
    const resolver = metrics.sources.watch(fixedResolver("approved"));
    // Resolved before the first scrape: the resolution wins over the slots read afterwards.
    await resolver.resolve("a");
    expect(await values(metrics, "pricing_active_source_companies")).toEqual({
      'pricing_active_source_companies{"source":"approved"}': 2,
      'pricing_active_source_companies{"source":"latest"}': 1,
      'pricing_active_source_companies{"source":"rule"}': 0,
    });
    metrics.sources.set("c", "latest");
    await metrics.sources.watch(fixedResolver("rule")).resolve("d");
    expect(await values(metrics, "pricing_active_source_companies")).toEqual({
      'pricing_active_source_companies{"source":"approved"}': 1,
      'pricing_active_source_companies{"source":"latest"}': 2,
      'pricing_active_source_companies{"source":"rule"}': 1,
    });
    expect(reads()).toBe(1);
  });

  it("time a nightly batch and count its companies by outcome", async () => {
    const { metrics } = metricsWith();
    const batch = metrics.batchStarted();
    expect(await values(metrics, "pricing_batch_in_progress")).toEqual({ "pricing_batch_in_progress{}": 1 });
    batch.company("created");
    batch.company("failed");
    batch.finished();
    expect(await values(metrics, "pricing_batch_in_progress")).toEqual({ "pricing_batch_in_progress{}": 0 });
    expect(await values(metrics, "pricing_batch_companies_total")).toEqual({
      'pricing_batch_companies_total{"outcome":"created"}': 1,
      'pricing_batch_companies_total{"outcome":"exists"}': 0,
      'pricing_batch_companies_total{"outcome":"failed"}': 1,
    });
    const durations = await values(metrics, "pricing_batch_duration_seconds");
    expect(durations["pricing_batch_duration_seconds_count{}"]).toBe(1);
  });
});
