import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Issue 25 item 7: every relative link and anchor in the README, docs/ and the packages' READMEs points at a file
// that exists and, with a `#fragment`, at a heading of that file. No network: absolute URLs are not followed.

const ROOT = process.cwd();
const SKIP = new Set(["node_modules", "dist", "data", ".git", ".venv", "coverage"]);

function markdownFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...markdownFiles(path));
    else if (entry.name.endsWith(".md")) found.push(path);
  }
  return found;
}

/** Markdown without its fenced code blocks and inline code, where `](...)` is text, not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, "");
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = (match[1] ?? "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Every relative link target of a file, with its line for the report. */
function relativeLinks(markdown: string): string[] {
  const links: string[] = [];
  for (const match of prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] ?? "";
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    links.push(target);
  }
  return links;
}

function brokenLinks(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const broken: string[] = [];
  for (const target of relativeLinks(text)) {
    const [path = "", fragment] = target.split("#", 2);
    const resolved = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(resolved)) {
      broken.push(`${target} (no such file)`);
      continue;
    }
    if (fragment === undefined || fragment === "") continue;
    if (statSync(resolved).isDirectory() || !resolved.endsWith(".md")) continue;
    if (!headingAnchors(readFileSync(resolved, "utf8")).has(fragment))
      broken.push(`${target} (no such heading)`);
  }
  return broken.map((b) => `${relative(ROOT, file)}: ${b}`);
}

describe("the docs' relative links", () => {
  const files = markdownFiles(ROOT);

  it("finds the README, docs/ and the packages' READMEs", () => {
    const names = files.map((f) => relative(ROOT, f));
    expect(names).toContain("README.md");
    expect(names.filter((n) => n.startsWith("docs/")).length).toBeGreaterThanOrEqual(5);
    expect(names).toContain("packages/engine/README.md");
  });

  it("point at files and headings that exist", () => {
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it("are checked: a missing file and a missing heading are reported", () => {
    const anchors = headingAnchors(
      "# A title\n## Running on several machines\n## Limits (a partner's)\n## A title\n",
    );
    expect([...anchors]).toEqual([
      "a-title",
      "running-on-several-machines",
      "limits-a-partners",
      "a-title-1",
    ]);
    expect(relativeLinks("see [x](docs/none.md#y), `[code](no.md)` and [web](https://example.com)")).toEqual([
      "docs/none.md#y",
    ]);
  });

  it("keeps the README a guide of at most ~200 lines", () => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(210);
  });
});
