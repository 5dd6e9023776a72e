import {
  ApiError,
  ERROR_CODES,
  type Operation,
  type OperationParams,
  type PartnerErrorCode,
  type RequestContext,
  type TrainResponse,
} from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import type { OperationRow } from "../db/schema.js";

/** The code a failed operation stored, as one of the API's (any other as `internal_error`). */
export function storedErrorCode(row: OperationRow): PartnerErrorCode {
  return (ERROR_CODES as readonly string[]).includes(row.error_code ?? "")
    ? (row.error_code as PartnerErrorCode)
    : "internal_error";
}

/** The row in the API's shape (DESIGN §6): result only once succeeded, error only once failed. */
export function toOperation(row: OperationRow): Operation {
  return {
    operation_id: row.operation_id,
    kind: row.kind,
    company_id: row.company_id,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
    progress: row.status === "queued" ? null : row.progress,
    result:
      row.status === "succeeded" && row.result !== null ? (JSON.parse(row.result) as TrainResponse) : null,
    error: row.status === "failed" ? { code: storedErrorCode(row), message: row.error_message ?? "" } : null,
  };
}

/**
 * `GET /v2/operations/{operation_id}`: the operation when its company is one of the caller's; an unknown id and
 * another partner's operation are the same 404, so ids of other partners cannot be probed.
 */
export async function getOperation(
  ctx: ServerContext,
  input: OperationParams,
  request: RequestContext,
): Promise<Operation> {
  const row = await ctx.repositories.operations.get(input.operation_id);
  const partnerId = request.principal?.partnerId;
  if (row === undefined || partnerId === undefined) throw new ApiError("operation_not_found");
  if (!(await ctx.auth.isCompanyAccessible(partnerId, row.company_id)))
    throw new ApiError("operation_not_found");
  return toOperation(row);
}
