import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** Path of a script in this folder. */
export function supportScript(name: string): string {
  return fileURLToPath(new URL(name, import.meta.url));
}

/** Starts `node --import tsx <script> ...args` with piped stdio: closing its stdin is a start signal. */
export function spawnTsx(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ["--import", tsxLoader, script, ...args], { stdio: "pipe" });
}

/** Collects a child's output and waits for it to exit. */
export function finished(
  child: ChildProcess,
): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Resolves once the child has printed `line` as a whole line on stdout. */
export function printed(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.split("\n").includes(line)) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.on("exit", () => reject(new Error(`child exited before printing ${line}`)));
  });
}
