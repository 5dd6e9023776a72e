import type { RecordedBatch } from "../repositories/batch-outcomes.js";
import { type Html, html } from "./html.js";
import { badge, when } from "./page-layout.js";

export interface BatchesView {
  schedule: string;
  batches: RecordedBatch[];
}

/** `/batches`: the newest nightly batches and each company's outcome in them. */
export function batchesPage(view: BatchesView): Html {
  const batches = view.batches.map(
    (b) => html`<section class="batch" data-batch="${b.batch_id}">
      <h2><span class="mono">${b.batch_id}</span> <span class="muted">${b.trigger}, ${when(b.started_at)} .. ${when(b.finished_at)}</span></h2>
      <table class="grid">
        <thead><tr><th>Company</th><th>Day</th><th>Outcome</th><th>Run</th><th>Error</th></tr></thead>
        <tbody>${b.outcomes.map(
          (o) => html`<tr>
            <td><a href="/companies/${encodeURIComponent(o.company_id)}">${o.company_id}</a></td>
            <td>${o.as_of}</td><td>${badge(o.status)}</td>
            <td class="mono">${o.run_id ?? "-"}</td><td class="error-text">${o.error ?? ""}</td>
          </tr>`,
        )}</tbody>
      </table>
    </section>`,
  );
  return html`<h1>Nightly batches</h1>
    <p class="muted">Schedule <code>${view.schedule}</code> (UTC); each company prices its own today.</p>
    ${view.batches.length === 0 ? html`<p class="muted">No batch has run yet.</p>` : batches}`;
}
