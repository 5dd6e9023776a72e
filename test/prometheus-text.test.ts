import { describe, expect, it } from "vitest";
import { parsePrometheusText } from "./prometheus-text.js";

const HISTOGRAM = `# HELP h_seconds Durations.
# TYPE h_seconds histogram
h_seconds_bucket{le="0.5",route="/a",status="200"} 1
h_seconds_bucket{le="1",route="/a",status="200"} 2
h_seconds_bucket{le="+Inf",route="/a",status="200"} 3
h_seconds_sum{route="/a",status="200"} 4.5
h_seconds_count{route="/a",status="200"} 3
h_seconds_bucket{le="0.5",route="/b",status="404"} 0
h_seconds_bucket{le="1",route="/b",status="404"} 0
h_seconds_bucket{le="+Inf",route="/b",status="404"} 1
h_seconds_sum{route="/b",status="404"} 2
h_seconds_count{route="/b",status="404"} 1
`;

describe("the strict Prometheus text reader of the tests", () => {
  it("reads counters, gauges with escaped labels, and every series of a labelled histogram", () => {
    const scrape = parsePrometheusText(
      `# HELP c_total A counter.\n# TYPE c_total counter\nc_total{outcome="a\\"b\\\\c\\nd"} 2\nc_total{outcome="x"} 0 1700000000000\n` +
        `# a comment\n\n# TYPE g gauge\ng -1.5e3\n${HISTOGRAM}`,
    );
    expect(scrape.family("c_total")).toMatchObject({ type: "counter", help: "A counter." });
    expect(scrape.value("c_total", { outcome: 'a"b\\c\nd' })).toBe(2);
    expect(scrape.value("c_total", { outcome: "x" })).toBe(0);
    expect(scrape.value("g")).toBe(-1500);
    expect(scrape.histogram("h_seconds")).toEqual([
      {
        labels: { route: "/a", status: "200" },
        buckets: [
          [0.5, 1],
          [1, 2],
          [Infinity, 3],
        ],
        sum: 4.5,
        count: 3,
      },
      {
        labels: { route: "/b", status: "404" },
        buckets: [
          [0.5, 0],
          [1, 0],
          [Infinity, 1],
        ],
        sum: 2,
        count: 1,
      },
    ]);
    expect(scrape.histogram("h_seconds", { status: "404" })).toHaveLength(1);
    expect(() => scrape.value("c_total")).toThrow(/2 samples/);
    expect(() => scrape.family("missing")).toThrow(/no metric family/);
  });

  it.each([
    ["a sample of no declared family", "x 1\n", /no declared family/],
    ["a malformed value", "# TYPE x gauge\nx one\n", /not a number/],
    ["an unterminated label value", '# TYPE x gauge\nx{a="b} 1\n', /unterminated/],
    ["a bad escape", '# TYPE x gauge\nx{a="\\t"} 1\n', /bad escape/],
    ["an unknown type", "# TYPE x meter\n", /unknown type/],
    ["a duplicate series", '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n', /duplicate series/],
    ["a suffix the type does not have", "# TYPE x counter\nx_sum 1\n", /no declared family/],
    [
      "a +Inf bucket that is not the count",
      HISTOGRAM.replace(
        'h_seconds_count{route="/a",status="200"} 3',
        'h_seconds_count{route="/a",status="200"} 4',
      ),
      /is not the count/,
    ],
    [
      "buckets that are not cumulative",
      HISTOGRAM.replace('le="1",route="/a",status="200"} 2', 'le="1",route="/a",status="200"} 0'),
      /not cumulative/,
    ],
    [
      "a histogram without +Inf",
      HISTOGRAM.replace(/^h_seconds_bucket\{le="\+Inf",route="\/b".*\n/m, ""),
      /no \+Inf bucket/,
    ],
  ])("refuses %s", (_what, text, error) => {
    expect(() => parsePrometheusText(text)).toThrow(error);
  });
});
