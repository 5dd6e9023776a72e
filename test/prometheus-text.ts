/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for tests that scrape `/metrics`. The
 * published parsers we tried merge the series of a labelled histogram into one; this one keeps every series and
 * throws on anything the format does not allow: a sample of an undeclared family, a malformed line, a duplicate
 * series, a histogram whose buckets are not cumulative or whose `+Inf` bucket is not its count.
 */

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped";
export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  /** The sample's own name: the family's, or with `_bucket`, `_sum`, `_count`. */
  name: string;
  labels: Labels;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help: string;
  samples: Sample[];
}

export interface HistogramSeries {
  labels: Labels;
  /** Cumulative counts by upper bound, ascending, `Infinity` last. */
  buckets: [number, number][];
  sum: number;
  count: number;
}

export interface Scrape {
  families: ReadonlyMap<string, Family>;
  family(name: string): Family;
  /** The one sample named `name` (a counter's or gauge's) whose labels include `labels`. */
  value(name: string, labels?: Labels): number;
  /** The series of histogram `name` whose labels include `labels`. */
  histogram(name: string, labels?: Labels): HistogramSeries[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: readonly MetricType[] = ["counter", "gauge", "histogram", "summary", "untyped"];
const SUFFIXES: Record<MetricType, readonly string[]> = {
  counter: [""],
  gauge: [""],
  untyped: [""],
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["", "_sum", "_count"],
};

class ParseError extends Error {
  constructor(lineNumber: number, message: string) {
    super(`line ${lineNumber}: ${message}`);
  }
}

function parseNumber(text: string): number {
  if (text === "+Inf" || text === "Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`not a number: ${text}`);
  return Number(text);
}

/** `{a="x",b="y"}` from position `start` (at `{`): the labels and the position after `}`. */
function parseLabels(line: string, start: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  while (line[i] !== "}") {
    const eq = line.indexOf("=", i);
    if (eq < 0) throw new Error("label without '='");
    const name = line.slice(i, eq).trim();
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name ${JSON.stringify(name)}`);
    if (name in labels) throw new Error(`label ${name} twice`);
    if (line[eq + 1] !== '"') throw new Error(`label ${name}: value not quoted`);
    let value = "";
    let j = eq + 2;
    for (;;) {
      const c = line[j];
      if (c === undefined) throw new Error(`label ${name}: unterminated value`);
      if (c === '"') break;
      if (c === "\\") {
        const next = line[j + 1];
        if (next === "n") value += "\n";
        else if (next === "\\" || next === '"') value += next;
        else throw new Error(`label ${name}: bad escape \\${next ?? ""}`);
        j += 2;
      } else {
        value += c;
        j += 1;
      }
    }
    labels[name] = value;
    i = j + 1;
    if (line[i] === ",") i += 1;
    else if (line[i] !== "}") throw new Error("expected ',' or '}' after a label");
  }
  return { labels, end: i + 1 };
}

function parseSample(line: string): Sample {
  const brace = line.indexOf("{");
  const space = line.indexOf(" ");
  const nameEnd = brace >= 0 && (space < 0 || brace < space) ? brace : space;
  if (nameEnd <= 0) throw new Error("no value");
  const name = line.slice(0, nameEnd);
  if (!METRIC_NAME.test(name)) throw new Error(`bad metric name ${JSON.stringify(name)}`);
  let rest = nameEnd;
  let labels: Record<string, string> = {};
  if (line[nameEnd] === "{") {
    const parsed = parseLabels(line, nameEnd);
    labels = parsed.labels;
    rest = parsed.end;
  }
  const fields = line.slice(rest).trim().split(/\s+/);
  if (fields.length < 1 || fields.length > 2 || fields[0] === "") throw new Error("expected a value");
  if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) throw new Error(`bad timestamp ${fields[1]}`);
  return { name, labels, value: parseNumber(fields[0] as string) };
}

function seriesKey(labels: Labels, without?: string): string {
  return JSON.stringify(
    Object.entries(labels)
      .filter(([key]) => key !== without)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

function includes(labels: Labels, wanted: Labels): boolean {
  return Object.entries(wanted).every(([key, value]) => labels[key] === value);
}

function histogramSeries(family: Family): HistogramSeries[] {
  const series = new Map<string, HistogramSeries>();
  for (const sample of family.samples) {
    const key = seriesKey(sample.labels, "le");
    let entry = series.get(key);
    if (entry === undefined) {
      const labels = Object.fromEntries(Object.entries(sample.labels).filter(([k]) => k !== "le"));
      entry = { labels, buckets: [], sum: Number.NaN, count: Number.NaN };
      series.set(key, entry);
    }
    if (sample.name.endsWith("_bucket")) {
      const le = sample.labels.le;
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      entry.buckets.push([parseNumber(le), sample.value]);
    } else if (sample.name.endsWith("_sum")) entry.sum = sample.value;
    else entry.count = sample.value;
  }
  for (const entry of series.values()) {
    const where = `${family.name}${seriesKey(entry.labels)}`;
    if (Number.isNaN(entry.sum) || Number.isNaN(entry.count)) throw new Error(`${where}: no _sum or _count`);
    entry.buckets.sort(([a], [b]) => a - b);
    const last = entry.buckets.at(-1);
    if (last === undefined || last[0] !== Number.POSITIVE_INFINITY)
      throw new Error(`${where}: no +Inf bucket`);
    if (last[1] !== entry.count)
      throw new Error(`${where}: +Inf bucket ${last[1]} is not the count ${entry.count}`);
    entry.buckets.forEach(([le, count], i) => {
      const previous = entry.buckets[i - 1];
      if (previous !== undefined && (previous[0] === le || previous[1] > count)) {
        throw new Error(`${where}: buckets not cumulative at le=${le}`);
      }
    });
  }
  return [...series.values()];
}

export function parsePrometheusText(text: string): Scrape {
  const families = new Map<string, Family>();
  const bySampleName = new Map<string, Family>();
  const seen = new Set<string>();
  const declare = (name: string, lineNumber: number): Family => {
    if (!METRIC_NAME.test(name)) throw new ParseError(lineNumber, `bad metric name ${JSON.stringify(name)}`);
    let family = families.get(name);
    if (family === undefined) {
      family = { name, type: "untyped", help: "", samples: [] };
      families.set(name, family);
    }
    return family;
  };
  text.split("\n").forEach((raw, index) => {
    const lineNumber = index + 1;
    const line = raw.trim();
    if (line === "") return;
    if (line.startsWith("#")) {
      const match = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (match === null) return; // a plain comment
      const [, keyword, name = "", rest = ""] = match;
      const family = declare(name, lineNumber);
      if (keyword === "HELP") {
        family.help = rest.replaceAll("\\n", "\n").replaceAll("\\\\", "\\");
        return;
      }
      const type = rest.trim() as MetricType;
      if (!TYPES.includes(type)) throw new ParseError(lineNumber, `unknown type ${JSON.stringify(rest)}`);
      if (family.samples.length > 0) throw new ParseError(lineNumber, `TYPE of ${name} after its samples`);
      family.type = type;
      for (const suffix of SUFFIXES[type]) bySampleName.set(`${name}${suffix}`, family);
      return;
    }
    let sample: Sample;
    try {
      sample = parseSample(line);
    } catch (error) {
      throw new ParseError(lineNumber, (error as Error).message);
    }
    const family = bySampleName.get(sample.name);
    if (family === undefined) throw new ParseError(lineNumber, `sample ${sample.name} of no declared family`);
    const key = `${sample.name}${seriesKey(sample.labels)}`;
    if (seen.has(key)) throw new ParseError(lineNumber, `duplicate series ${key}`);
    seen.add(key);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === "histogram") histogramSeries(family);

  const scrape: Scrape = {
    families,
    family(name) {
      const family = families.get(name);
      if (family === undefined) throw new Error(`no metric family ${name}`);
      return family;
    },
    value(name, labels = {}) {
      const found = scrape.family(name).samples.filter((s) => s.name === name && includes(s.labels, labels));
      if (found.length !== 1)
        throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
      return (found[0] as Sample).value;
    },
    histogram(name, labels = {}) {
      const family = scrape.family(name);
      if (family.type !== "histogram") throw new Error(`${name} is a ${family.type}, not a histogram`);
      return histogramSeries(family).filter((s) => includes(s.labels, labels));
    },
  };
  return scrape;
}
