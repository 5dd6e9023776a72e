// The operator console's script (plain JavaScript, no build step): draws each page's charts with uPlot from the
// page's data (`#page-data`, the view its /api/ twin answers) and the demand curve from /api/, and sends the
// page's changes to /api/ after the operator confirms them, showing what the server answered. After a change the
// page's <main> is fetched again, so what it shows is always the server's own rendering.
/* global uPlot */

/** The charts drawn on this page, by name: tests read their data back (`window.consoleCharts.pricePath.data`). */
const charts = {};
window.consoleCharts = charts;

const COLORS = {
  sold: "#3b4252",
  recommended: "#1a7f5a",
  rule: "#c46a00",
  units: "#8a94a6",
  expected: "#2f6fd0",
  band: "rgba(47, 111, 208, 0.16)",
  bandEdge: "rgba(47, 111, 208, 0.35)",
  margin: "#8e44ad",
  observed: "#3b4252",
  observedRange: "rgba(26, 127, 90, 0.08)",
  today: "rgba(59, 66, 82, 0.45)",
  lowest: "#b03a48",
  pin: "#d4a017",
  range: "rgba(212, 160, 23, 0.7)",
  rangeFill: "rgba(212, 160, 23, 0.12)",
};

function pageData() {
  const block = document.getElementById("page-data");
  return block === null ? null : JSON.parse(block.textContent);
}

/** Seconds since the epoch at the start of a `YYYY-MM-DD` (UTC), uPlot's time axis. */
function dayOf(date) {
  return Date.parse(`${date}T00:00:00Z`) / 1000;
}

function status(id, text, kind) {
  const element = document.getElementById(id);
  if (element === null) return;
  element.textContent = text;
  element.dataset.kind = kind ?? "info";
}

function widthOf(element) {
  return Math.max(320, Math.floor(element.getBoundingClientRect().width));
}

/** A vertical line at `x` (in the x scale's values) across the plot, drawn under the series. */
function verticalLine(u, x, color) {
  if (x === null || x === undefined) return;
  const left = u.valToPos(x, "x", true);
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = color;
  ctx.setLineDash([4, 4]);
  ctx.beginPath();
  ctx.moveTo(left, u.bbox.top);
  ctx.lineTo(left, u.bbox.top + u.bbox.height);
  ctx.stroke();
  ctx.restore();
}

/** One uPlot series over the x values `xs`: `value` of the row at each x, null (a gap) where there is none. */
function columnOf(xs, rows, value) {
  return xs.map((x) => {
    const row = rows.get(x);
    return row === undefined ? null : value(row);
  });
}

