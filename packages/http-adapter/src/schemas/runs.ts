import { z } from "zod";
import { companyIdSchema, queryIntegerSchema } from "./common.js";
import { exampleRun, runSchema } from "./recommendations.js";

export const listRunsQuerySchema = z.strictObject({
  company_id: companyIdSchema,
  limit: queryIntegerSchema({ min: 1, max: 100, default: 20 }),
  offset: queryIntegerSchema({ min: 0, default: 0 }),
});

export const listedRunSchema = runSchema
  .extend({ runs_ago: z.number().int().describe("Offset to pass as runs_ago to read this run.") })
  .meta({ id: "ListedRun" });

export const listRunsResponseSchema = z
  .object({
    company_id: companyIdSchema,
    total: z.number().int(),
    runs: z.array(listedRunSchema).describe("Newest first."),
  })
  .meta({
    id: "RunsResponse",
    examples: [
      {
        company_id: "acme-eu",
        total: 1,
        runs: [
          {
            ...exampleRun,
            runs_ago: 0,
          },
        ],
      },
    ],
  });

export type ListRunsQuery = z.output<typeof listRunsQuerySchema>;
export type ListedRun = z.output<typeof listedRunSchema>;
export type ListRunsResponse = z.output<typeof listRunsResponseSchema>;
