import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh folder under the OS temp dir, and a function that removes it. */
export function makeTempDir(label: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `policy-store-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
