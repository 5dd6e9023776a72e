import type { IdempotencyClaimInput, IdempotencyRecord, IdempotencyStore } from "../idempotency.js";

interface Row extends IdempotencyRecord {
  owner: string;
  expiresAt: string;
  leaseUntil: string;
}

/** The store contract in memory, for the adapter's own tests (the server's is a database table). */
export function memoryIdempotencyStore(): IdempotencyStore & { rows: Map<string, Row> } {
  const rows = new Map<string, Row>();
  const id = (partnerId: string, key: string) => `${partnerId}\u0000${key}`;
  const owned = (partnerId: string, key: string, owner: string) => {
    const row = rows.get(id(partnerId, key));
    return row !== undefined && row.owner === owner && row.response === null ? row : undefined;
  };
  return {
    rows,
    async claim(input: IdempotencyClaimInput) {
      const row = rows.get(id(input.partnerId, input.key));
      const live =
        row !== undefined &&
        row.expiresAt > input.now &&
        (row.response !== null || row.leaseUntil > input.now);
      if (live) return { claimed: false, record: { fingerprint: row.fingerprint, response: row.response } };
      rows.set(id(input.partnerId, input.key), {
        fingerprint: input.fingerprint,
        response: null,
        owner: input.owner,
        expiresAt: input.expiresAt,
        leaseUntil: input.leaseUntil,
      });
      return { claimed: true };
    },
    async renew(partnerId, key, owner, leaseUntil) {
      const row = owned(partnerId, key, owner);
      if (row) row.leaseUntil = leaseUntil;
    },
    async complete(partnerId, key, owner, response) {
      const row = owned(partnerId, key, owner);
      if (row) row.response = response;
    },
    async release(partnerId, key, owner) {
      if (owned(partnerId, key, owner)) rows.delete(id(partnerId, key));
    },
  };
}
