/** The contract between `pnpm bench:http` and its sections (its own, and those of `bench-v2.ts`). */
import type { LoadResult } from "./load-generator.js";

export interface BenchFixture {
  url: string;
  /** The server process (through tsx: its wrapper, whose child runs the server). */
  serverPid?: number | undefined;
  dataDir: string;
  /** One key pair per partner; every partner is mapped to the bench company. */
  keys: { access_key: string; secret_key: string }[];
}

export interface SectionResult extends LoadResult {
  name: string;
  /** CPU microseconds the loaded server spent per request while measured (not while warming up), where known. */
  cpuUsPerRequest?: number | null;
  target: string;
  pass: boolean | null;
}

export interface Section {
  name: string;
  run(fixture: BenchFixture, opts: { duration: number; connections: number }): Promise<SectionResult>;
}
