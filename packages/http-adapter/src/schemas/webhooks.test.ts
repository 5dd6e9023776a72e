import { describe, expect, it } from "vitest";
import { renderOpenApiDocument } from "../openapi-document.js";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_PAYLOADS, webhookEventSchema } from "./webhooks.js";

interface WebhookOperation {
  post: {
    parameters: { $ref: string }[];
    requestBody: { content: { "application/json": { schema: { $ref: string } } } };
  };
}

describe("webhook payloads in the OpenAPI document", () => {
  it("documents each event type in `webhooks`, with the Standard Webhooks headers and its payload schema", async () => {
    const doc = (await renderOpenApiDocument()) as {
      webhooks: Record<string, WebhookOperation>;
      components: { schemas: Record<string, { properties: { type: { const: string } } }> };
    };
    expect(Object.keys(doc.webhooks)).toEqual([...WEBHOOK_EVENT_TYPES]);
    for (const type of WEBHOOK_EVENT_TYPES) {
      const operation = doc.webhooks[type]?.post;
      expect(operation?.parameters.map((p) => p.$ref.split("/").at(-1))).toEqual([
        "WebhookId",
        "WebhookTimestamp",
        "WebhookSignature",
      ]);
      const ref = operation?.requestBody.content["application/json"].schema.$ref ?? "";
      expect(ref).toBe(`#/components/schemas/${WEBHOOK_PAYLOADS[type].component}`);
      expect(doc.components.schemas[WEBHOOK_PAYLOADS[type].component]?.properties.type.const).toBe(type);
    }
  });

  it("refuses a body whose data does not match its type", () => {
    const body = {
      type: "model.trained",
      timestamp: "2026-11-23T10:00:00.000Z",
      data: { company_id: "acme", model_id: "mdl_1", version: 1, trained_at: "2026-11-23T10:00:00.000Z" },
    };
    expect(webhookEventSchema.safeParse(body).success).toBe(false);
    expect(
      webhookEventSchema.safeParse({ ...body, data: { ...body.data, auto_approved: false } }).success,
    ).toBe(true);
  });
});
