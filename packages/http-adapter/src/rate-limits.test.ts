import Fastify from "fastify";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "./errors.js";
import { createStoreHealth, installRateLimits } from "./rate-limits.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("rate limits counted in memory", () => {
  it("count a fixed window per key from its first request, and say when it ends", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.parse("2026-01-01T00:00:00Z") });
    const app = Fastify();
    const limiter = await installRateLimits(app, undefined);
    const check = limiter(
      { max: 2, windowMs: 60_000 },
      (r) => r.headers["x-key"] as string | undefined,
      createStoreHealth(),
    );
    const request = (key?: string) =>
      ({ headers: key === undefined ? {} : { "x-key": key } }) as Parameters<typeof check>[0];
    const refusal = async (key: string) => {
      try {
        await check(request(key));
        return undefined;
      } catch (error) {
        expect(error).toBeInstanceOf(ApiError);
        return (error as ApiError).headers?.["retry-after"];
      }
    };

    expect(await refusal("a")).toBeUndefined();
    vi.advanceTimersByTime(20_000);
    expect(await refusal("a")).toBeUndefined();
    expect(await refusal("b")).toBeUndefined();
    expect(await refusal("a")).toBe("40");
    await check(request()); // no key: not counted
    vi.advanceTimersByTime(39_500);
    expect(await refusal("a")).toBe("1");
    vi.advanceTimersByTime(500);
    expect(await refusal("a")).toBeUndefined();
    expect(await refusal("b")).toBeUndefined();
    expect(await refusal("b")).toBe("20");
    await app.close();
  });
});
