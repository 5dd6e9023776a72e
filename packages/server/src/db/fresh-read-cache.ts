import { changeVersionOf, type Db } from "./database.js";

/**
 * Results of small, hot reads (is this partner enabled, is this company mapped, which run is the latest), kept
 * only while the database has not changed at all: any commit, by this process or another, empties it. So a
 * disabled partner or a removed mapping takes effect on the next request, exactly as without the cache. Without a
 * change version (PostgreSQL) every read goes to the database.
 */
export function createFreshReadCache<T>(db: Db, maxEntries = 10_000) {
  const versionOf = changeVersionOf(db);
  let version: string | undefined;
  const entries = new Map<string, T>();
  return {
    async get(key: string, load: () => Promise<T>): Promise<T> {
      if (versionOf === undefined) return load();
      // Read before loading: a change that lands while loading moves the version, so the next call reloads.
      const seen = versionOf();
      if (seen !== version) {
        entries.clear();
        version = seen;
      }
      if (entries.has(key)) return entries.get(key) as T;
      const value = await load();
      if (version === seen) {
        if (entries.size >= maxEntries) entries.clear();
        entries.set(key, value);
      }
      return value;
    },
  };
}
