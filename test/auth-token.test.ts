import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  craftJwt,
  decodeJwt,
  type Harness,
  type Partner,
  startHarness,
  withoutRequestId,
} from "./http-harness.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let h: Harness;
let partner: Partner;

beforeAll(async () => {
  h = await startHarness();
  partner = await h.partnerWithCompany("acme-eu");
});
afterAll(async () => h.destroy());

function exchange(body: unknown) {
  return h.app.inject({ method: "POST", url: "/public/v1/auth/token", payload: body as object });
}

function getModel(token: string, companyId = partner.company_id, prefix = "/public/v1") {
  return h.app.inject({
    method: "GET",
    url: `${prefix}/v2/model?company_id=${companyId}`,
    headers: { authorization: `Bearer ${token}` },
  });
}

/** A request that got past the bearer and company checks: the pricing service answered (200, or 503 while stubbed). */
function expectAuthorized(res: { statusCode: number; body: string }) {
  expect([200, 503], res.body).toContain(res.statusCode);
  if (res.statusCode === 503) expect(JSON.parse(res.body).error.code).toBe("unavailable");
}

describe("POST /public/v1/auth/token", () => {
  it("exchanges a key pair for a 900 s HS256 JWT with iss, aud, sub, iat, exp, jti and kid", async () => {
    const res = await exchange({ access_key: partner.access_key, secret_key: partner.secret_key });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(900);
    const { header, payload } = decodeJwt(body.access_token);
    expect(header.alg).toBe("HS256");
    expect(typeof header.kid).toBe("string");
    expect(payload.sub).toBe(partner.partner_id);
    expect(payload.iss).toBe("pricing-api");
    expect(payload.aud).toBe("pricing-partners");
    expect(Number(payload.exp) - Number(payload.iat)).toBe(900);
    expect(payload.iat).toBe(Math.floor(Date.parse("2026-03-02T10:00:00Z") / 1000));
    expect(payload.jti).toMatch(UUID);
    expectAuthorized(await getModel(body.access_token));
    expectAuthorized(await getModel(body.access_token, partner.company_id, ""));
  });

  it("gives one identical 401 invalid_credentials for wrong secret, unknown key, superseded key and disabled partner", async () => {
    const other = await h.partnerWithCompany();
    const before = { access_key: other.access_key, secret_key: other.secret_key };
    const rotated = await h.cli("partner", "rotate-keys", other.partner_id);
    expect(rotated.code).toBe(0);
    const disabled = await h.partnerWithCompany();
    expect((await h.cli("partner", "disable", disabled.partner_id)).code).toBe(0);

    const cases = {
      wrongSecret: { access_key: partner.access_key, secret_key: `${partner.secret_key.slice(0, -2)}xx` },
      unknownKey: { access_key: "ak_000000000000000000000000", secret_key: partner.secret_key },
      supersededKey: before,
      disabledPartner: { access_key: disabled.access_key, secret_key: disabled.secret_key },
    };
    const bodies = [];
    for (const [name, creds] of Object.entries(cases)) {
      const res = await exchange(creds);
      expect(res.statusCode, name).toBe(401);
      expect(res.json().error.request_id).toMatch(UUID);
      bodies.push(withoutRequestId(res.body));
    }
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    expect(bodies[0]).toEqual({
      error: { code: "invalid_credentials", message: "The access key or secret key is invalid." },
    });
    // The new pair works.
    expect(
      (await exchange({ access_key: rotated.json.access_key, secret_key: rotated.json.secret_key }))
        .statusCode,
    ).toBe(200);
  });

  it("refuses keys sent to a data endpoint", async () => {
    const asBearer = await getModel(partner.secret_key);
    expect(asBearer.statusCode).toBe(401);
    expect(asBearer.json().error.code).toBe("invalid_token");
    const inQuery = await h.app.inject({
      method: "GET",
      url: `/public/v1/v2/model?company_id=${partner.company_id}&access_key=${partner.access_key}&secret_key=x`,
    });
    expect(inQuery.statusCode).toBe(401);
    const inBody = await h.app.inject({
      method: "POST",
      url: "/public/v1/v2/model/train",
      payload: {
        company_id: partner.company_id,
        access_key: partner.access_key,
        secret_key: partner.secret_key,
      },
    });
    expect(inBody.statusCode).toBe(401);
    expect(inBody.headers["www-authenticate"]).toBe('Bearer error="invalid_token"');
  });
});