/** Every `YYYY-MM-DD` from `from` to `to`, both included. */
function daysBetween(from, to) {
  const days = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/**
 * The price path: sold prices and units, then the run's recommended and rule prices with the units band, and where
 * they exist the run's 30-day lowest price and the product's overrides (a pin's price, a narrowing's bounds) from
 * the first day shown to the run's last day (or today), and the days the run priced by a pin. Series without a value are left out, not drawn empty.
 */
function drawPricePath(element, path, today) {
  const shown = [...path.history.map((h) => h.date), ...path.run.map((r) => r.date)].sort();
  const first = shown[0] ?? today;
  const last = [shown[shown.length - 1] ?? today, today].sort()[1];
  const overrideOf = new Map();
  for (const o of path.overrides) {
    // ISO dates compare as text: the later start and the earlier end.
    const from = [o.start_date, first].sort()[1];
    const to = [o.end_date, last].sort()[0];
    if (from <= to) for (const day of daysBetween(from, to)) overrideOf.set(day, o);
  }
  const dates = [...new Set([...shown, ...overrideOf.keys()])].sort();
  const sold = new Map(path.history.map((h) => [h.date, h]));
  const run = new Map(path.run.map((r) => [r.date, r]));
  const column = (days, value) => columnOf(dates, days, value);
  const data = [
    dates.map(dayOf),
    column(sold, (h) => h.price),
    column(run, (r) => r.price),
    column(run, (r) => r.rule_price),
    column(sold, (h) => h.units_sold),
    column(run, (r) => r.expected_units),
    column(run, (r) => r.expected_units_p10),
    column(run, (r) => r.expected_units_p90),
  ];
  const series = [
    {},
    { label: "Price sold at", scale: "price", stroke: COLORS.sold, width: 1.5 },
    { label: "Recommended", scale: "price", stroke: COLORS.recommended, width: 2.5 },
    { label: "Rule", scale: "price", stroke: COLORS.rule, width: 1.5, dash: [6, 4] },
    {
      label: "Units sold",
      scale: "units",
      stroke: COLORS.units,
      width: 0,
      paths: () => null,
      points: { show: true, size: 4, fill: COLORS.units },
    },
    { label: "Expected units", scale: "units", stroke: COLORS.expected, width: 1.5 },
    { label: "Units p10", scale: "units", stroke: COLORS.bandEdge, width: 1 },
    { label: "Units p90", scale: "units", stroke: COLORS.bandEdge, width: 1 },
  ];
  const bands = [{ series: [7, 6], fill: COLORS.band }];
  /** Adds a series where some day has a value; returns its index, or null. */
  const optional = (values, options) => {
    if (values.every((v) => v === null)) return null;
    data.push(values);
    series.push(options);
    return series.length - 1;
  };
  optional(
    column(run, (r) => r.lowest_price_30d),
    {
      label: "Lowest price, 30 days before",
      scale: "price",
      stroke: COLORS.lowest,
      width: 2,
      dash: [3, 3],
    },
  );
  // A day the run priced by a pin shows it even after its override was removed; stored pins show before a run.
  optional(
    dates.map((date) =>
      run.get(date)?.source === "override" ? run.get(date).price : (overrideOf.get(date)?.price ?? null),
    ),
    {
      label: "Override: pinned price",
      scale: "price",
      stroke: COLORS.pin,
      width: 0,
      paths: () => null,
      points: { show: true, size: 8, fill: COLORS.pin },
    },
  );
  const rangeMax = optional(
    column(overrideOf, (o) => o.max_price),
    { label: "Override: max price", scale: "price", stroke: COLORS.range, width: 2.5 },
  );
  const rangeMin = optional(
    column(overrideOf, (o) => o.min_price),
    { label: "Override: min price", scale: "price", stroke: COLORS.range, width: 2.5 },
  );
  if (rangeMax !== null && rangeMin !== null)
    bands.push({ series: [rangeMax, rangeMin], fill: COLORS.rangeFill });
  const firstRunDay = path.run.length > 0 ? dayOf(path.run[0].date) : null;
  const options = {
    width: widthOf(element),
    height: 340,
    scales: {
      x: { time: true },
      price: { auto: true },
      units: { auto: true, range: (_u, _min, max) => [0, max * 1.1 || 1] },
    },
    series,
    bands,
    axes: [
      {},
      { scale: "price", label: `Price (${path.currency})` },
      { scale: "units", side: 1, label: "Units per day", grid: { show: false } },
    ],
    hooks: { drawClear: [(u) => verticalLine(u, firstRunDay, COLORS.today)] },
  };
  charts.pricePath = new uPlot(options, data, element);
  element.dataset.drawn = "true";
}

async function drawDemandCurve(element, companyId, productId, todayPrice) {
  const url = `/api/companies/${encodeURIComponent(companyId)}/products/${encodeURIComponent(productId)}/demand-curve`;
  const response = await fetch(url, { headers: { accept: "application/json" } });
  const curve = await response.json().catch(() => null);
  if (!response.ok) {
    status(
      "demand-curve-status",
      `No demand curve: ${curve?.error?.message ?? response.statusText}`,
      "error",
    );
    return;
  }
  if (curve.points.length === 0) {
    status(
      "demand-curve-status",
      "No demand curve: the product has no sales history the model could fit.",
      "info",
    );
    return;
  }
  const prices = [
    ...new Set([...curve.points.map((p) => p.price), ...curve.observed.map((o) => o.price)]),
  ].sort((a, b) => a - b);
  const points = new Map(curve.points.map((p) => [p.price, p]));
  const observed = new Map(curve.observed.map((o) => [o.price, o]));
  const column = (rows, value) => columnOf(prices, rows, value);
  const data = [
    prices,
    column(points, (p) => p.expected_units),
    column(points, (p) => p.expected_units_p10),
    column(points, (p) => p.expected_units_p90),
    column(points, (p) => p.expected_margin),
    column(observed, (o) => o.mean_units),
  ];
  const range = curve.observed_price_range;
  const options = {
    width: widthOf(element),
    height: 340,
    scales: {
      x: { time: false },
      units: { auto: true, range: (_u, _min, max) => [0, max * 1.1 || 1] },
      margin: { auto: true },
    },
    series: [
      { label: "Price", value: (_u, v) => (v === null ? "-" : v.toFixed(2)) },
      { label: "Expected units", scale: "units", stroke: COLORS.expected, width: 2, spanGaps: true },
      { label: "Units p10", scale: "units", stroke: COLORS.bandEdge, width: 1, spanGaps: true },
      { label: "Units p90", scale: "units", stroke: COLORS.bandEdge, width: 1, spanGaps: true },
      { label: "Expected margin", scale: "margin", stroke: COLORS.margin, width: 2, spanGaps: true },
      {
        label: "Observed mean units",
        scale: "units",
        stroke: COLORS.observed,
        width: 0,
        paths: () => null,
        points: { show: true, size: 7, fill: COLORS.observed },
      },
    ],
    bands: [{ series: [3, 2], fill: COLORS.band }],
    axes: [
      { label: "Price", values: (_u, ticks) => ticks.map((t) => t.toFixed(2)) },
      { scale: "units", label: "Units per day" },
      { scale: "margin", side: 1, label: "Margin per day", grid: { show: false } },
    ],
    hooks: {
      drawClear: [
        (u) => {
          if (range !== null) {
            const left = u.valToPos(range[0], "x", true);
            const right = u.valToPos(range[1], "x", true);
            u.ctx.fillStyle = COLORS.observedRange;
            u.ctx.fillRect(left, u.bbox.top, Math.max(2, right - left), u.bbox.height);
          }
          verticalLine(u, todayPrice, COLORS.today);
        },
      ],
    },
  };
  charts.demandCurve = new uPlot(options, data, element);
  charts.demandCurveData = curve;
  const elasticity = curve.elasticity === null ? "-" : curve.elasticity.toFixed(2);
  const se = curve.elasticity_se === null ? "-" : curve.elasticity_se.toFixed(2);
  status(
    "demand-curve-status",
    `Elasticity ${elasticity} ± ${se}; shaded: the prices the history sold at${
      todayPrice === null ? "" : `; dashed: today's recommended price ${todayPrice.toFixed(2)}`
    }.`,
    "info",
  );
  element.dataset.drawn = "true";
}

/** POSTs JSON to the console's /api/ and returns the status and the parsed answer. */
async function send(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => null);
  return { ok: response.ok, status: response.status, body: answer };
}

function refusal(answer) {
  const error = answer.body?.error;
  return error === undefined
    ? `Refused (${answer.status}).`
    : `Refused: ${answer.status} ${error.code}. ${error.message}`;
}

/** Fetches this page again and swaps its <main> in, then draws and wires it as on load. */
async function refreshMain() {
  const response = await fetch(location.href, { headers: { accept: "text/html" } });
  if (!response.ok) return;
  const fresh = new DOMParser().parseFromString(await response.text(), "text/html").querySelector("main");
  const current = document.querySelector("main");
  if (fresh === null || current === null) return;
  for (const name of Object.keys(charts)) {
    charts[name]?.destroy?.();
    delete charts[name];
  }
  current.replaceWith(document.adoptNode(fresh));
  start();
}

function wireSettings(data) {
  const form = document.getElementById("settings-form");
  if (form === null) return;
  const company = form.dataset.company;
  const before = data.settings.settings;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const now = {
      exploration: form.elements.exploration.value,
      force_rule: form.elements.force_rule.checked,
      auto_approve_updates: form.elements.auto_approve_updates.checked,
      price_endings: form.elements.price_endings.value
        .split(",")
        .map((e) => e.trim())
        .filter((e) => e !== ""),
    };
    // JSON compares the endings' lists by value.
    const change = Object.fromEntries(
      Object.entries(now).filter(([field, value]) => JSON.stringify(value) !== JSON.stringify(before[field])),
    );
    const fields = Object.keys(change);
    if (fields.length === 0) {
      status("settings-status", "Nothing to change.", "info");
      return;
    }
    const lines = fields.map((f) => `${f}: ${JSON.stringify(before[f])} → ${JSON.stringify(change[f])}`);
    if (
      !confirm(
        `Change the settings of ${company}?\n\n${lines.join("\n")}\n\nThe next compute or nightly run uses them.`,
      )
    ) {
      status("settings-status", "Not changed.", "info");
      return;
    }
    const answer = await send(`/api/companies/${encodeURIComponent(company)}/settings`, change);
    if (!answer.ok) {
      status("settings-status", refusal(answer), "error");
      return;
    }
    await refreshMain();
    const events = answer.body.events;
    status(
      "settings-status",
      events.length === 0
        ? "Nothing changed: the settings were already so."
        : `Saved ${events.map((e) => `${e.field} ${JSON.stringify(e.old)} → ${JSON.stringify(e.new)}`).join(", ")}, recorded as ${events[0].by}.`,
      "ok",
    );
  });
}

function wireModel(data) {
  const company = data.report.company_id;
  for (const button of document.querySelectorAll("button[data-action]")) {
    button.addEventListener("click", async () => {
      const action = button.dataset.action;
      const model = button.dataset.model;
      const approved = data.report.approved?.model_id ?? null;
      const question =
        action === "promote"
          ? `Promote ${model} to approved for ${company}? It serves from the next compute or nightly run.`
          : `Approve ${model} again for ${company}, in place of ${approved ?? "nothing"}?`;
      if (!confirm(question)) return;
      const body =
        action === "promote"
          ? { model_id: model }
          : { model_id: model, expected_approved_model_id: approved };
      button.disabled = true;
      const answer = await send(`/api/companies/${encodeURIComponent(company)}/model/${action}`, body);
      if (answer.ok) {
        await refreshMain();
        status(
          "model-status",
          `${action === "promote" ? "Promoted" : "Approved again"} ${model}: ${answer.body.source} serves (${answer.body.model_id ?? "rule"}).`,
          "ok",
        );
        return;
      }
      if (answer.status === 409) {
        // Someone changed the slots since this page was drawn: show them as they are now, with why it was refused.
        await refreshMain();
        status(
          "model-status",
          `${refusal(answer)} This page was out of date; it now shows the slots as they are.`,
          "error",
        );
        return;
      }
      button.disabled = false;
      status("model-status", refusal(answer), "error");
    });
  }
}

function wireBacktest() {
  const form = document.getElementById("backtest-form");
  if (form === null) return;
  const company = form.dataset.company;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { from: form.elements.from.value, refit: form.elements.refit.value };
    if (form.elements.to.value !== "") body.to = form.elements.to.value;
    if (
      !confirm(
        `Backtest ${company} from ${body.from}${body.to ? ` to ${body.to}` : ""} (refit ${body.refit}) and save it?`,
      )
    ) {
      return;
    }
    status("backtest-status", "Running the backtest in a worker thread…", "info");
    const answer = await send(`/api/companies/${encodeURIComponent(company)}/backtests`, body);
    if (!answer.ok) {
      status("backtest-status", refusal(answer), "error");
      return;
    }
    await refreshMain();
    const s = answer.body.summary;
    status(
      "backtest-status",
      `Saved ${answer.body.backtest_id} (${s.rows} rows, WAPE ${s.wape?.toFixed(3) ?? "-"}), recorded as ${answer.body.by}.`,
      "ok",
    );
  });
}

function startCompany(data) {
  const picker = document.getElementById("product-picker");
  picker?.elements.product?.addEventListener("change", () => picker.submit());
  const path = data.price_path;
  const pathElement = document.getElementById("price-path");
  if (path !== null && pathElement !== null) drawPricePath(pathElement, path, data.company.today);
  const curveElement = document.getElementById("demand-curve");
  if (path !== null && curveElement !== null) {
    const today = path.run.find((r) => r.date === data.company.today);
    drawDemandCurve(curveElement, data.company.company_id, path.product_id, today?.price ?? null).catch(
      (error) => status("demand-curve-status", `No demand curve: ${error.message}`, "error"),
    );
  }
  wireSettings(data);
}

function start() {
  const data = pageData();
  const page = document.body.dataset.page;
  if (page === "company") startCompany(data);
  if (page === "model") wireModel(data);
  if (page === "backtests") wireBacktest();
  document.body.dataset.ready = "true";
}

window.addEventListener("resize", () => {
  for (const [name, chart] of Object.entries(charts)) {
    if (typeof chart?.setSize !== "function") continue;
    const element = document.getElementById(name === "pricePath" ? "price-path" : "demand-curve");
    if (element !== null) chart.setSize({ width: widthOf(element), height: chart.height });
  }
});

start();
