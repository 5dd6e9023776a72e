/** Markup that is already safe: the result of `html`, never text from a request or the database. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/**
 * A template of markup: every interpolated value is escaped (element text and quoted attributes alike) unless it is
 * `Html` itself; arrays are joined; null, undefined and false render nothing.
 */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let text = strings[0] ?? "";
  values.forEach((value, i) => {
    text += render(value) + (strings[i + 1] ?? "");
  });
  return new Html(text);
}

/**
 * Data for the page's script, as an inert `application/json` block: `<` is escaped so that no value can close the
 * script element, whatever text it holds.
 */
export function jsonBlock(id: string, data: unknown): Html {
  const json = JSON.stringify(data)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
  return new Html(`<script type="application/json" id="${escapeHtml(id)}">${json}</script>`);
}