describe("bearer verification", () => {
  it("expires tokens after 900 s: 401 token_expired with WWW-Authenticate", async () => {
    const token = await h.token(partner);
    h.advance(899_000);
    expectAuthorized(await getModel(token));
    h.advance(2_000);
    const res = await getModel(token);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe("token_expired");
    expect(res.headers["www-authenticate"]).toBe('Bearer error="invalid_token"');
  });

  it("refuses forged, unsigned, wrong-audience, wrong-issuer and foreign-key tokens with 401 invalid_token", async () => {
    const token = await h.token(partner);
    const { header, payload } = decodeJwt(token);
    const secret = await h.jwtSecret();
    const [hPart, pPart, sig] = token.split(".");
    const tampered = { ...payload, sub: "ptr_someone_else" };
    const cases: Record<string, string> = {
      missing: "",
      garbage: "not.a.jwt",
      forgedSignature: `${hPart}.${pPart}.${(sig ?? "").slice(0, -4)}AAAA`,
      tamperedPayload: `${hPart}.${Buffer.from(JSON.stringify(tampered)).toString("base64url")}.${sig}`,
      algNone: craftJwt({ ...header, alg: "none" }, payload, null),
      algNoneSigned: craftJwt({ alg: "none", typ: "JWT" }, payload, secret),
      wrongAudience: craftJwt(header, { ...payload, aud: "someone-else" }, secret),
      wrongIssuer: craftJwt(header, { ...payload, iss: "evil" }, secret),
      otherKey: craftJwt(header, payload, "another-secret-of-at-least-thirty-two-chars"),
      otherKid: craftJwt({ ...header, kid: "other" }, payload, secret),
      noJti: craftJwt(header, { ...payload, jti: undefined }, secret),
    };
    for (const [name, bad] of Object.entries(cases)) {
      const res = await h.app.inject({
        method: "GET",
        url: `/public/v1/v2/runs?company_id=${partner.company_id}`,
        headers: bad === "" ? {} : { authorization: `Bearer ${bad}` },
      });
      expect(res.statusCode, name).toBe(401);
      expect(res.json().error.code, name).toBe("invalid_token");
      expect(res.headers["www-authenticate"], name).toBe('Bearer error="invalid_token"');
    }
    // A correctly signed copy of the same claims is accepted, so the cases above fail for the stated reason.
    expectAuthorized(await getModel(craftJwt(header, payload, secret)));
  });

  it("refuses a disabled partner's existing tokens at once and for good: enable does not revive them", async () => {
    const p = await h.partnerWithCompany();
    const token = await h.token(p);
    expectAuthorized(await getModel(token, p.company_id));
    expect((await h.cli("partner", "disable", p.partner_id)).code).toBe(0);
    const refused = await getModel(token, p.company_id);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe("invalid_token");
    expect((await h.cli("partner", "enable", p.partner_id)).code).toBe(0);
    const stillRefused = await getModel(token, p.company_id);
    expect(stillRefused.statusCode).toBe(401);
    expect(stillRefused.json().error.code).toBe("invalid_token");
    // A token minted after the enable (in the same second, on the frozen clock) works.
    expectAuthorized(await getModel(await h.token(p), p.company_id));
  });

  it("refuses a correctly signed token that lives longer than 900 s or was issued in the future", async () => {
    const secret = await h.jwtSecret();
    const minted = decodeJwt(await h.token(partner));
    const header = minted.header;
    // The server's clock, wherever earlier tests moved it.
    const now = Number(minted.payload.iat);
    const claims = (iat: number, exp: number) => ({
      iss: "pricing-api",
      aud: "pricing-partners",
      sub: partner.partner_id,
      jti: "6d0c5f38-6f0b-4b8e-9f3a-2b9d6c1e0a11",
      iat,
      exp,
    });
    const cases: [string, Record<string, unknown>][] = [
      ["a day long", claims(now - 60, now - 60 + 86_400)],
      ["901 s plus the skew", claims(now - 60, now - 60 + 900 + 31)],
      ["issued an hour ahead", claims(now + 3600, now + 3600 + 900)],
      ["issued 31 s ahead", claims(now + 31, now + 31 + 900)],
      ["no iat", { ...claims(now, now + 900), iat: undefined }],
    ];
    for (const [name, payload] of cases) {
      const res = await getModel(craftJwt(header, payload, secret));
      expect(res.statusCode, name).toBe(401);
      expect(res.json().error.code, name).toBe("invalid_token");
    }
    // The same construction within the bounds is accepted, so each case above fails for its stated reason.
    expectAuthorized(await getModel(craftJwt(header, claims(now - 60, now - 60 + 900), secret)));
    expectAuthorized(await getModel(craftJwt(header, claims(now + 20, now + 20 + 900), secret)));
  });

  it("answers a byte-identical 404 company_not_found for unknown and unmapped companies", async () => {
    const token = await h.token(partner);
    const someoneElse = await h.partnerWithCompany("other-co");
    const unknown = await getModel(token, "does-not-exist");
    const unmapped = await getModel(token, someoneElse.company_id);
    expect(unknown.statusCode).toBe(404);
    expect(unmapped.statusCode).toBe(404);
    expect(withoutRequestId(unknown.body)).toEqual(withoutRequestId(unmapped.body));
    expect(unknown.body.replace(/"request_id":"[^"]+"/, "")).toBe(
      unmapped.body.replace(/"request_id":"[^"]+"/, ""),
    );
    expect(unknown.json().error.code).toBe("company_not_found");
    // POST bodies go through the same check.
    const post = await h.app.inject({
      method: "POST",
      url: "/v2/recommendations/compute",
      headers: { authorization: `Bearer ${token}` },
      payload: { company_id: someoneElse.company_id, dry_run: true },
    });
    expect(withoutRequestId(post.body)).toEqual(withoutRequestId(unknown.body));
    // Unmapping takes effect on the next request.
    expect(
      (await h.cli("company", "unmap", "--partner", partner.partner_id, "--company", "acme-eu")).code,
    ).toBe(0);
    expect((await getModel(token)).statusCode).toBe(404);
    expect(
      (await h.cli("company", "map", "--partner", partner.partner_id, "--company", "acme-eu")).code,
    ).toBe(0);
    expectAuthorized(await getModel(token));
  });

  it("never writes keys or tokens into log lines or error messages", async () => {
    const token = await h.token(partner);
    await getModel(token);
    await exchange({ access_key: partner.access_key, secret_key: "sk_wrong" });
    await exchange({
      access_key: partner.access_key,
      secret_key: partner.secret_key,
      extra: partner.secret_key,
    });
    const logs = h.logs.join("\n");
    expect(h.logs.length).toBeGreaterThan(5);
    expect(logs).toContain("request_id");
    for (const secret of [partner.secret_key, token, token.split(".")[2] ?? "", await h.jwtSecret()]) {
      expect(logs).not.toContain(secret);
    }
  });
});
