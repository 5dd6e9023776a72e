/**
 * The HTTP load generator of `pnpm bench:http`: `wrk` (a C program, `apt-get install wrk`) when it is on PATH,
 * autocannon otherwise. On this 2-core machine autocannon (Node) needs about as much CPU as the server it loads, so
 * its figures measure the generator as much as the server; wrk costs a fraction of that.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, writeFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";

export type GeneratorName = "wrk" | "autocannon";

export interface LoadSpec {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** Request bodies, sent in turn (round-robin over all connections). */
  bodies?: readonly string[];
  connections: number;
  seconds: number;
  /** Directory for wrk's Lua script (it may hold request bodies, so a private, temporary one). */
  scratchDir: string;
}

export interface LoadResult {
  requests: number;
  rps: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  /** Responses with a status outside 2xx (wrk: status >= 400; none of our routes redirects). */
  non2xx: number;
  /** Connect, read, write errors and timeouts. */
  errors: number;
}

function onPath(name: string): boolean {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

let chosen: GeneratorName | undefined;

/** `wrk` when it is on PATH (unless PRICING_BENCH_GENERATOR=autocannon), else autocannon. */
export function loadGenerator(): GeneratorName {
  if (chosen === undefined) {
    const forced = process.env.PRICING_BENCH_GENERATOR;
    chosen = forced === "autocannon" ? "autocannon" : onPath("wrk") ? "wrk" : "autocannon";
  }
  return chosen;
}

/** A warm-up of `warmupSeconds` (JIT, page cache, keep-alive connections), then the measured run. */
export async function runLoad(spec: LoadSpec, warmupSeconds = 2): Promise<LoadResult> {
  if (warmupSeconds > 0) await runOnce({ ...spec, seconds: warmupSeconds });
  return runOnce(spec);
}

function runOnce(spec: LoadSpec): Promise<LoadResult> {
  return loadGenerator() === "wrk" ? runWrk(spec) : runAutocannon(spec);
}

function runAutocannon(spec: LoadSpec): Promise<LoadResult> {
  let next = 0;
  const bodies = spec.bodies;
  const options: autocannon.Options = {
    url: spec.url,
    method: spec.method ?? "GET",
    headers: spec.headers ?? {},
    connections: spec.connections,
    duration: spec.seconds,
    ...(bodies && bodies.length > 0
      ? { requests: [{ setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }) }] }
      : {}),
  };
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => {
      if (error) return reject(error);
      resolve({
        requests: result.requests.total,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
      });
    });
  });
}

/** Lua long string: safe for any content that does not contain the closing bracket sequence. */
function luaString(text: string): string {
  let level = 0;
  while (text.includes(`]${"=".repeat(level)}]`)) level++;
  const eq = "=".repeat(level);
  return `[${eq}[${text}]${eq}]`;
}

/**
 * The wrk script: a fixed request, or requests built up front and rotated when there are bodies; `done()` prints
 * one line of totals as JSON (wrk's latencies are microseconds).
 */
function wrkScript(spec: LoadSpec): string {
  const url = new URL(spec.url);
  const target = `${url.pathname}${url.search}`;
  const headers = Object.entries(spec.headers ?? {})
    .map(([k, v]) => `[ ${luaString(k)} ] = ${luaString(v)}`)
    .join(", ");
  const bodies = spec.bodies ?? [];
  const lines = [
    `local method = ${luaString(spec.method ?? "GET")}`,
    `local target = ${luaString(target)}`,
    `local headers = { ${headers} }`,
    `local bodies = { ${bodies.map(luaString).join(", ")} }`,
    "wrk.method = method",
    "wrk.path = target",
    "for k, v in pairs(headers) do wrk.headers[k] = v end",
  ];
  if (bodies.length > 0) {
    // Defining request() makes wrk ask Lua for every request, so only when bodies rotate. The requests are built in
    // init(), once wrk has set the Host header.
    lines.push(
      "local prepared = {}",
      "init = function(args)",
      "  for i, body in ipairs(bodies) do prepared[i] = wrk.format(method, target, nil, body) end",
      "end",
      "local n = 0",
      "request = function()",
      "  n = n + 1",
      "  return prepared[(n - 1) % #prepared + 1]",
      "end",
    );
  }
  lines.push(
    "done = function(summary, latency, requests)",
    "  local e = summary.errors",
    '  io.write(string.format(\'WRK_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,' +
      '"status":%d,"errors":%d}\\n\',',
    "    summary.requests, summary.duration, math.floor(latency:percentile(50)),",
    "    math.floor(latency:percentile(99)), e.status, e.connect + e.read + e.write + e.timeout))",
    "end",
  );
  return `${lines.join("\n")}\n`;
}

let scripts = 0;

function runWrk(spec: LoadSpec): Promise<LoadResult> {
  const script = path.join(spec.scratchDir, `wrk-${process.pid}-${scripts++}.lua`);
  writeFileSync(script, wrkScript(spec), { mode: 0o600 });
  const url = new URL(spec.url);
  // One wrk thread: the server under test needs the other core of this machine.
  const args = [
    "-t1",
    `-c${spec.connections}`,
    `-d${spec.seconds}s`,
    "--timeout",
    "10s",
    "-s",
    script,
    `${url.origin}/`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("WRK_RESULT "));
      if (code !== 0 || !line) {
        reject(new Error(`wrk exited with ${code}: ${err.trim() || out.trim()}`));
        return;
      }
      const r = JSON.parse(line.slice("WRK_RESULT ".length)) as {
        requests: number;
        duration_us: number;
        p50_us: number;
        p99_us: number;
        status: number;
        errors: number;
      };
      resolve({
        requests: r.requests,
        rps: r.requests / (r.duration_us / 1e6),
        p50: r.p50_us / 1000,
        p99: r.p99_us / 1000,
        non2xx: r.status,
        errors: r.errors,
      });
    });
  });
}
