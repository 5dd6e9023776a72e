import { assertCompanyId } from "./company-id.js";

/**
 * Object keys of the policy store. Company ids are arbitrary strings (1..200 chars), so they are encoded
 * reversibly into one key segment: `[A-Za-z0-9_-]` pass through, every other UTF-8 byte becomes `~XX`.
 */
const PASS = /[A-Za-z0-9_-]/;

export function encodeCompany(companyId: string): string {
  assertCompanyId(companyId);
  let out = "";
  for (const ch of companyId) {
    if (PASS.test(ch)) out += ch;
    else
      for (const byte of Buffer.from(ch, "utf8"))
        out += `~${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export function decodeCompany(segment: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < segment.length; ) {
    if (segment[i] === "~") {
      bytes.push(Number.parseInt(segment.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(segment.charCodeAt(i));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

export const COMPANIES_PREFIX = "companies/";
const VERSION_DIGITS = 10;

export function companyKeys(companyId: string) {
  const base = `${COMPANIES_PREFIX}${encodeCompany(companyId)}`;
  return {
    slots: `${base}/slots.json`,
    versionsPrefix: `${base}/versions/`,
    version: (v: number) => `${base}/versions/${String(v).padStart(VERSION_DIGITS, "0")}.json`,
    artifactsPrefix: `${base}/artifacts/`,
    manifest: (modelId: string) => `${base}/artifacts/${modelId}/manifest.json`,
    weights: (modelId: string) => `${base}/artifacts/${modelId}/weights.bin`,
    record: (modelId: string) => `${base}/artifacts/${modelId}/record.json`,
  };
}
export type CompanyKeys = ReturnType<typeof companyKeys>;

/** The version number in a version-claim key, or null when the key is not one. */
export function versionOfKey(key: string): number | null {
  const match = /\/versions\/(\d+)\.json$/.exec(key);
  return match?.[1] === undefined ? null : Number(match[1]);
}
