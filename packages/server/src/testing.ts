/**
 * Test helpers for suites that run against a real server (`@pricing/server/testing`): kept off the public entry so
 * a host embedding the server never sees them, and so the public surface is what production code uses.
 */
export { createTestSchema, postgresTestsEnabled, TEST_PG_SECRETS, TEST_PG_URL } from "./db/test-postgres.js";
