import type { ActiveSource, PolicyResolver } from "@pricing/policy-store";

/**
 * The source each company was last priced with, kept up to date by every resolution (nightly runs, computes,
 * model reports, promotions) and training commit, so a scrape costs a walk over a map and no storage read. A
 * scrape-time resolution would re-verify (and on a cache miss rebuild) each company's artifact: on a
 * 1,000-company operator that is far too much work every 15 s. Companies not resolved since start count by their
 * committed slots, read once on the first scrape.
 */
export interface ActiveSources {
  set(companyId: string, source: ActiveSource): void;
  /** The resolver, reporting each resolution's source here. */
  watch<T>(resolver: PolicyResolver<T>): PolicyResolver<T>;
  counts(): Promise<Record<ActiveSource, number>>;
}

export function createActiveSources(
  committedSources: () => Promise<Map<string, ActiveSource>>,
): ActiveSources {
  const byCompany = new Map<string, ActiveSource>();
  let seeded: Promise<void> | undefined;
  const seed = () => {
    seeded ??= committedSources().then(
      (committed) => {
        // A resolution seen meanwhile is newer than what the slots said when read.
        for (const [companyId, source] of committed)
          if (!byCompany.has(companyId)) byCompany.set(companyId, source);
      },
      (error: unknown) => {
        seeded = undefined;
        throw error;
      },
    );
    return seeded;
  };
  const sources: ActiveSources = {
    set(companyId, source) {
      byCompany.set(companyId, source);
    },
    watch(resolver) {
      return {
        async resolve(companyId) {
          const resolution = await resolver.resolve(companyId);
          sources.set(companyId, resolution.active.source);
          return resolution;
        },
        close: () => resolver.close(),
      };
    },
    async counts() {
      await seed();
      const counts: Record<ActiveSource, number> = { approved: 0, latest: 0, rule: 0 };
      for (const source of byCompany.values()) counts[source] += 1;
      return counts;
    },
  };
  return sources;
}
