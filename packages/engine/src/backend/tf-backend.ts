import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import * as tf from "@tensorflow/tfjs";

export type TfBackendName = "tensorflow" | "wasm" | "cpu";

export interface TfBackendInfo {
  readonly name: TfBackendName;
  /** Why a faster backend was not used, for the benchmark's header line. */
  readonly note: string;
}

let chosen: Promise<TfBackendInfo> | null = null;

// The specifier lives in a variable so that TypeScript does not try to resolve a package that is usually absent.
const TFJS_NODE = "@tensorflow/tfjs-node";

async function tryNative(): Promise<boolean> {
  try {
    await import(TFJS_NODE);
    return await tf.setBackend("tensorflow");
  } catch {
    return false;
  }
}

function wasmDistDir(): string {
  const require = createRequire(import.meta.url);
  // The package's main file sits in dist/, next to the .wasm binaries.
  const main = require.resolve("@tensorflow/tfjs-backend-wasm");
  return `${pathToFileURL(path.dirname(main)).href}/`;
}

async function tryWasm(): Promise<boolean> {
  try {
    const wasm = await import("@tensorflow/tfjs-backend-wasm");
    const dir = wasmDistDir();
    // In Node the loader reads the file itself; a plain path works where a file: URL may not.
    const onDisk = dir.startsWith("file:") ? `${new URL(dir).pathname}` : dir;
    wasm.setWasmPaths(onDisk);
    return await tf.setBackend("wasm");
  } catch {
    return false;
  }
}

async function choose(): Promise<TfBackendInfo> {
  if (await tryNative()) return { name: "tensorflow", note: "tfjs-node" };
  if (await tryWasm()) {
    await tf.ready();
    return { name: "wasm", note: "tfjs-node not importable" };
  }
  await tf.setBackend("cpu");
  await tf.ready();
  return { name: "cpu", note: "tfjs-node and wasm unavailable" };
}

/**
 * Picks the fastest tfjs backend available, once per thread: tfjs-node when importable, else WebAssembly, else the
 * pure-JS CPU backend. Every tensor code path of the engine awaits this first.
 */
export function initTfBackend(): Promise<TfBackendInfo> {
  if (chosen === null) chosen = choose();
  return chosen;
}

/** Live tensors in this thread: a leak check for tests and benchmarks. */
export function tensorCount(): number {
  return tf.memory().numTensors;
}

export { tf };
