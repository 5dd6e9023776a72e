import { createPlanPool } from "../plan-pool.js";
import { ruleJob } from "./plan-jobs.js";

// Plans once and never closes the pool: the process must still end by itself (an idle thread holds nothing open).
const pool = createPlanPool({ size: 1 });
const rows = await pool.plan(ruleJob());
process.stdout.write(`planned ${rows.length}\n`);
