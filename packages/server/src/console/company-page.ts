import type { CompanyEvent } from "../repositories/companies.js";
import type { CompanyDetail, PricePath } from "./company-detail.js";
import { type Html, html } from "./html.js";
import { badge, num, when } from "./page-layout.js";

export function eventRows(events: readonly CompanyEvent[]): Html[] {
  return events.map(
    (e) => html`<tr><td>${when(e.at)}</td><td>${e.field}</td><td>${JSON.stringify(e.old)}</td>
      <td>${JSON.stringify(e.new)}</td><td>${e.by}</td></tr>`,
  );
}

function settingsForm(view: CompanyDetail): Html {
  const s = view.settings.settings;
  const option = (value: string) =>
    html`<option value="${value}" ${s.exploration === value ? html`selected` : null}>${value}</option>`;
  return html`<section class="panel" id="settings">
    <h2>Settings</h2>
    <form id="settings-form" data-company="${view.company.company_id}">
      <label>Exploration <select name="exploration">${["off", "cautious", "free"].map(option)}</select></label>
      <label><input type="checkbox" name="force_rule" ${s.force_rule ? html`checked` : null}> Kill switch: serve the rule</label>
      <label><input type="checkbox" name="auto_approve_updates" ${s.auto_approve_updates ? html`checked` : null}>
        Approve nightly updates that pass the safety gate</label>
      <label>Price endings <input type="text" name="price_endings" value="${s.price_endings.join(",")}"
        placeholder="none" title="comma-separated, e.g. .99,.49 or 9; empty: any minor unit" size="12"></label>
      <button type="submit">Save…</button>
    </form>
    <p id="settings-status" class="status" role="status"></p>
    <h3>Changes <span class="muted">(${view.settings.total_events}, newest first)</span></h3>
    <table class="grid" id="settings-events">
      <thead><tr><th>When</th><th>Setting</th><th>From</th><th>To</th><th>By</th></tr></thead>
      <tbody>${eventRows(view.settings.events)}</tbody>
    </table>
  </section>`;
}

function runLine(view: CompanyDetail): Html {
  const run = view.run;
  if (run === null)
    return html`<p class="muted">No run yet: the nightly batch or a compute writes the first.</p>`;
  return html`<p id="run-line">Latest run <span class="mono">${run.run_id}</span> (${run.kind}, as of ${run.as_of},
    ${run.start_date} .. ${run.end_date}) served by ${badge(run.source)} <span class="mono">${run.model_id ?? ""}</span>
    · <a href="/api/companies/${encodeURIComponent(view.company.company_id)}/run.csv" download>CSV of the run</a></p>`;
}

function productPicker(view: CompanyDetail): Html {
  return html`<form method="get" id="product-picker">
    <label>Product <select name="product">${view.products.map(
      (p) =>
        html`<option value="${p.product_id}" ${p.product_id === view.product_id ? html`selected` : null}>${p.product_id}${
          p.name === null ? "" : ` · ${p.name}`
        }</option>`,
    )}</select></label>
    <noscript><button type="submit">Show</button></noscript>
  </form>`;
}

/** The product's overrides the chart shows, as stored now (a run computed before one does not apply it yet). */
function overridesTable(path: PricePath): Html {
  if (path.overrides.length === 0)
    return html`<p class="muted" id="overrides-none">No overrides over these dates.</p>`;
  return html`<table class="grid" id="overrides">
    <thead><tr><th>Override</th><th>From</th><th>To</th><th>Pinned price</th><th>Min</th><th>Max</th><th>Note</th>
      <th>In the latest run</th></tr></thead>
    <tbody>${path.overrides.map(
      (
        o,
      ) => html`<tr data-override="${o.override_id}"><td class="mono">${o.override_id}</td><td>${o.start_date}</td>
        <td>${o.end_date}</td><td>${o.price === null ? "" : num(o.price)}</td>
        <td>${o.min_price === null ? "" : num(o.min_price)}</td><td>${o.max_price === null ? "" : num(o.max_price)}</td>
        <td>${o.note ?? ""}</td>
        <td>${path.run.some((d) => d.override_id === o.override_id) ? "yes" : "not yet"}</td></tr>`,
    )}</tbody>
  </table>`;
}

/**
 * `/companies/:id`: one product's price path (its sales, then the latest run beside the rule, the p10-p90 band)
 * and demand curve (drawn by the page's script from `/api/`), the product picker, the run's CSV, and the
 * company's settings with their recorded changes.
 */
export function companyPage(view: CompanyDetail): Html {
  const c = view.company;
  const path = view.price_path;
  return html`<h1>${c.name} <span class="muted mono">${c.company_id}</span></h1>
    <p class="muted">Time zone ${c.timezone}, today ${c.today} ·
      <a href="/companies/${encodeURIComponent(c.company_id)}/model">Model and history</a> ·
      <a href="/companies/${encodeURIComponent(c.company_id)}/backtests">Backtests</a></p>
    ${runLine(view)}
    ${view.products.length === 0 ? html`<p class="muted">No products imported.</p>` : productPicker(view)}
    ${
      path === null
        ? null
        : html`<section class="panel">
      <h2>Price path <span class="muted">${path.product_id}, ${path.currency}, cost ${num(path.unit_cost)}</span></h2>
      <p class="muted">Sales history (actual price and units), then the latest run: recommended price beside the
        rule's, expected units with their p10-p90 band, the lowest price of the 30 days before each day (the
        reference of an announced reduction), and the partner's overrides: pinned prices and narrowed ranges.</p>
      <div id="price-path" class="chart" data-product="${path.product_id}"></div>
      <h3>Overrides</h3>
      ${overridesTable(path)}
    </section>
    <section class="panel">
      <h2>Demand curve <span class="muted">today</span></h2>
      <p class="muted">Expected units and margin against price with the p10-p90 band, the history's mean units at
        each price it sold at, and the observed price range shaded.</p>
      <p id="demand-curve-status" class="status" role="status">Computing the demand curve…</p>
      <div id="demand-curve" class="chart" data-product="${path.product_id}"></div>
    </section>`
    }
    ${settingsForm(view)}`;
}
