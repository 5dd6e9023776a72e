import type { BacktestsView } from "./backtests-overview.js";
import { type Html, html } from "./html.js";
import { num, when } from "./page-layout.js";

const pct = (x: number | null) => (x === null ? "-" : `${num(x * 100, 1)} %`);
const ratio = (x: number | null) => num(x, 3);

/**
 * `/companies/:id/backtests`: the saved backtests (DESIGN §9: WAPE against the seasonal-naive baseline, bias, the
 * p10-p90 coverage, per product), and a form that runs one and saves it, as `pricing backtest --save` does.
 */
export function backtestsPage(view: BacktestsView): Html {
  const company = view.company_id;
  const rows = view.backtests.map(
    (b) => html`<tr data-backtest="${b.backtest_id}">
      <td>${when(b.created_at)}</td><td>${b.by}</td><td>${b.from} .. ${b.to}</td><td>${b.refit}</td>
      <td class="num">${num(b.summary.rows, 0)}</td><td class="num">${ratio(b.summary.wape)}</td>
      <td class="num">${ratio(b.summary.baseline_wape)}</td><td class="num">${pct(b.summary.bias)}</td>
      <td class="num">${pct(b.summary.coverage_p10_p90)}</td>
    </tr>`,
  );
  const newest = view.backtests[0];
  return html`<h1>Backtests <span class="muted mono">${company}</span></h1>
    <p><a href="/companies/${encodeURIComponent(company)}">Prices and settings</a> ·
      <a href="/companies/${encodeURIComponent(company)}/model">Model and history</a></p>
    <section class="panel">
      <h2>Run and save a backtest</h2>
      <p class="muted">Every sale from the first day on, predicted at its actual price with the band the API serves,
        fitted on the sales before each day (daily) or before the first day (once). It runs in a worker thread.</p>
      <form id="backtest-form" data-company="${company}">
        <label>From <input type="date" name="from" required></label>
        <label>To <input type="date" name="to"></label>
        <label>Refit <select name="refit"><option value="daily">daily</option><option value="once">once</option></select></label>
        <button type="submit">Run and save…</button>
      </form>
      <p id="backtest-status" class="status" role="status"></p>
    </section>
    <section class="panel">
      <h2>Saved <span class="muted">(${view.total}, newest first)</span></h2>
      <table class="grid" id="backtests">
        <thead><tr><th>When</th><th>By</th><th>Days</th><th>Refit</th><th class="num">Rows</th><th class="num">WAPE</th>
          <th class="num">Naive WAPE</th><th class="num">Bias</th><th class="num">p10-p90 coverage</th></tr></thead>
        <tbody>${rows}</tbody>
      </table>
    </section>
    ${
      newest === undefined
        ? null
        : html`<section class="panel">
      <h2>Per product <span class="muted">the newest, ${newest.from} .. ${newest.to}</span></h2>
      <table class="grid"><thead><tr><th>Product</th><th class="num">Rows</th><th class="num">WAPE</th>
        <th class="num">Naive WAPE</th><th class="num">Bias</th><th class="num">Coverage</th><th class="num">Elasticity (se)</th></tr></thead>
      <tbody>${newest.products.map(
        (
          p,
        ) => html`<tr><td>${p.product_id}</td><td class="num">${num(p.rows, 0)}</td><td class="num">${ratio(p.wape)}</td>
          <td class="num">${ratio(p.baseline_wape)}</td><td class="num">${pct(p.bias)}</td>
          <td class="num">${pct(p.coverage_p10_p90)}</td><td class="num">${ratio(p.elasticity)} (${ratio(p.elasticity_se)})</td></tr>`,
      )}</tbody></table>
    </section>`
    }`;
}
