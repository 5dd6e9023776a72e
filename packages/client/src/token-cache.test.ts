import { describe, expect, it } from "vitest";
import { TokenCache, type TokenGrant } from "./token-cache.js";

/** An exchange that hands out tok-1, tok-2, ... and can be held open to observe concurrent callers. */
function harness(lifetimeSeconds = 900) {
  let nowMs = 1_700_000_000_000;
  let count = 0;
  let gate: Promise<void> = Promise.resolve();
  const cache = new TokenCache({
    exchange: async (): Promise<TokenGrant> => {
      count += 1;
      const n = count;
      await gate;
      return { accessToken: `tok-${n}`, expiresInSeconds: lifetimeSeconds };
    },
    now: () => nowMs,
    refreshBeforeExpiryMs: 60_000,
  });
  return {
    cache,
    exchanges: () => count,
    advance: (ms: number) => {
      nowMs += ms;
    },
    hold: () => {
      let release!: () => void;
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      return release;
    },
  };
}

const fresh = () => new AbortController().signal;

describe("TokenCache", () => {
  it("reuses the token until 60 s before expiry, then exchanges again", async () => {
    const h = harness();
    expect((await h.cache.get(fresh())).accessToken).toBe("tok-1");
    h.advance(839_999);
    expect((await h.cache.get(fresh())).accessToken).toBe("tok-1");
    h.advance(1);
    expect((await h.cache.get(fresh())).accessToken).toBe("tok-2");
    expect(h.exchanges()).toBe(2);
  });

  it("shares one exchange among concurrent callers", async () => {
    const h = harness();
    const release = h.hold();
    const waiting = Array.from({ length: 20 }, () => h.cache.get(fresh()));
    release();
    const tokens = await Promise.all(waiting);
    expect(new Set(tokens.map((t) => t.accessToken))).toEqual(new Set(["tok-1"]));
    expect(h.exchanges()).toBe(1);
  });

  it("replaces a rejected token once, however many calls report it", async () => {
    const h = harness();
    const first = await h.cache.get(fresh());
    const replaced = await Promise.all(Array.from({ length: 5 }, () => h.cache.replace(first, fresh())));
    expect(replaced.map((t) => t.accessToken)).toEqual(Array(5).fill("tok-2"));
    // A late report about the old token does not throw away the new one.
    expect((await h.cache.replace(first, fresh())).accessToken).toBe("tok-2");
    expect(h.exchanges()).toBe(2);
  });

  it("keeps half the lifetime as margin when tokens live shorter than two margins", async () => {
    const h = harness(100);
    await h.cache.get(fresh());
    h.advance(49_999);
    expect((await h.cache.get(fresh())).accessToken).toBe("tok-1");
    h.advance(1);
    expect((await h.cache.get(fresh())).accessToken).toBe("tok-2");
  });

  it("lets a caller give up without cancelling the exchange others wait for", async () => {
    const h = harness();
    const release = h.hold();
    const impatient = new AbortController();
    const gaveUp = h.cache.get(impatient.signal);
    const patient = h.cache.get(fresh());
    impatient.abort(new Error("caller gave up"));
    await expect(gaveUp).rejects.toThrow("caller gave up");
    release();
    expect((await patient).accessToken).toBe("tok-1");
    expect(h.exchanges()).toBe(1);
  });

  it("does not cache a failed exchange", async () => {
    let fail = true;
    let count = 0;
    const cache = new TokenCache({
      exchange: async () => {
        count += 1;
        if (fail) throw new Error("refused");
        return { accessToken: "ok", expiresInSeconds: 900 };
      },
      now: () => 0,
      refreshBeforeExpiryMs: 60_000,
    });
    await expect(cache.get(fresh())).rejects.toThrow("refused");
    fail = false;
    expect((await cache.get(fresh())).accessToken).toBe("ok");
    expect(count).toBe(2);
  });
});
