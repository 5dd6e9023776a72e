import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command, Option } from "commander";
import { describe, expect, it } from "vitest";
import { createProgram } from "./cli/program.js";
import { CONFIG_SETTINGS, type ConfigSetting } from "./config.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SOURCE = fileURLToPath(new URL(".", import.meta.url));
const COLUMNS = ["setting", "environment variable", "CLI flag", "default", "meaning"] as const;

type Row = Record<(typeof COLUMNS)[number], string>;

/** The rows of the first table under `## Configuration` in docs/configuration.md, cells trimmed, `\|` unescaped. */
function readmeRows(): Row[] {
  const readme = readFileSync(join(ROOT, "docs/configuration.md"), "utf8");
  const section = readme.split(/^## /m).find((s) => s.startsWith("Configuration\n"));
  if (section === undefined) throw new Error("docs/configuration.md has no `## Configuration` section");
  const lines = section.split("\n").filter((line) => line.startsWith("|"));
  const cells = (line: string) =>
    line
      .trim()
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replaceAll("\\|", "|"));
  expect(cells(lines[0] ?? "")).toEqual([...COLUMNS]);
  return lines.slice(2).map((line) => {
    const row = cells(line);
    return Object.fromEntries(COLUMNS.map((column, i) => [column, row[i] ?? ""])) as Row;
  });
}

/** Every option of every `pricing` command, with the command's words (empty for the program's own). */
function commandOptions(): { path: string; option: Option }[] {
  const found: { path: string; option: Option }[] = [];
  const walk = (cmd: Command, path: string) => {
    for (const option of cmd.options) found.push({ path, option });
    for (const sub of cmd.commands) walk(sub, path === "" ? sub.name() : `${path} ${sub.name()}`);
  };
  walk(createProgram({ io: { out: () => {}, err: () => {} }, env: {} }), "");
  return found;
}

const code = (text: string) => `\`${text}\``;
const flagCell = (path: string, option: Option) =>
  code(path === "" ? option.flags : `${path} ${option.flags}`);

function literal(value: unknown): string {
  if (value === undefined) return "unset";
  if (Array.isArray(value)) return value.length === 0 ? "empty" : value.map(code).join(", ");
  return code(typeof value === "object" ? JSON.stringify(value) : String(value));
}

function settingDefault(setting: ConfigSetting): string {
  const base = setting.documentedDefault ?? literal(setting.schema.parse(undefined));
  const byCommand = Object.entries(setting.commandDefaults ?? {});
  if (byCommand.length === 0) return base;
  return `${base} (${byCommand.map(([command, value]) => `${code(command)}: ${literal(value)}`).join(", ")})`;
}

function optionDefault(option: Option): string {
  if (option.mandatory) return "required";
  if (!option.required && !option.optional) return "off";
  return literal(option.defaultValue);
}

/** The table the code declares: one row per setting, then one per flag that is not a setting's. */
function expectedRows(): Row[] {
  const options = commandOptions();
  const settingRows = CONFIG_SETTINGS.map((setting) => ({
    setting: code(setting.path),
    "environment variable": [
      code(setting.env),
      ...(setting.deprecatedEnv ?? []).map((old) => `deprecated: ${code(old)}`),
    ].join(", "),
    "CLI flag": options
      .filter(({ option }) => option.flags === setting.flag)
      .map(({ path, option }) => flagCell(path, option))
      .join(", "),
    default: settingDefault(setting),
    meaning: setting.description,
  }));
  const flagRows = options
    .filter(({ option }) => !CONFIG_SETTINGS.some((s) => s.flag === option.flags))
    .map(({ path, option }) => ({
      setting: "",
      "environment variable": "",
      "CLI flag": flagCell(path, option),
      default: optionDefault(option),
      meaning: option.description,
    }));
  return [...settingRows, ...flagRows];
}

/** The expected table, aligned, to paste into docs/configuration.md when this test fails. */
function markdown(rows: Row[]): string {
  const escaped = (cell: string) => cell.replaceAll("|", "\\|");
  const widths = COLUMNS.map((c) => Math.max(c.length, ...rows.map((r) => escaped(r[c]).length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [
    line([...COLUMNS]),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map((r) => line(COLUMNS.map((c) => escaped(r[c])))),
  ].join("\n");
}

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
const keyOf = (row: Row) => row.setting || row["CLI flag"];
const hint = () =>
  `docs/configuration.md's Configuration table should read:\n\n${markdown(expectedRows())}\n`;

describe("docs/configuration.md's Configuration table", () => {
  it("names every environment variable the config schema reads, and no other", () => {
    const documented = readmeRows().flatMap((row) => backticked(row["environment variable"]));
    const read = CONFIG_SETTINGS.flatMap((s) => [s.env, ...(s.deprecatedEnv ?? [])]);
    expect(documented.sort(), hint()).toEqual(read.sort());
  });

  it("names every flag of every `pricing` command, and no other", () => {
    const documented = readmeRows().flatMap((row) => backticked(row["CLI flag"]));
    const declared = commandOptions().map(({ path, option }) => flagCell(path, option).slice(1, -1));
    expect(documented.sort(), hint()).toEqual(declared.sort());
  });

  it("states each setting's and flag's default and meaning as the code declares them", () => {
    const documented = new Map(readmeRows().map((row) => [keyOf(row), row]));
    for (const row of expectedRows()) expect(documented.get(keyOf(row)), hint()).toEqual(row);
  });

  it("has one row per setting and flag", () => {
    const keys = readmeRows().map(keyOf);
    expect(keys.length, hint()).toBe(new Set(keys).size);
    expect(keys.sort(), hint()).toEqual(expectedRows().map(keyOf).sort());
  });
});

describe("the server's settings", () => {
  const sources = readdirSync(SOURCE, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(ts|mjs)$/.test(file) && !/\.test\.ts$/.test(file))
    // Test infrastructure (`test-postgres.ts`) reads the tests' own variables, documented beside the tests.
    .filter((file) => !/(^|\/)test-[^/]+$/.test(file))
    .map((file) => ({ file, text: readFileSync(join(SOURCE, file), "utf8") }));

  it("come from the environment only through the config schema", () => {
    const names = new Set(CONFIG_SETTINGS.flatMap((s) => [s.env, ...(s.deprecatedEnv ?? [])]));
    const unknown = sources.flatMap(({ file, text }) =>
      [...text.matchAll(/\b(?:PRICING|PUBLIC_API)_[A-Z0-9_]+\b/g)]
        .map((m) => m[0])
        .filter((name) => !names.has(name))
        .map((name) => `${file}: ${name}`),
    );
    expect(unknown).toEqual([]);
    const readers = sources.filter(({ text }) => text.includes("process.env")).map(({ file }) => file);
    expect(readers.sort()).toEqual(["cli/program.ts", "config.ts"]);
  });
});
