import type { CompanySummaryView } from "./companies-overview.js";
import { type Html, html } from "./html.js";
import { badge, num, when } from "./page-layout.js";

function sourceCell(c: CompanySummaryView): Html {
  return html`${badge(c.source)}${c.fallback_reason === null ? null : html` <span class="muted">${c.fallback_reason}</span>`}`;
}

function nightlyCell(c: CompanySummaryView): Html {
  const n = c.last_nightly;
  if (n === null) return html`<span class="muted">never run</span>`;
  return html`${badge(n.status)} <span title="${n.batch_id}">${n.as_of}</span>
    <span class="muted">${when(n.finished_at)}</span>${n.error === null ? null : html`<div class="error-text">${n.error}</div>`}`;
}

/** `/`: every company, which source serves it and why, its settings and its last nightly outcome. */
export function companiesPage(view: { companies: CompanySummaryView[] }): Html {
  const rows = view.companies.map(
    (c) => html`<tr data-company="${c.company_id}">
      <td><a href="/companies/${encodeURIComponent(c.company_id)}">${c.company_id}</a><div class="muted">${c.name}</div></td>
      <td class="num">${num(c.products, 0)}</td>
      <td>${sourceCell(c)}<div class="muted mono">${c.model_id ?? ""}</div></td>
      <td>${nightlyCell(c)}</td>
      <td>${c.exploration}</td>
      <td>${c.force_rule ? badge("on", "danger") : badge("off", "quiet")}</td>
      <td>${c.auto_approve_updates ? "yes" : "no"}</td>
      <td><a href="/companies/${encodeURIComponent(c.company_id)}/model">model</a></td>
    </tr>`,
  );
  return html`<h1>Companies</h1>
    ${
      view.companies.length === 0
        ? html`<p class="muted">No companies yet: <code>pricing company create</code>, then import data.</p>`
        : html`<table class="grid" id="companies">
      <thead><tr><th>Company</th><th class="num">Products</th><th>Serving</th><th>Last nightly run</th>
        <th>Exploration</th><th>Kill switch</th><th>Auto-approve updates</th><th></th></tr></thead>
      <tbody>${rows}</tbody>
    </table>`
    }`;
}
