import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ModelIdStaleError, type PolicyStoreError } from "./errors.js";
import { createPolicyStore, type PolicyStore } from "./policy-store.js";
import { weightsFor } from "./test-support/fixtures.js";
import { makeTempDir } from "./test-support/temp-dir.js";

/** The slot state machine as plain data: what the store must agree with after every command. */
interface Model {
  nextVersion: number;
  /** Stored artifacts: model id -> version, in save order. */
  artifacts: Map<string, number>;
  saved: string[];
  latest: string | null;
  approved: string | null;
  previous: string | null;
  revision: number;
  everApproved: Set<string>;
}

interface Real {
  store: PolicyStore;
  advance: (ms: number) => void;
}

const COMPANY = "acme";
const BOGUS = "mdl_01ARZ3NDEKTSV4RRFFQ69G5FAV";

function approve(m: Model, id: string): void {
  if (m.approved !== id) {
    m.previous = m.approved;
    m.approved = id;
    m.everApproved.add(id);
  }
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

async function checkAgainst(m: Model, r: Real): Promise<void> {
  const slots = await r.store.getSlots(COMPANY);
  expect(slots.latest?.model_id ?? null).toBe(m.latest);
  expect(slots.approved?.model_id ?? null).toBe(m.approved);
  expect(slots.previous_approved).toBe(m.previous);
  expect(slots.revision).toBe(m.revision);
  expect(slots.history.map((e) => e.revision)).toEqual(Array.from({ length: m.revision }, (_, i) => i + 1));
  const listed = await r.store.listVersions(COMPANY);
  expect(listed.map((x) => [x.model_id, x.version])).toEqual([...m.artifacts].sort((a, b) => a[1] - b[1]));
}

class SaveCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly commit: boolean,
    readonly autoApprove: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    r.advance(1000);
    const record = await r.store.save({
      companyId: COMPANY,
      manifest: { n: m.nextVersion },
      weights: weightsFor(`w${m.nextVersion}`),
    });
    expect(record.version).toBe(m.nextVersion);
    const last = m.saved.at(-1);
    if (last !== undefined) expect(record.model_id > last).toBe(true);
    m.nextVersion += 1;
    m.artifacts.set(record.model_id, record.version);
    m.saved.push(record.model_id);
    if (this.commit) {
      const { changed } = await r.store.commitTraining({
        companyId: COMPANY,
        modelId: record.model_id,
        autoApprove: this.autoApprove,
      });
      expect(changed).toBe(true);
      m.latest = record.model_id;
      if (this.autoApprove) approve(m, record.model_id);
      m.revision += 1;
    }
    await checkAgainst(m, r);
  }
  toString = () => `save(commit=${this.commit}, auto=${this.autoApprove})`;
}

class RecommitCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.saved.length > 0;
  async run(m: Model, r: Real) {
    const id = m.saved[this.pick % m.saved.length] ?? BOGUS;
    const result = await caught(r.store.commitTraining({ companyId: COMPANY, modelId: id }));
    if (!m.artifacts.has(id)) {
      expect((result as PolicyStoreError).code).toBe("unknown_model");
    } else if (m.latest !== id) {
      expect(result).toBeUndefined();
      m.latest = id;
      m.revision += 1;
    }
    await checkAgainst(m, r);
  }
  toString = () => `recommit(${this.pick})`;
}

class PromoteCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly target: "latest" | "saved" | "bogus",
    readonly pick: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const id =
      this.target === "latest"
        ? (m.latest ?? BOGUS)
        : this.target === "saved"
          ? (m.saved[this.pick % Math.max(1, m.saved.length)] ?? BOGUS)
          : BOGUS;
    r.advance(1000);
    const result = await r.store.promote(COMPANY, id).catch((e: unknown) => e);
    if (id === m.latest) {
      expect(result).not.toBeInstanceOf(Error);
      const changed = m.approved !== id;
      expect((result as { changed: boolean }).changed).toBe(changed);
      if (changed) {
        approve(m, id);
        m.revision += 1;
      }
    } else {
      expect(result).toBeInstanceOf(ModelIdStaleError);
      expect((result as ModelIdStaleError).currentLatestId).toBe(m.latest);
    }
    await checkAgainst(m, r);
  }
  toString = () => `promote(${this.target}, ${this.pick})`;
}

class RollbackCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number | null) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const target =
      this.pick === null ? m.previous : (m.saved[this.pick % Math.max(1, m.saved.length)] ?? null);
    const result = await caught(
      r.store.rollback(COMPANY, target === null || this.pick === null ? {} : { toModelId: target }),
    );
    if (target === null || !m.everApproved.has(target)) {
      expect((result as PolicyStoreError).code).toBe("nothing_to_roll_back");
    } else if (!m.artifacts.has(target)) {
      expect((result as PolicyStoreError).code).toBe("unknown_model");
    } else {
      expect(result).toBeUndefined();
      if (m.approved !== target) {
        approve(m, target);
        m.revision += 1;
      }
    }
    await checkAgainst(m, r);
  }
  toString = () => `rollback(${this.pick})`;
}

class RetainCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly keep: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const needed = new Set([...m.everApproved, ...(m.latest ? [m.latest] : [])]);
    const unneeded = [...m.artifacts].filter(([id]) => !needed.has(id)).sort((a, b) => b[1] - a[1]);
    const expected = unneeded.slice(this.keep).map(([id]) => id);
    const result = await r.store.retain(COMPANY, { keep: this.keep, minAgeMs: 0 });
    expect(result.deleted.sort()).toEqual(expected.sort());
    for (const id of expected) m.artifacts.delete(id);
    await checkAgainst(m, r);
  }
  toString = () => `retain(${this.keep})`;
}

class ResolveCommand implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    const active = await r.store.resolveActive(COMPANY);
    const expected = m.approved ? "approved" : m.latest ? "latest" : "rule";
    expect(active.source).toBe(expected);
    expect(active.model_id).toBe(m.approved ?? m.latest);
    expect(active.fallback_reason).toBe(expected === "rule" ? "no_artifact" : null);
    expect(active.latest?.model_id ?? null).toBe(m.latest);
    expect(active.approved?.model_id ?? null).toBe(m.approved);
  }
  toString = () => "resolve";
}

const save = fc.tuple(fc.boolean(), fc.boolean()).map(([c, a]) => new SaveCommand(c, a));
const promoteLatest = fc.constant(new PromoteCommand("latest", 0));
// Saves and promotions of the latest are listed more than once so long runs reach deep states.
const commands = [
  save,
  save,
  save,
  promoteLatest,
  promoteLatest,
  fc.nat(20).map((p) => new RecommitCommand(p)),
  fc
    .tuple(fc.constantFrom("latest", "latest", "saved", "bogus" as const), fc.nat(20))
    .map(([t, p]) => new PromoteCommand(t as "latest" | "saved" | "bogus", p)),
  fc.option(fc.nat(20)).map((p) => new RollbackCommand(p)),
  fc.nat(3).map((k) => new RetainCommand(k)),
  fc.constant(new ResolveCommand()),
];

describe("slot state machine (fast-check commands vs an in-memory model)", () => {
  const removes: (() => void)[] = [];
  afterAll(() => {
    for (const remove of removes) remove();
  });

  it("agrees with the model after every command", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: "+1" }), async (cmds) => {
        const temp = makeTempDir("model");
        removes.push(temp.remove);
        let now = Date.parse("2026-01-01T00:00:00Z");
        // fsync off: this checks the state machine's logic; durability is the crash test's business.
        const store = createPolicyStore({ root: temp.dir, fsync: false, clock: () => new Date(now) });
        const model: Model = {
          nextVersion: 1,
          artifacts: new Map(),
          saved: [],
          latest: null,
          approved: null,
          previous: null,
          revision: 0,
          everApproved: new Set(),
        };
        await fc.asyncModelRun(
          () => ({
            model,
            real: {
              store,
              advance: (ms) => {
                now += ms;
              },
            },
          }),
          cmds,
        );
        expect((await store.checkConsistency(COMPANY)).ok).toBe(true);
      }),
      { seed: 20261121, numRuns: 100 },
    );
  });
});
