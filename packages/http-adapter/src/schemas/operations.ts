import { z } from "zod";
import { errorCodeSchema } from "../errors.js";
import { companyIdSchema, timestampSchema } from "./common.js";
import { trainResponseSchema } from "./model.js";

/** `op_` + a ULID. */
export const operationIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "must be letters, digits, '_' or '-'")
  .meta({ examples: ["op_01JD2W5K3Q7Y8Z9A0B1C2D3E4F"] });

export const operationParamsSchema = z.strictObject({ operation_id: operationIdSchema });

export const operationSchema = z
  .object({
    operation_id: operationIdSchema,
    kind: z.literal("train"),
    company_id: companyIdSchema,
    status: z
      .enum(["queued", "running", "succeeded", "failed"])
      .describe("queued: waiting for a worker; running: a worker is training; then succeeded or failed."),
    created_at: timestampSchema,
    updated_at: timestampSchema,
    progress: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe("Share of the training done, 0..1; null while queued."),
    result: trainResponseSchema.nullable().describe("The train response, once succeeded."),
    error: z
      .object({ code: errorCodeSchema, message: z.string() })
      .nullable()
      .describe("Why it failed (the code the synchronous call would have answered with), once failed."),
  })
  .meta({
    id: "Operation",
    description: "An asynchronous training (`POST /v2/model/train` with `Prefer: respond-async`).",
    examples: [
      {
        operation_id: "op_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
        kind: "train",
        company_id: "acme-eu",
        status: "running",
        created_at: "2026-11-21T12:00:00.000Z",
        updated_at: "2026-11-21T12:00:12.000Z",
        progress: 0.4,
        result: null,
        error: null,
      },
    ],
  });

export type OperationParams = z.infer<typeof operationParamsSchema>;
export type Operation = z.infer<typeof operationSchema>;
