import { DEPRECATED_METRIC_NAMES, type ModelHistory, type ModelReport } from "@pricing/http-adapter";
import { type Html, html } from "./html.js";
import { badge, num, when } from "./page-layout.js";

export interface ModelOverview {
  report: ModelReport;
  history: ModelHistory;
}

type Metrics = NonNullable<ModelReport["latest"]>["metrics"];

function metricsList(metrics: Metrics): Html {
  const deprecated = new Set<string>(Object.keys(DEPRECATED_METRIC_NAMES));
  const shown = Object.entries(metrics).filter(([k, v]) => typeof v === "number" && !deprecated.has(k));
  const interval = metrics.upliftIntervalPct;
  return html`<dl class="metrics">${shown.map(([k, v]) => html`<dt>${k}</dt><dd>${num(v as number)}</dd>`)}${
    interval ? html`<dt>upliftIntervalPct</dt><dd>${num(interval.low)} .. ${num(interval.high)}</dd>` : null
  }</dl>`;
}

function slots(view: ModelOverview): Html {
  const { latest, approved } = view.report;
  const promotable = latest !== null && latest.model_id !== approved?.model_id;
  return html`<div class="slots">
    <section class="panel" id="slot-latest">
      <h2>Latest</h2>
      ${
        latest === null
          ? html`<p class="muted">Nothing trained yet.</p>`
          : html`<p class="mono">${latest.model_id}</p><p>version ${latest.version}, trained ${when(latest.trained_at)}</p>
            ${metricsList(latest.metrics)}
            ${
              promotable
                ? html`<button type="button" class="action" data-action="promote" data-model="${latest.model_id}">Promote to approved…</button>`
                : html`<p class="muted">This is the approved model.</p>`
            }`
      }
    </section>
    <section class="panel" id="slot-approved">
      <h2>Approved</h2>
      ${
        approved === null
          ? html`<p class="muted">Nothing approved.</p>`
          : html`<p class="mono">${approved.model_id}</p><p>version ${approved.version}, approved ${when(approved.approved_at)}</p>
            ${metricsList(approved.metrics)}`
      }
    </section>
  </div>`;
}

function artifacts(view: ModelOverview): Html {
  const approvedId = view.report.approved?.model_id ?? null;
  return html`<table class="grid" id="artifacts">
    <thead><tr><th>Model</th><th>Version</th><th>Trained</th><th>Approved</th><th>Uplift %</th><th></th></tr></thead>
    <tbody>${view.history.artifacts.map(
      (a) => html`<tr data-model="${a.model_id}">
        <td class="mono">${a.model_id}</td><td class="num">${a.version}</td><td>${when(a.trained_at)}</td>
        <td>${a.approved_from === null ? "-" : `${when(a.approved_from)} .. ${a.approved_until === null ? "now" : when(a.approved_until)}`}</td>
        <td class="num">${num(a.metrics.upliftPct)}</td>
        <td>${
          a.approved_from !== null && a.model_id !== approvedId
            ? html`<button type="button" class="action" data-action="rollback" data-model="${a.model_id}">Approve again…</button>`
            : null
        }</td>
      </tr>`,
    )}</tbody>
  </table>`;
}

function exploration(report: ModelReport): Html | null {
  const e = report.exploration;
  if (e === undefined) return null;
  return html`<section class="panel">
    <h2>Today's prices against the history <span class="muted">exploration ${e.exploration}, ${e.as_of}</span></h2>
    <table class="grid"><thead><tr><th>Product</th><th>Observed range</th><th class="num">Price</th>
      <th class="num">Beyond range %</th><th>Exploratory</th></tr></thead>
    <tbody>${e.products.map(
      (p) => html`<tr><td>${p.product_id}</td>
        <td>${p.observed_price_range === null ? "-" : `${num(p.observed_price_range[0])} .. ${num(p.observed_price_range[1])}`}</td>
        <td class="num">${num(p.recommended_price)}</td><td class="num">${num(p.departure_pct)}</td>
        <td>${p.exploratory ? "yes" : "no"}</td></tr>`,
    )}</tbody></table>
  </section>`;
}

/**
 * `/companies/:id/model`: what serves and why, both slots with their metrics, the stored artifacts (approve one
 * again) and the slot history (who and when), with promote and rollback through the API's services: the buttons
 * send the ids this page shows, so a page left open while someone else changed the slots gets the API's 409.
 */
export function modelPage(view: ModelOverview): Html {
  const r = view.report;
  return html`<h1>Model <span class="muted mono">${r.company_id}</span></h1>
    <p><a href="/companies/${encodeURIComponent(r.company_id)}">Prices and settings</a> ·
      <a href="/companies/${encodeURIComponent(r.company_id)}/backtests">Backtests</a></p>
    <p id="serving">Serving: ${badge(r.source)} <span class="mono">${r.model_id ?? ""}</span>${
      r.fallback_reason === null ? null : html` · fallback: <strong>${r.fallback_reason}</strong>`
    }</p>
    <p id="model-status" class="status" role="status"></p>
    ${slots(view)}
    <section class="panel">
      <h2>Artifacts <span class="muted">(${view.history.total_artifacts}, newest first)</span></h2>
      ${artifacts(view)}
    </section>
    <section class="panel">
      <h2>History <span class="muted">(${view.history.total_events}, newest first)</span></h2>
      <table class="grid" id="model-events">
        <thead><tr><th>When</th><th>What</th><th>Model</th><th>By</th></tr></thead>
        <tbody>${view.history.events.map(
          (e) =>
            html`<tr><td>${when(e.at)}</td><td>${e.kind}</td><td class="mono">${e.model_id}</td><td>${e.by ?? "-"}</td></tr>`,
        )}</tbody>
      </table>
    </section>
    ${exploration(r)}`;
}
