import { type Html, html, jsonBlock } from "./html.js";
import type { AssetUrls } from "./static-assets.js";

/** Which page a document is: the script draws and wires by it (`<body data-page>`). */
export type PageName = "companies" | "company" | "model" | "backtests" | "batches" | "login" | "error";

export interface PageInput {
  name: PageName;
  title: string;
  /** The signed-in operator; null on the login and error pages before login. */
  operator: string | null;
  body: Html;
  /** What the page's script reads (`#page-data`): the same view its `/api/` twin answers. */
  data?: unknown;
}

/** `2026-03-10T02:00:12.345Z` as `2026-03-10 02:00 UTC`. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "-";
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A number with at most `digits` decimals, or `-`. */
export function num(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  return value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** A small coloured label (`badge badge-<kind>`). */
export function badge(text: string, kind: string = text): Html {
  return html`<span class="badge badge-${kind}">${text}</span>`;
}

/**
 * A whole console document: the charting library and the console's script and style sheet from its own port
 * (the Content-Security-Policy allows nothing else: no inline script or style, no other origin), a navigation bar
 * with the operator and a logout button, the page's markup and its data. The data sits inside `<main>`, so a page
 * the script re-renders after a change brings its data along.
 */
export function renderPage(assets: AssetUrls, page: PageInput): string {
  const nav =
    page.operator === null
      ? html``
      : html`<nav>
          <a class="brand" href="/">Pricing console</a>
          <a href="/">Companies</a>
          <a href="/batches">Batches</a>
          <span class="spacer"></span>
          <span class="operator" title="recorded as console:${page.operator}">${page.operator}</span>
          <form method="post" action="/logout"><button type="submit" class="link">Log out</button></form>
        </nav>`;
  const doc = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · Pricing console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets["/assets/uplot.css"] ?? ""}">
<link rel="stylesheet" href="${assets["/assets/console.css"] ?? ""}">
<script defer src="${assets["/assets/uplot.js"] ?? ""}"></script>
<script type="module" src="${assets["/assets/console.js"] ?? ""}"></script>
</head>
<body data-page="${page.name}">
<header>${nav}</header>
<main>
${page.body}
${page.data === undefined ? null : jsonBlock("page-data", page.data)}
</main>
</body>
</html>
`;
  return doc.text;
}
