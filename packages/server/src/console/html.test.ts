import { describe, expect, it } from "vitest";
import { html, jsonBlock } from "./html.js";

describe("console markup", () => {
  it("escapes every interpolated text, in element text and attributes", () => {
    const name = `<script>alert("x")</script>' onload='x`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x</p>',
    );
  });

  it("nests markup, joins lists and drops empty values", () => {
    const items = ["a<", "b"].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}${null}${false}${undefined}</ul>`.text).toBe("<ul><li>a&lt;</li><li>b</li></ul>");
  });

  it("keeps page data inert: no value closes its script element", () => {
    const block = jsonBlock("page-data", { name: "</script><script>alert(1)</script>" }).text;
    expect(block.match(/<\/script>/g)).toHaveLength(1);
    const json = block.slice(block.indexOf(">") + 1, block.lastIndexOf("</script>"));
    expect(JSON.parse(json)).toEqual({ name: "</script><script>alert(1)</script>" });
  });
});
