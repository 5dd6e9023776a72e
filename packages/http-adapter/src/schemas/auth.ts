import { z } from "zod";

export const tokenRequestSchema = z
  .strictObject({
    access_key: z.string().min(1).max(256).describe("Access key issued to the partner."),
    secret_key: z
      .string()
      .min(1)
      .max(256)
      .describe("Secret key issued to the partner; send it nowhere else."),
  })
  .meta({
    id: "TokenRequest",
    examples: [{ access_key: "ak_3b9f0c1d2e4a5b6c7d8e9f0a", secret_key: "sk_<SECRET_KEY>" }],
  });

export const tokenResponseSchema = z
  .object({
    access_token: z.string().describe("JWT to send as `Authorization: Bearer <token>`."),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().describe("Lifetime in seconds (900)."),
  })
  .meta({
    id: "Token",
    examples: [
      { access_token: "eyJhbGciOiJIUzI1NiIsImtpZCI6Ii4uLiJ9.e30.sig", token_type: "Bearer", expires_in: 900 },
    ],
  });

export type TokenRequest = z.infer<typeof tokenRequestSchema>;
export type TokenResponse = z.output<typeof tokenResponseSchema>;
