import { setImmediate as nextTurn } from "node:timers/promises";

/** How long one turn serializes before it gives the event loop back. */
const TURN_MS = 4;
/** Items serialized between looks at the clock. */
const ITEMS_PER_LOOK = 64;

/**
 * `JSON.stringify(value)`, byte for byte, for an object whose field `field` is a long array (a compute's
 * recommendations): the array is serialized item by item, each through `each` first (a schema's parse), giving
 * the event loop back every few milliseconds, so a 40,000-item answer does not hold health checks and other
 * partners' requests behind one long validation and stringify.
 */
export async function jsonInTurns<T extends object>(
  value: T,
  field: keyof T & string,
  each: (item: unknown) => unknown = (item) => item,
): Promise<string> {
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (key !== field || !Array.isArray(item)) {
      const json = JSON.stringify(item);
      if (json !== undefined) parts.push(`${JSON.stringify(key)}:${json}`);
      continue;
    }
    const items: string[] = [];
    let turnStart = performance.now();
    for (let i = 0; i < item.length; i++) {
      items.push(JSON.stringify(each(item[i])) ?? "null");
      if (i % ITEMS_PER_LOOK === ITEMS_PER_LOOK - 1 && performance.now() - turnStart > TURN_MS) {
        await nextTurn();
        turnStart = performance.now();
      }
    }
    parts.push(`${JSON.stringify(key)}:[${items.join(",")}]`);
  }
  return `{${parts.join(",")}}`;
}
