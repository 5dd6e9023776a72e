import { spawnSync } from "node:child_process";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LockTimeoutError } from "./file-lock.js";
import { FsObjectStore } from "./fs-object-store.js";
import { MemoryObjectStore } from "./memory-object-store.js";
import { type ObjectStore, PreconditionFailedError } from "./object-store.js";
import { makeTempDir } from "./test-support/temp-dir.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (body: Uint8Array | undefined) => new TextDecoder().decode(body);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function fsStore(): FsObjectStore {
  const temp = makeTempDir("objects");
  cleanups.push(temp.remove);
  return new FsObjectStore({ root: temp.dir });
}

const implementations: [string, () => ObjectStore][] = [
  ["FsObjectStore", fsStore],
  ["MemoryObjectStore", () => new MemoryObjectStore()],
];

describe.each(implementations)("%s contract", (_name, make) => {
  it("stores, lists, replaces and deletes objects", async () => {
    const store = make();
    expect(await store.get("a/b.json")).toBeNull();
    const first = await store.put("a/b.json", bytes("one"));
    await store.put("a/c/d.bin", bytes("two"));
    await store.put("z.json", bytes("three"));
    expect(text((await store.get("a/b.json"))?.body)).toBe("one");
    expect((await store.get("a/b.json"))?.etag).toBe(first.etag);
    expect(await store.list("a/")).toEqual(["a/b.json", "a/c/d.bin"]);
    expect(await store.list("")).toEqual(["a/b.json", "a/c/d.bin", "z.json"]);
    expect(await store.list("a/c")).toEqual(["a/c/d.bin"]);
    const second = await store.put("a/b.json", bytes("uno"));
    expect(second.etag).not.toBe(first.etag);
    expect(await store.delete("a/b.json")).toBe(true);
    expect(await store.delete("a/b.json")).toBe(false);
    expect(await store.delete("never/there.json")).toBe(false);
    expect(await store.list("a/")).toEqual(["a/c/d.bin"]);
  });

  it("rejects keys that could escape the store or collide with its own files", async () => {
    const store = make();
    for (const key of ["", "../x", "a/../b", "/abs", "a//b", ".hidden", "a/.lock", "sp ace"]) {
      await expect(store.put(key, bytes("x"))).rejects.toThrow(/invalid object key/);
    }
  });

  it("ifAbsent writes once; ifMatch writes only over the expected version; failures change nothing", async () => {
    const store = make();
    const created = await store.put("k.json", bytes("v1"), { ifAbsent: true });
    await expect(store.put("k.json", bytes("v2"), { ifAbsent: true })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    const updated = await store.put("k.json", bytes("v2"), { ifMatch: created.etag });
    await expect(store.put("k.json", bytes("v3"), { ifMatch: created.etag })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    await expect(store.put("absent.json", bytes("x"), { ifMatch: created.etag })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    await expect(store.delete("k.json", { ifMatch: created.etag })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    expect(text((await store.get("k.json"))?.body)).toBe("v2");
    expect(await store.get("absent.json")).toBeNull();
    expect(await store.delete("k.json", { ifMatch: updated.etag })).toBe(true);
  });

  it("concurrent compare-and-set increments lose no update", async () => {
    const store = make();
    await store.put("counter", bytes("0"));
    let wins = 0;
    const increment = async () => {
      for (;;) {
        const current = await store.get("counter");
        if (current === null) throw new Error("counter vanished");
        try {
          await store.put("counter", bytes(String(Number(text(current.body)) + 1)), {
            ifMatch: current.etag,
          });
          wins += 1;
          return;
        } catch (error) {
          if (!(error instanceof PreconditionFailedError)) throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: 20 }, increment));
    expect(text((await store.get("counter"))?.body)).toBe("20");
    expect(wins).toBe(20);
  });
});

describe("FsObjectStore on disk", () => {
  it("leaves no temporary or lock files behind and hides its own files from list", async () => {
    const store = fsStore();
    await store.put("d/x.json", bytes("1"), { ifAbsent: true });
    await store.put("d/x.json", bytes("2"));
    expect(readdirSync(join(store.root, "d"))).toEqual(["x.json"]);
    writeFileSync(join(store.root, "d", ".x.json.tmp-1-1"), "partial");
    expect(await store.list("d/")).toEqual(["d/x.json"]);
  });

  it("writes its objects 0600 and the folders it creates 0700, whatever the umask", async () => {
    const temp = makeTempDir("private");
    cleanups.push(temp.remove);
    const store = new FsObjectStore({ root: join(temp.dir, "artifacts") });
    const before = process.umask(0o000);
    try {
      await store.put("companies/c1/models/m1/weights.bin", bytes("weights"));
      await store.put("companies/c1/slots.json", bytes("{}"));
    } finally {
      process.umask(before);
    }
    const mode = (path: string) => (statSync(join(temp.dir, path)).mode & 0o777).toString(8);
    for (const dir of ["artifacts", "artifacts/companies", "artifacts/companies/c1/models/m1"]) {
      expect(mode(dir), dir).toBe("700");
    }
    for (const file of [
      "artifacts/companies/c1/models/m1/weights.bin",
      "artifacts/companies/c1/slots.json",
    ]) {
      expect(mode(file), file).toBe("600");
    }
  });

  it("list sweeps temporary and candidate-lock files left by killed writers, once old", async () => {
    const store = fsStore();
    await store.put("d/x.json", bytes("1"));
    const { utimesSync } = await import("node:fs");
    const names = [
      ".x.json.tmp-123-4",
      ".x.json.lock.123-999-1",
      ".x.json.lock.broken-123-999-2",
      ".x.json.lock",
    ];
    for (const name of names) writeFileSync(join(store.root, "d", name), "{}");
    writeFileSync(join(store.root, "d", ".x.json.tmp-123-5"), "fresh");
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const name of names) utimesSync(join(store.root, "d", name), hourAgo, hourAgo);
    expect(await store.list("d/")).toEqual(["d/x.json"]);
    // The lock file itself is only ever broken by the lock protocol, never swept.
    expect(readdirSync(join(store.root, "d")).sort()).toEqual([
      ".x.json.lock",
      ".x.json.tmp-123-5",
      "x.json",
    ]);
  });

  it("breaks the lock of a dead process", async () => {
    const store = fsStore();
    await store.put("d/x.json", bytes("1"));
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const owner = {
      pid: dead,
      host: (await import("node:os")).hostname(),
      token: "dead",
      acquired_at: Date.now(),
    };
    writeFileSync(join(store.root, "d", ".x.json.lock"), JSON.stringify(owner));
    await store.put("d/x.json", bytes("2"));
    expect(text((await store.get("d/x.json"))?.body)).toBe("2");
  });

  it("waits for a live lock, and breaks it once older than the stale bound", async () => {
    const temp = makeTempDir("locks");
    cleanups.push(temp.remove);
    const store = new FsObjectStore({ root: temp.dir, lockTimeoutMs: 150, lockStaleMs: 60_000 });
    await store.put("d/x.json", bytes("1"));
    const lockPath = join(temp.dir, "d", ".x.json.lock");
    const host = (await import("node:os")).hostname();
    writeFileSync(
      lockPath,
      JSON.stringify({ pid: process.pid, host, token: "live", acquired_at: Date.now() }),
    );
    await expect(store.put("d/x.json", bytes("2"))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(text((await store.get("d/x.json"))?.body)).toBe("1");
    const old = Date.now() - 120_000;
    writeFileSync(lockPath, JSON.stringify({ pid: process.pid, host, token: "old", acquired_at: old }));
    await store.put("d/x.json", bytes("3"));
    expect(text((await store.get("d/x.json"))?.body)).toBe("3");
  });
});
