import { readFileSync } from "node:fs";
import { type ScenarioInput, ScenarioSchema } from "@pricing/engine";

/** Scenarios from a JSON file (one scenario or a list), validated; an error names the file, index and field. */
export function loadScenarioFile(file: string): ScenarioInput[] {
  const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.map((s, i) => {
    const result = ScenarioSchema.safeParse(s);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new Error(`${file}[${i}]: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
    }
    return result.data;
  });
}
