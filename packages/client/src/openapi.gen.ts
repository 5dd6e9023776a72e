// Generated from the server's OpenAPI document by `pnpm --filter @pricing/client gen:types`. Do not edit.
// A test (codegen/generate-types.test.ts) fails when this file and the served document disagree.

export interface paths {
    "/auth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange keys for a token
         * @description Exchanges the partner's long-lived key pair for a bearer JWT valid 900 seconds. Unknown key, wrong secret, superseded key and disabled partner all give the same 401 invalid_credentials. Limited per access key and per client address.
         */
        post: operations["exchangeToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/recommendations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read persisted RL recommendations
         * @description Recommendations of the persisted run selected by runs_ago (0 = latest), sorted by date then product_id and limited to [start_date, end_date].
         */
        get: operations["getRecommendations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List persisted RL runs
         * @description Run metadata newest first, each with the runs_ago offset that reads it.
         */
        get: operations["listRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/recommendations/compute": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Compute RL recommendations on demand
         * @description Synchronous and expensive; prefer reading persisted runs. dry_run computes without persisting. An answer over the server's size limit (products x days, each explained price counting twice; 40,000 by default) is refused before planning with 422 answer_too_large: ask for fewer days at a time (start_date, end_date). Limited per partner to 60 per minute (counted apart from the other calls), and to 2 compute or train requests in flight per partner (4 on the server); beyond either, 429 rate_limited with Retry-After. A request holds its slot until its answer is sent or its client goes away (a client timeout, a closed connection), whichever comes first; a compute whose client goes away is cancelled.
         */
        post: operations["computeRecommendations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/model/train": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Train a fresh RL policy artifact
         * @description Synchronous; typically 30 seconds to 5 minutes (the request waits for the training, whichever process runs it). With `Prefer: respond-async` (RFC 7240) it answers at once with 202, the operation, and its URL in `Location`; poll GET /v2/operations/{operation_id}. The artifact becomes latest; with auto_approve also approved. One training per company at a time: another is 409 training_in_progress. Limited per partner to 10 per 60 minutes (counted apart from the other calls), and to 2 compute or train requests in flight per partner (4 on the server); beyond either, 429 rate_limited with Retry-After. A request holds its slot until its answer is sent or its client goes away (a client timeout, a closed connection), whichever comes first; a training whose client goes away still runs to its end (retry with the same Idempotency-Key for its answer).
         */
        post: operations["trainModel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/model/promote": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Promote a trained artifact to the approved slot
         * @description model_id must equal the current latest artifact id (read it from GET /v2/model), else 409.
         */
        post: operations["promoteModel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/model": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Inspect the active V2 policy
         * @description Reports the source backing RL inference for the company and both slots.
         */
        get: operations["getModel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/model/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List trained artifacts and model slot changes
         * @description Stored artifacts (newest version first) with when each was last approved, and the slot changes (trained, promoted, rolled_back; newest first). limit and offset page both lists. An artifact with approved_from set is a rollback target for POST /v2/model/rollback.
         */
        get: operations["getModelHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/model/rollback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve again an artifact approved before
         * @description model_id must have been approved before (GET /v2/model/history: approved_from set) and its artifact must still load and verify, else 422 rollback_target_invalid. expected_approved_model_id must equal the current approved artifact (null: none approved), else 409 approved_model_stale and nothing changes. Rolling back to the artifact approved now changes nothing. Answers with the model report.
         */
        post: operations["rollbackModel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/operations/{operation_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow an asynchronous training
         * @description The operation a `POST /v2/model/train` with `Prefer: respond-async` started: queued, running (with progress), then succeeded (result: the train response) or failed (error). An operation of a company that is not the caller's is the same 404 operation_not_found as an unknown id.
         */
        get: operations["getOperation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/overrides": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a company's overrides
         * @description By product, then start date; limit/offset page them.
         */
        get: operations["listOverrides"];
        put?: never;
        /**
         * Pin or narrow products' prices over dates
         * @description One override, or `{company_id, overrides: [...]}` with up to 200 (all or nothing). A pin (price) prices its dates as it is (items show source override and its override_id; it wins over the max daily change, and the exploration cap and the jump guard never move it); a narrowing (min_price / max_price) keeps the model's source and shows binding override where it moved the price. Dates from the company's today on (400 before it); an override overlapping another of the same product is a 409 override_overlap; a pin must be printable in the product's currency and endings (422 override_not_printable) and inside its guardrails (422 override_outside_guardrails). Overrides apply to runs computed after them; recompute=true also persists a fresh on-demand run (and sends recommendations.updated).
         */
        post: operations["createOverrides"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/overrides/{override_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove an override
         * @description Runs computed after it no longer apply it (persisted runs never change). An unknown id, one already removed and another partner's are the same 404 override_not_found.
         */
        delete: operations["deleteOverride"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "recommendations.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * recommendations.updated (sent to your endpoint)
         * @description A run was persisted for one of your companies (the nightly batch or a compute). Sent as a POST to each endpoint the operator registered for you (`pricing webhook add`); only events of companies mapped to you. Answer 2xx within 10 seconds; any other answer, a redirect or a timeout is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the delivery is marked failed.
         */
        post: operations["webhook_recommendations_updated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "model.trained": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * model.trained (sent to your endpoint)
         * @description A training committed a new model version into the latest slot of one of your companies. Sent as a POST to each endpoint the operator registered for you (`pricing webhook add`); only events of companies mapped to you. Answer 2xx within 10 seconds; any other answer, a redirect or a timeout is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the delivery is marked failed.
         */
        post: operations["webhook_model_trained"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "model.promoted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * model.promoted (sent to your endpoint)
         * @description The approved model of one of your companies changed: a promote, a training with auto_approve, or a rollback. Sent as a POST to each endpoint the operator registered for you (`pricing webhook add`); only events of companies mapped to you. Answer 2xx within 10 seconds; any other answer, a redirect or a timeout is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the delivery is marked failed.
         */
        post: operations["webhook_model_promoted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /**
         * @example {
         *       "access_key": "ak_3b9f0c1d2e4a5b6c7d8e9f0a",
         *       "secret_key": "sk_<SECRET_KEY>"
         *     }
         */
        TokenRequestInput: {
            /** @description Access key issued to the partner. */
            access_key: string;
            /** @description Secret key issued to the partner; send it nowhere else. */
            secret_key: string;
        };
        /**
         * @description Envelope of every 4xx and 5xx response.
         * @example {
         *       "error": {
         *         "code": "company_not_found",
         *         "message": "Company not found.",
         *         "request_id": "3f1c8a52-7d0e-4b8e-9a55-0c2f4b8f6e21"
         *       }
         *     }
         */
        ErrorEnvelope: {
            error: {
                /**
                 * @description Machine-readable error code.
                 * @enum {string}
                 */
                code: "validation_error" | "invalid_credentials" | "invalid_token" | "token_expired" | "company_not_found" | "no_run_at_offset" | "not_found" | "operation_not_found" | "override_not_found" | "method_not_allowed" | "request_timeout" | "model_id_stale" | "training_in_progress" | "slots_unreadable" | "idempotency_key_in_progress" | "approved_model_stale" | "override_overlap" | "payload_too_large" | "unsupported_media_type" | "insufficient_history" | "idempotency_key_reused" | "rollback_target_invalid" | "override_outside_guardrails" | "override_not_printable" | "answer_too_large" | "headers_too_large" | "rate_limited" | "internal_error" | "unavailable";
                /** @description Human-readable text; never contains secrets or internals. */
                message: string;
                /**
                 * Format: uuid
                 * @description Identifier of this request, also sent as the x-request-id header.
                 */
                request_id: string;
            };
        };
        ExplorationReport: {
            /**
             * @description The company's exploration setting.
             * @enum {string}
             */
            exploration: "off" | "cautious" | "free";
            /** @description The company's today the prices are planned for (YYYY-MM-DD). */
            as_of: string;
            products: {
                product_id: string;
                /** @description Lowest and highest price the history has sold at; null without sales. */
                observed_price_range: [
                    number,
                    number
                ] | null;
                /** @description Today's served price. */
                recommended_price: number;
                /** @description How far the recommended price lies beyond the observed range, in percent of its nearest end (0 inside, negative below it); null without sales. */
                departure_pct: number | null;
                exploratory: boolean;
            }[];
        };
        /**
         * @example {
         *       "company_id": "acme-eu",
         *       "source": "rule",
         *       "model_id": null,
         *       "latest": null,
         *       "approved": null,
         *       "fallback_reason": "no_artifact",
         *       "exploration": {
         *         "exploration": "cautious",
         *         "as_of": "2026-11-22",
         *         "products": [
         *           {
         *             "product_id": "sku-1",
         *             "observed_price_range": [
         *               17.99,
         *               21.99
         *             ],
         *             "recommended_price": 18.99,
         *             "departure_pct": 0,
         *             "exploratory": false
         *           }
         *         ]
         *       }
         *     }
         */
        ModelReport: {
            /**
             * @description Target company; only companies mapped to the partner are reachable.
             * @example acme-eu
             */
            company_id: string;
            /**
             * @description What backs inference.
             * @enum {string}
             */
            source: "approved" | "latest" | "rule";
            /** @description The artifact backing inference; null for rule. */
            model_id: string | null;
            latest: {
                /** @example mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F */
                model_id: string;
                version: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T02:00:00.000Z
                 */
                trained_at: string;
                /** @description Evaluation metrics of the artifact (numbers), e.g. expected margin vs rule, training effort. */
                metrics: {
                    /** @description Exact expected margin (currency) of the policy over the horizon, under the fitted demand model. */
                    policyMargin?: number;
                    /** @description Exact expected margin of the rule under the same model, over the products the rule prices. */
                    ruleMargin?: number;
                    /** @description 100 * (policyMargin / ruleMargin - 1). */
                    upliftPct?: number;
                    /** @description The policy network's own estimate of policyMargin (its value of the first day's states); far from policyMargin means the network's values are off even where its prices are good. */
                    networkEstimatedMargin?: number;
                    /**
                     * @deprecated
                     * @description Deprecated name of networkEstimatedMargin (same value); removed in the next release.
                     */
                    estimatedMargin?: number;
                    /** @description Interval of upliftPct over the plausible demand models of the safety check (the fitted parameters -/+ 2 standard errors): low is the rule-relative gain where each product's policy does worst against the rule, high its mirror about upliftPct; null when the artifact has no safety report. */
                    upliftIntervalPct?: {
                        low: number;
                        high: number;
                    } | null;
                } & {
                    [key: string]: number;
                };
            } | null;
            approved: {
                /** @example mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F */
                model_id: string;
                version: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T02:00:00.000Z
                 */
                trained_at: string;
                /** @description Evaluation metrics of the artifact (numbers), e.g. expected margin vs rule, training effort. */
                metrics: {
                    /** @description Exact expected margin (currency) of the policy over the horizon, under the fitted demand model. */
                    policyMargin?: number;
                    /** @description Exact expected margin of the rule under the same model, over the products the rule prices. */
                    ruleMargin?: number;
                    /** @description 100 * (policyMargin / ruleMargin - 1). */
                    upliftPct?: number;
                    /** @description The policy network's own estimate of policyMargin (its value of the first day's states); far from policyMargin means the network's values are off even where its prices are good. */
                    networkEstimatedMargin?: number;
                    /**
                     * @deprecated
                     * @description Deprecated name of networkEstimatedMargin (same value); removed in the next release.
                     */
                    estimatedMargin?: number;
                    /** @description Interval of upliftPct over the plausible demand models of the safety check (the fitted parameters -/+ 2 standard errors): low is the rule-relative gain where each product's policy does worst against the rule, high its mirror about upliftPct; null when the artifact has no safety report. */
                    upliftIntervalPct?: {
                        low: number;
                        high: number;
                    } | null;
                } & {
                    [key: string]: number;
                };
                /**
                 * Format: date-time
                 * @example 2026-11-21T02:00:00.000Z
                 */
                approved_at: string;
            } | null;
            /** @description Why the preferred source did not serve: no slot set, an artifact that fails to load or verify, one made by an engine this one cannot read, an unreadable slot record, or the rule forced by the operator; null when it served. */
            fallback_reason: ("no_artifact" | "artifact_unreadable" | "artifact_incompatible" | "slots_unreadable" | "forced_rule") | null;
            /** @description How far today's served prices leave the prices the history has seen, per product. */
            exploration?: components["schemas"]["ExplorationReport"];
        };
        /**
         * @example {
         *       "company_id": "acme-eu",
         *       "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *       "version": 3,
         *       "trained_at": "2026-11-22T10:15:42.000Z",
         *       "auto_approved": false,
         *       "slots": {
         *         "latest": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *         "approved": "mdl_01JCZZ8XH2M4N6P8R0S2T4V6W8"
         *       },
         *       "metrics": {
         *         "policyMargin": 51258.51,
         *         "ruleMargin": 49875.62,
         *         "upliftPct": 2.77,
         *         "upliftIntervalPct": {
         *           "low": 0.41,
         *           "high": 5.13
         *         },
         *         "trainingSeconds": 31.2,
         *         "episodes": 48
         *       }
         *     }
         */
        TrainResponse: {
            /**
             * @description Target company; only companies mapped to the partner are reachable.
             * @example acme-eu
             */
            company_id: string;
            /** @example mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F */
            model_id: string;
            version: number;
            /**
             * Format: date-time
             * @example 2026-11-21T02:00:00.000Z
             */
            trained_at: string;
            auto_approved: boolean;
            slots: {
                latest: string | null;
                approved: string | null;
            };
            /** @description Evaluation metrics of the artifact (numbers), e.g. expected margin vs rule, training effort. */
            metrics: {
                /** @description Exact expected margin (currency) of the policy over the horizon, under the fitted demand model. */
                policyMargin?: number;
                /** @description Exact expected margin of the rule under the same model, over the products the rule prices. */
                ruleMargin?: number;
                /** @description 100 * (policyMargin / ruleMargin - 1). */
                upliftPct?: number;
                /** @description The policy network's own estimate of policyMargin (its value of the first day's states); far from policyMargin means the network's values are off even where its prices are good. */
                networkEstimatedMargin?: number;
                /**
                 * @deprecated
                 * @description Deprecated name of networkEstimatedMargin (same value); removed in the next release.
                 */
                estimatedMargin?: number;
                /** @description Interval of upliftPct over the plausible demand models of the safety check (the fitted parameters -/+ 2 standard errors): low is the rule-relative gain where each product's policy does worst against the rule, high its mirror about upliftPct; null when the artifact has no safety report. */
                upliftIntervalPct?: {
                    low: number;
                    high: number;
                } | null;
            } & {
                [key: string]: number;
            };
        };
        HistoryArtifact: {
            /** @example mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F */
            model_id: string;
            version: number;
            /**
             * Format: date-time
             * @example 2026-11-21T02:00:00.000Z
             */
            trained_at: string;
            /** @description Evaluation metrics of the artifact (numbers), e.g. expected margin vs rule, training effort. */
            metrics: {
                /** @description Exact expected margin (currency) of the policy over the horizon, under the fitted demand model. */
                policyMargin?: number;
                /** @description Exact expected margin of the rule under the same model, over the products the rule prices. */
                ruleMargin?: number;
                /** @description 100 * (policyMargin / ruleMargin - 1). */
                upliftPct?: number;
                /** @description The policy network's own estimate of policyMargin (its value of the first day's states); far from policyMargin means the network's values are off even where its prices are good. */
                networkEstimatedMargin?: number;
                /**
                 * @deprecated
                 * @description Deprecated name of networkEstimatedMargin (same value); removed in the next release.
                 */
                estimatedMargin?: number;
                /** @description Interval of upliftPct over the plausible demand models of the safety check (the fitted parameters -/+ 2 standard errors): low is the rule-relative gain where each product's policy does worst against the rule, high its mirror about upliftPct; null when the artifact has no safety report. */
                upliftIntervalPct?: {
                    low: number;
                    high: number;
                } | null;
            } & {
                [key: string]: number;
            };
            /** @description When the artifact last became approved; null when it never was (as far as the history tells). */
            approved_from: string | null;
            /** @description When another artifact last replaced it as approved; null while it is approved, or never was. */
            approved_until: string | null;
        };
        ModelEvent: {
            /**
             * Format: date-time
             * @example 2026-11-21T02:00:00.000Z
             */
            at: string;
            /** @enum {string} */
            kind: "trained" | "promoted" | "rolled_back";
            /** @example mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F */
            model_id: string;
            /** @description Who acted: the partner id for API calls, "operator" for the CLI; null for events recorded before this was kept. A train with auto_approve gives a trained and a promoted event at the same time. */
            by: string | null;
        };
        /**
         * @example {
         *       "company_id": "acme-eu",
         *       "total_artifacts": 1,
         *       "total_events": 2,
         *       "artifacts": [
         *         {
         *           "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *           "version": 1,
         *           "trained_at": "2026-11-22T10:15:42.000Z",
         *           "metrics": {
         *             "policyMargin": 51258.51,
         *             "ruleMargin": 49875.62,
         *             "upliftPct": 2.77
         *           },
         *           "approved_from": "2026-11-22T10:20:00.000Z",
         *           "approved_until": null
         *         }
         *       ],
         *       "events": [
         *         {
         *           "at": "2026-11-22T10:20:00.000Z",
         *           "kind": "promoted",
         *           "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *           "by": "ptr_01JD2W0KQ3M4N5P6R7S8T9V0W1"
         *         },
         *         {
         *           "at": "2026-11-22T10:15:42.000Z",
         *           "kind": "trained",
         *           "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *           "by": "ptr_01JD2W0KQ3M4N5P6R7S8T9V0W1"
         *         }
         *       ]
         *     }
         */
        ModelHistory: {
            /**
             * @description Target company; only companies mapped to the partner are reachable.
             * @example acme-eu
             */
            company_id: string;
            /** @description Stored artifacts in all (limit and offset page through them). */
            total_artifacts: number;
            /** @description Kept events in all (limit and offset page through them). */
            total_events: number;
            /** @description Stored artifacts, newest version first. */
            artifacts: components["schemas"]["HistoryArtifact"][];
            /** @description Slot changes, newest first. */
            events: components["schemas"]["ModelEvent"][];
        };
        /**
         * @example {
         *       "rule_price": 18.99,
         *       "weekday_index": 1.12,
         *       "stock_cover_days": 9.4,
         *       "elasticity": 1.8,
         *       "elasticity_se": 0.21,
         *       "observed_price_range": [
         *         17.99,
         *         21.99
         *       ],
         *       "binding": null
         *     }
         */
        Explanation: {
            /** @description The rule's own price before the guardrails and the max daily change (base price x weekday index ^ k x stock pacing); the item's rule_price is this price bound. */
            rule_price: number;
            /** @description Units sold on the date's weekday relative to the average day, from the history (1 without). */
            weekday_index: number;
            /** @description Stock at the start of the date divided by the date's expected_units; null when the stock is unlimited or expected_units is 0. */
            stock_cover_days: number | null;
            /** @description Price elasticity of the demand fit; null when the fit does not know the product. */
            elasticity: number | null;
            /** @description Its standard error; null with it (or when not finite). */
            elasticity_se: number | null;
            /** @description Lowest and highest price the history sold at; the base price twice without history. */
            observed_price_range: [
                number,
                number
            ];
            /** @description The constraint that moved the price from what the model, learner or rule chose: a guardrail (also where it overrides the max daily change), the max daily change (also where no printable price lay within it and the nearest beyond it in the direction of the change was taken), the exploration cap on a model's price, or a partner override's min_price / max_price; null when none did (a price moved only to the nearest printable price is not bound). */
            binding: ("min_price" | "max_price" | "max_daily_change" | "exploration_limit" | "override") | null;
        };
        /**
         * @example {
         *       "product_id": "sku-1",
         *       "date": "2026-11-22",
         *       "price": 19.49,
         *       "currency": "EUR",
         *       "base_price": 19.99,
         *       "rule_price": 18.99,
         *       "expected_units": 12.4,
         *       "expected_revenue": 241.68,
         *       "source": "approved",
         *       "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *       "expected_units_p10": 8,
         *       "expected_units_p90": 17,
         *       "exploratory": false,
         *       "lowest_price_30d": 18.99,
         *       "override_id": null
         *     }
         */
        Recommendation: {
            product_id: string;
            /**
             * Format: date
             * @example 2026-11-21
             */
            date: string;
            /** @description Recommended price in `currency`: on its minor unit (Intl's digits: JPY 0, EUR 2, KWD 3) and one of the product's price endings where they fit the currency, or a partner's pinned price. */
            price: number;
            /** @example EUR */
            currency: string;
            base_price: number;
            /** @description What the rule-based fallback would charge. */
            rule_price: number;
            expected_units: number;
            expected_revenue: number;
            /** @description What priced the item: the active source's, or `override` for a partner's pinned price. */
            source: ("approved" | "latest" | "rule") | "override";
            model_id: string | null;
            /** @description The partner override (POST /v2/overrides) in force on the item's date: its pin priced the item (source override) or its min_price / max_price narrowed the guardrails; null elsewhere and on runs persisted before overrides existed. */
            override_id: string | null;
            /** @description The lowest price of the product on the 30 days before the item's date (the sales history first, then the run's own earlier days), the reference of an announced price reduction in the EU (Directive 98/6/EC Art. 6a); null where no price is known and on runs persisted before it existed. */
            lowest_price_30d: number | null;
            /** @description Units at the 10th percentile of the day's sales (the demand model's uncertainty and the sales noise together), <= expected_units; null on runs persisted before it existed. */
            expected_units_p10: number | null;
            /** @description Units at the 90th percentile, >= expected_units; null on runs persisted before it existed. */
            expected_units_p90: number | null;
            /** @description The price was chosen partly to learn, or leaves the range of prices the history has sold at; null on runs persisted before it existed. */
            exploratory: boolean | null;
            /** @description Only with explain=true: why the price is what it is, as computed when the run was persisted; null on runs persisted before explanations existed. */
            explanation?: components["schemas"]["Explanation"] | null;
        };
        /**
         * @example {
         *       "run_id": "run_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *       "company_id": "acme-eu",
         *       "kind": "nightly",
         *       "as_of": "2026-11-21",
         *       "created_at": "2026-11-21T02:00:03.120Z",
         *       "source": "approved",
         *       "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *       "start_date": "2026-11-22",
         *       "end_date": "2026-12-05",
         *       "products": 12,
         *       "recommendation_count": 168
         *     }
         */
        Run: {
            run_id: string;
            /**
             * @description Target company; only companies mapped to the partner are reachable.
             * @example acme-eu
             */
            company_id: string;
            /** @enum {string} */
            kind: "nightly" | "on_demand";
            /**
             * Format: date
             * @example 2026-11-21
             */
            as_of: string;
            /**
             * Format: date-time
             * @example 2026-11-21T02:00:00.000Z
             */
            created_at: string;
            /**
             * @description What backs inference.
             * @enum {string}
             */
            source: "approved" | "latest" | "rule";
            model_id: string | null;
            /**
             * Format: date
             * @example 2026-11-21
             */
            start_date: string;
            /**
             * Format: date
             * @example 2026-11-21
             */
            end_date: string;
            products: number;
            recommendation_count: number;
        };
        /**
         * @example {
         *       "company_id": "acme-eu",
         *       "run": {
         *         "run_id": "run_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *         "company_id": "acme-eu",
         *         "kind": "nightly",
         *         "as_of": "2026-11-21",
         *         "created_at": "2026-11-21T02:00:03.120Z",
         *         "source": "approved",
         *         "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *         "start_date": "2026-11-22",
         *         "end_date": "2026-12-05",
         *         "products": 12,
         *         "recommendation_count": 168
         *       },
         *       "recommendations": [
         *         {
         *           "product_id": "sku-1",
         *           "date": "2026-11-22",
         *           "price": 19.49,
         *           "currency": "EUR",
         *           "base_price": 19.99,
         *           "rule_price": 18.99,
         *           "expected_units": 12.4,
         *           "expected_revenue": 241.68,
         *           "source": "approved",
         *           "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *           "expected_units_p10": 8,
         *           "expected_units_p90": 17,
         *           "exploratory": false,
         *           "lowest_price_30d": 18.99,
         *           "override_id": null
         *         }
         *       ]
         *     }
         */
        RecommendationsResponse: {
            /**
             * @description Target company; only companies mapped to the partner are reachable.
             * @example acme-eu
             */
            company_id: string;
            run: components["schemas"]["Run"];
            recommendations: components["schemas"]["Recommendation"][];
        };
        /**
         * @example {
         *       "company_id": "acme-eu",
         *       "persisted": false,
         *       "run": null,
         *       "source": "approved",
         *       "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *       "recommendations": [
         *         {
         *           "product_id": "sku-1",
         *           "date": "2026-11-22",
         *           "price": 19.49,
         *           "currency": "EUR",
         *           "base_price": 19.99,
         *           "rule_price": 18.99,
         *           "expected_units": 12.4,
         *           "expected_revenue": 241.68,
         *           "source": "approved",
         *           "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *           "expected_units_p10": 8,
         *           "expected_units_p90": 17,
         *           "exploratory": false,
         *           "lowest_price_30d": 18.99,
         *           "override_id": null
         *         }
         *       ]
         *     }
         */
        ComputeResponse: {
            /**
             * @description Target company; only companies mapped to the partner are reachable.
             * @example acme-eu
             */
            company_id: string;
            persisted: boolean;
            /** @description The persisted run; null on a dry run. */
            run: components["schemas"]["Run"] | null;
            /**
             * @description What backs inference.
             * @enum {string}
             */
            source: "approved" | "latest" | "rule";
            model_id: string | null;
            recommendations: components["schemas"]["Recommendation"][];
        };
        ListedRun: {
            run_id: string;
            /**
             * @description Target company; only companies mapped to the partner are reachable.
             * @example acme-eu
             */
            company_id: string;
            /** @enum {string} */
            kind: "nightly" | "on_demand";
            /**
             * Format: date
             * @example 2026-11-21
             */
            as_of: string;
            /**
             * Format: date-time
             * @example 2026-11-21T02:00:00.000Z
             */
            created_at: string;
            /**
             * @description What backs inference.
             * @enum {string}
             */
            source: "approved" | "latest" | "rule";
            model_id: string | null;
            /**
             * Format: date
             * @example 2026-11-21
             */
            start_date: string;
            /**
             * Format: date
             * @example 2026-11-21
             */
            end_date: string;
            products: number;
            recommendation_count: number;
            /** @description Offset to pass as runs_ago to read this run. */
            runs_ago: number;
        };
        /**
         * @example {
         *       "company_id": "acme-eu",
         *       "total": 1,
         *       "runs": [
         *         {
         *           "run_id": "run_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *           "company_id": "acme-eu",
         *           "kind": "nightly",
         *           "as_of": "2026-11-21",
         *           "created_at": "2026-11-21T02:00:03.120Z",
         *           "source": "approved",
         *           "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *           "start_date": "2026-11-22",
         *           "end_date": "2026-12-05",
         *           "products": 12,
         *           "recommendation_count": 168,
         *           "runs_ago": 0
         *         }
         *       ]
         *     }
         */
        RunsResponse: {
            /**
             * @description Target company; only companies mapped to the partner are reachable.
             * @example acme-eu
             */
            company_id: string;
            total: number;
            /** @description Newest first. */
            runs: components["schemas"]["ListedRun"][];
        };
        /**
         * @example {
         *       "access_token": "eyJhbGciOiJIUzI1NiIsImtpZCI6Ii4uLiJ9.e30.sig",
         *       "token_type": "Bearer",
         *       "expires_in": 900
         *     }
         */
        Token: {
            /** @description JWT to send as `Authorization: Bearer <token>`. */
            access_token: string;
            /** @constant */
            token_type: "Bearer";
            /** @description Lifetime in seconds (900). */
            expires_in: number;
        };
        /**
         * @description An asynchronous training (`POST /v2/model/train` with `Prefer: respond-async`).
         * @example {
         *       "operation_id": "op_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *       "kind": "train",
         *       "company_id": "acme-eu",
         *       "status": "running",
         *       "created_at": "2026-11-21T12:00:00.000Z",
         *       "updated_at": "2026-11-21T12:00:12.000Z",
         *       "progress": 0.4,
         *       "result": null,
         *       "error": null
         *     }
         */
        Operation: {
            /** @example op_01JD2W5K3Q7Y8Z9A0B1C2D3E4F */
            operation_id: string;
            /** @constant */
            kind: "train";
            /**
             * @description Target company; only companies mapped to the partner are reachable.
             * @example acme-eu
             */
            company_id: string;
            /**
             * @description queued: waiting for a worker; running: a worker is training; then succeeded or failed.
             * @enum {string}
             */
            status: "queued" | "running" | "succeeded" | "failed";
            /**
             * Format: date-time
             * @example 2026-11-21T02:00:00.000Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T02:00:00.000Z
             */
            updated_at: string;
            /** @description Share of the training done, 0..1; null while queued. */
            progress: number | null;
            /** @description The train response, once succeeded. */
            result: components["schemas"]["TrainResponse"] | null;
            /** @description Why it failed (the code the synchronous call would have answered with), once failed. */
            error: {
                /** @enum {string} */
                code: "validation_error" | "invalid_credentials" | "invalid_token" | "token_expired" | "company_not_found" | "no_run_at_offset" | "not_found" | "operation_not_found" | "override_not_found" | "method_not_allowed" | "request_timeout" | "model_id_stale" | "training_in_progress" | "slots_unreadable" | "idempotency_key_in_progress" | "approved_model_stale" | "override_overlap" | "payload_too_large" | "unsupported_media_type" | "insufficient_history" | "idempotency_key_reused" | "rollback_target_invalid" | "override_outside_guardrails" | "override_not_printable" | "answer_too_large" | "headers_too_large" | "rate_limited" | "internal_error" | "unavailable";
                message: string;
            } | null;
        };
        /**
         * @example {
         *       "override_id": "ovr_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
         *       "company_id": "acme-eu",
         *       "product_id": "sku-1",
         *       "start_date": "2026-11-27",
         *       "end_date": "2026-11-29",
         *       "price": 17.99,
         *       "min_price": null,
         *       "max_price": null,
         *       "note": "printed in the weekly flyer",
         *       "created_at": "2026-11-21T10:00:00.000Z"
         *     }
         */
        Override: {
            override_id: string;
            /**
             * @description Target company; only companies mapped to the partner are reachable.
             * @example acme-eu
             */
            company_id: string;
            product_id: string;
            /**
             * Format: date
             * @example 2026-11-21
             */
            start_date: string;
            /**
             * Format: date
             * @example 2026-11-21
             */
            end_date: string;
            price: number | null;
            min_price: number | null;
            max_price: number | null;
            note: string | null;
            /**
             * Format: date-time
             * @example 2026-11-21T02:00:00.000Z
             */
            created_at: string;
        };
        CreateOverridesResponse: {
            overrides: components["schemas"]["Override"][];
            /** @description With recompute=true, the on-demand run persisted after the overrides; null otherwise. */
            run_id: string | null;
        };
        OverridesResponse: {
            /**
             * @description Target company; only companies mapped to the partner are reachable.
             * @example acme-eu
             */
            company_id: string;
            total: number;
            /** @description By product, then start date. */
            overrides: components["schemas"]["Override"][];
        };
        /** @description A run was persisted for one of your companies (the nightly batch or a compute). */
        RecommendationsUpdatedEvent: {
            /** @constant */
            type: "recommendations.updated";
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339 UTC); the webhook-timestamp header says when this attempt was signed.
             * @example 2026-11-21T02:00:00.000Z
             */
            timestamp: string;
            data: {
                /**
                 * @description Target company; only companies mapped to the partner are reachable.
                 * @example acme-eu
                 */
                company_id: string;
                /** @description The persisted run; read it with GET /v2/recommendations (runs_ago=0). */
                run_id: string;
                /** @enum {string} */
                kind: "nightly" | "on_demand";
                /**
                 * Format: date
                 * @description The company's today the run was priced for.
                 * @example 2026-11-21
                 */
                as_of: string;
                /**
                 * Format: date
                 * @example 2026-11-21
                 */
                start_date: string;
                /**
                 * Format: date
                 * @example 2026-11-21
                 */
                end_date: string;
                /**
                 * @description What backs inference.
                 * @enum {string}
                 */
                source: "approved" | "latest" | "rule";
                model_id: string | null;
            };
        };
        /** @description A training committed a new model version into the latest slot of one of your companies. */
        ModelTrainedEvent: {
            /** @constant */
            type: "model.trained";
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339 UTC); the webhook-timestamp header says when this attempt was signed.
             * @example 2026-11-21T02:00:00.000Z
             */
            timestamp: string;
            data: {
                /**
                 * @description Target company; only companies mapped to the partner are reachable.
                 * @example acme-eu
                 */
                company_id: string;
                /** @example mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F */
                model_id: string;
                version: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T02:00:00.000Z
                 */
                trained_at: string;
                /** @description The training also approved the model (a model.promoted event follows with action auto_approve). */
                auto_approved: boolean;
            };
        };
        /** @description The approved model of one of your companies changed: a promote, a training with auto_approve, or a rollback. */
        ModelPromotedEvent: {
            /** @constant */
            type: "model.promoted";
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339 UTC); the webhook-timestamp header says when this attempt was signed.
             * @example 2026-11-21T02:00:00.000Z
             */
            timestamp: string;
            data: {
                /**
                 * @description Target company; only companies mapped to the partner are reachable.
                 * @example acme-eu
                 */
                company_id: string;
                /**
                 * @description The model now approved.
                 * @example mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F
                 */
                model_id: string;
                version: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T02:00:00.000Z
                 */
                approved_at: string;
                /** @description The model approved before (null: none). */
                previous_model_id: string | null;
                /**
                 * @description promote: POST /v2/model/promote; auto_approve: a training with auto_approve; rollback: a rollback.
                 * @enum {string}
                 */
                action: "promote" | "auto_approve" | "rollback";
            };
        };
    };
    responses: never;
    parameters: {
        /**
         * @description Makes a retry safe (IETF httpapi draft): 1 to 255 printable ASCII characters, unique per request you mean (a UUID), kept 24 hours per partner. The same key with the same method, path and body replays the first response (status, body, Content-Type, Location, Preference-Applied) with Idempotent-Replayed: true; with another body, 422 idempotency_key_reused; while the first is still running, 409 idempotency_key_in_progress with Retry-After. Responses that ask for a retry (5xx, or a 4xx with Retry-After) are not kept, so the retry runs; so is a request whose server died (after a 60 s lease).
         * @example 5f0c9a3e-1b7d-4c2a-9e8f-0d6b2a4c7e19
         */
        IdempotencyKey: string;
        /**
         * @description Content codings you decode, with weights (RFC 9110 §12.5.3): gzip and br are served, compressed once per run and filter; without the header, or accepting neither, the JSON as it is. HTTP clients send it themselves (fetch, Python requests, curl --compressed).
         * @example br, gzip, deflate
         */
        AcceptEncoding: string;
        /**
         * @description ETag(s) of a response you hold, or *: when one matches the current answer (weak comparison), 304 with no body.
         * @example "mB1yQm0c0wKc3QxZ7C8fYd2uJ3i9P4sV"
         */
        IfNoneMatch: string;
        /**
         * @description The event's id (`msg_` + ULID): the same on every retry and every endpoint. Deliveries are at least once: use it to drop duplicates.
         * @example msg_01JD2W5K3Q7Y8Z9A0B1C2D3E4F
         */
        WebhookId: string;
        /**
         * @description Unix seconds when this attempt was signed; refuse a message more than 5 minutes off your clock.
         * @example 1763863200
         */
        WebhookTimestamp: string;
        /**
         * @description Space-separated signatures `v1,<base64>`: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed by the base64-decoded part of your endpoint's `whsec_` secret (Standard Webhooks). Compare in constant time against each; one match is enough.
         * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
         */
        WebhookSignature: string;
    };
    requestBodies: never;
    headers: {
        /** @description true when this is the stored first response to the request's Idempotency-Key. */
        IdempotentReplayed: "true";
        /** @description Strong entity tag of the body; persisted runs never change, so neither does their tag. Send it back in If-None-Match. A coded answer (Content-Encoding) has its own tag. */
        ETag: string;
        /** @description The body's coding (gzip or br) when Accept-Encoding asked for one; absent for JSON as it is. Each coding has its own ETag. */
        ContentEncoding: "gzip" | "br";
        /** @description Accept-Encoding: the answer's coding, and so its ETag, depend on that header. */
        Vary: string;
        /** @description Seconds to wait before retrying. */
        RetryAfter: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    exchangeToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TokenRequestInput"];
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Token"];
                };
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code payload_too_large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unsupported_media_type. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getRecommendations: {
        parameters: {
            query: {
                /**
                 * @description Target company; only companies mapped to the partner are reachable.
                 * @example acme-eu
                 */
                company_id: string;
                /**
                 * @description Inclusive lower bound of the date filter.
                 * @example 2026-11-21
                 */
                start_date?: string;
                /**
                 * @description Inclusive upper bound of the date filter.
                 * @example 2026-11-21
                 */
                end_date?: string;
                /** @description 0 is the latest run, 1 the run before it. */
                runs_ago?: number;
                product_id?: string;
                /** @description true adds `explanation` to each item (stored with the run; the response has its own ETag). */
                explain?: "true" | "false";
            };
            header?: {
                /**
                 * @description ETag(s) of a response you hold, or *: when one matches the current answer (weak comparison), 304 with no body.
                 * @example "mB1yQm0c0wKc3QxZ7C8fYd2uJ3i9P4sV"
                 */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /**
                 * @description Content codings you decode, with weights (RFC 9110 §12.5.3): gzip and br are served, compressed once per run and filter; without the header, or accepting neither, the JSON as it is. HTTP clients send it themselves (fetch, Python requests, curl --compressed).
                 * @example br, gzip, deflate
                 */
                "Accept-Encoding"?: components["parameters"]["AcceptEncoding"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Content-Encoding": components["headers"]["ContentEncoding"];
                    Vary: components["headers"]["Vary"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecommendationsResponse"];
                };
            };
            /** @description Not Modified: If-None-Match matched the current ETag; no body. */
            304: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    Vary: components["headers"]["Vary"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or company_not_found or no_run_at_offset. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listRuns: {
        parameters: {
            query: {
                /**
                 * @description Target company; only companies mapped to the partner are reachable.
                 * @example acme-eu
                 */
                company_id: string;
                limit?: number;
                offset?: number;
            };
            header?: {
                /**
                 * @description ETag(s) of a response you hold, or *: when one matches the current answer (weak comparison), 304 with no body.
                 * @example "mB1yQm0c0wKc3QxZ7C8fYd2uJ3i9P4sV"
                 */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunsResponse"];
                };
            };
            /** @description Not Modified: If-None-Match matched the current ETag; no body. */
            304: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or company_not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    computeRecommendations: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe (IETF httpapi draft): 1 to 255 printable ASCII characters, unique per request you mean (a UUID), kept 24 hours per partner. The same key with the same method, path and body replays the first response (status, body, Content-Type, Location, Preference-Applied) with Idempotent-Replayed: true; with another body, 422 idempotency_key_reused; while the first is still running, 409 idempotency_key_in_progress with Retry-After. Responses that ask for a retry (5xx, or a 4xx with Retry-After) are not kept, so the retry runs; so is a request whose server died (after a 60 s lease).
                 * @example 5f0c9a3e-1b7d-4c2a-9e8f-0d6b2a4c7e19
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "company_id": "acme-eu",
                 *       "dry_run": true
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Target company; only companies mapped to the partner are reachable.
                     * @example acme-eu
                     */
                    company_id: string;
                    /**
                     * @description Compute without persisting a run.
                     * @default false
                     */
                    dry_run?: boolean;
                    /**
                     * @description Adds `explanation` to each item (a persisted run stores them either way).
                     * @default false
                     */
                    explain?: boolean;
                    /**
                     * Format: date
                     * @description First date priced; default the company's today. Not before the company's today (in its time zone) and at most 366 days after it; the range spans at most 366 days. Outside these bounds: 400 validation_error.
                     * @example 2026-11-21
                     */
                    start_date?: string;
                    /**
                     * Format: date
                     * @description Last date priced; default start_date plus the server's run length. Not before the company's today (in its time zone) and at most 366 days after it; the range spans at most 366 days. Outside these bounds: 400 validation_error.
                     * @example 2026-11-21
                     */
                    end_date?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComputeResponse"];
                };
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or company_not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code idempotency_key_in_progress. */
            409: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code payload_too_large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unsupported_media_type. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code answer_too_large or idempotency_key_reused. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    trainModel: {
        parameters: {
            query?: never;
            header?: {
                /** @description `respond-async` to get 202 and an operation instead of waiting for the training. */
                prefer?: string;
                /**
                 * @description Makes a retry safe (IETF httpapi draft): 1 to 255 printable ASCII characters, unique per request you mean (a UUID), kept 24 hours per partner. The same key with the same method, path and body replays the first response (status, body, Content-Type, Location, Preference-Applied) with Idempotent-Replayed: true; with another body, 422 idempotency_key_reused; while the first is still running, 409 idempotency_key_in_progress with Retry-After. Responses that ask for a retry (5xx, or a 4xx with Retry-After) are not kept, so the retry runs; so is a request whose server died (after a 60 s lease).
                 * @example 5f0c9a3e-1b7d-4c2a-9e8f-0d6b2a4c7e19
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "company_id": "acme-eu",
                 *       "auto_approve": false
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Target company; only companies mapped to the partner are reachable.
                     * @example acme-eu
                     */
                    company_id: string;
                    /**
                     * @description Also promote the new artifact to approved.
                     * @default false
                     */
                    auto_approve?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TrainResponse"];
                };
            };
            /** @description Queued (`Prefer: respond-async`): the operation, to poll at `Location`. */
            202: {
                headers: {
                    /** @description URL of the operation, `{base}/v2/operations/{operation_id}`, beginning with the server's configured public URL (never the request's Host). */
                    Location?: string;
                    /** @description `respond-async` (RFC 7240). */
                    "Preference-Applied"?: "respond-async";
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Operation"];
                };
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or company_not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code idempotency_key_in_progress or training_in_progress or slots_unreadable. */
            409: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code payload_too_large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unsupported_media_type. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code idempotency_key_reused or insufficient_history. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    promoteModel: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe (IETF httpapi draft): 1 to 255 printable ASCII characters, unique per request you mean (a UUID), kept 24 hours per partner. The same key with the same method, path and body replays the first response (status, body, Content-Type, Location, Preference-Applied) with Idempotent-Replayed: true; with another body, 422 idempotency_key_reused; while the first is still running, 409 idempotency_key_in_progress with Retry-After. Responses that ask for a retry (5xx, or a 4xx with Retry-After) are not kept, so the retry runs; so is a request whose server died (after a 60 s lease).
                 * @example 5f0c9a3e-1b7d-4c2a-9e8f-0d6b2a4c7e19
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "company_id": "acme-eu",
                 *       "model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Target company; only companies mapped to the partner are reachable.
                     * @example acme-eu
                     */
                    company_id: string;
                    /**
                     * @description Must equal the current latest artifact id.
                     * @example mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F
                     */
                    model_id: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelReport"];
                };
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or company_not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code idempotency_key_in_progress or model_id_stale or slots_unreadable. */
            409: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code payload_too_large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unsupported_media_type. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code idempotency_key_reused. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getModel: {
        parameters: {
            query: {
                /**
                 * @description Target company; only companies mapped to the partner are reachable.
                 * @example acme-eu
                 */
                company_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelReport"];
                };
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or company_not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getModelHistory: {
        parameters: {
            query: {
                /**
                 * @description Target company; only companies mapped to the partner are reachable.
                 * @example acme-eu
                 */
                company_id: string;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelHistory"];
                };
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or company_not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code slots_unreadable. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    rollbackModel: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retry safe (IETF httpapi draft): 1 to 255 printable ASCII characters, unique per request you mean (a UUID), kept 24 hours per partner. The same key with the same method, path and body replays the first response (status, body, Content-Type, Location, Preference-Applied) with Idempotent-Replayed: true; with another body, 422 idempotency_key_reused; while the first is still running, 409 idempotency_key_in_progress with Retry-After. Responses that ask for a retry (5xx, or a 4xx with Retry-After) are not kept, so the retry runs; so is a request whose server died (after a 60 s lease).
                 * @example 5f0c9a3e-1b7d-4c2a-9e8f-0d6b2a4c7e19
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "company_id": "acme-eu",
                 *       "model_id": "mdl_01JCZZ8XH2M4N6P8R0S2T4V6W8",
                 *       "expected_approved_model_id": "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Target company; only companies mapped to the partner are reachable.
                     * @example acme-eu
                     */
                    company_id: string;
                    /**
                     * @description An artifact approved before (see GET /v2/model/history) to approve again.
                     * @example mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F
                     */
                    model_id: string;
                    /** @description The artifact approved now (read it from GET /v2/model); anything else is a 409. */
                    expected_approved_model_id: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelReport"];
                };
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or company_not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code idempotency_key_in_progress or approved_model_stale or slots_unreadable. */
            409: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code payload_too_large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unsupported_media_type. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code idempotency_key_reused or rollback_target_invalid. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getOperation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example op_01JD2W5K3Q7Y8Z9A0B1C2D3E4F */
                operation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Operation"];
                };
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or operation_not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listOverrides: {
        parameters: {
            query: {
                /**
                 * @description Target company; only companies mapped to the partner are reachable.
                 * @example acme-eu
                 */
                company_id: string;
                product_id?: string;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OverridesResponse"];
                };
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or company_not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    createOverrides: {
        parameters: {
            query?: {
                /** @description true also persists a fresh on-demand run that applies the overrides and returns its run_id. */
                recompute?: "true" | "false";
            };
            header?: {
                /**
                 * @description Makes a retry safe (IETF httpapi draft): 1 to 255 printable ASCII characters, unique per request you mean (a UUID), kept 24 hours per partner. The same key with the same method, path and body replays the first response (status, body, Content-Type, Location, Preference-Applied) with Idempotent-Replayed: true; with another body, 422 idempotency_key_reused; while the first is still running, 409 idempotency_key_in_progress with Retry-After. Responses that ask for a retry (5xx, or a 4xx with Retry-After) are not kept, so the retry runs; so is a request whose server died (after a 60 s lease).
                 * @example 5f0c9a3e-1b7d-4c2a-9e8f-0d6b2a4c7e19
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "company_id": "acme-eu",
                 *       "product_id": "sku-1",
                 *       "start_date": "2026-11-27",
                 *       "end_date": "2026-11-29",
                 *       "price": 17.99
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Target company; only companies mapped to the partner are reachable.
                     * @example acme-eu
                     */
                    company_id: string;
                    product_id: string;
                    /**
                     * Format: date
                     * @description First date the override applies to; not before the company's today.
                     * @example 2026-11-21
                     */
                    start_date: string;
                    /**
                     * Format: date
                     * @description Last date it applies to (inclusive).
                     * @example 2026-11-21
                     */
                    end_date: string;
                    /** @description A pinned price: printable in the product's currency and endings, inside its guardrails. */
                    price?: number;
                    /** @description A narrowing: the lowest price the engine may choose. */
                    min_price?: number;
                    /** @description A narrowing: the highest price the engine may choose. */
                    max_price?: number;
                    /** @description Free text for the partner's own records. */
                    note?: string;
                } | {
                    /**
                     * @description Target company; only companies mapped to the partner are reachable.
                     * @example acme-eu
                     */
                    company_id: string;
                    /** @description Up to 200 overrides, created all or nothing. */
                    overrides: {
                        product_id: string;
                        /**
                         * Format: date
                         * @description First date the override applies to; not before the company's today.
                         * @example 2026-11-21
                         */
                        start_date: string;
                        /**
                         * Format: date
                         * @description Last date it applies to (inclusive).
                         * @example 2026-11-21
                         */
                        end_date: string;
                        /** @description A pinned price: printable in the product's currency and endings, inside its guardrails. */
                        price?: number;
                        /** @description A narrowing: the lowest price the engine may choose. */
                        min_price?: number;
                        /** @description A narrowing: the highest price the engine may choose. */
                        max_price?: number;
                        /** @description Free text for the partner's own records. */
                        note?: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateOverridesResponse"];
                };
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or company_not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code idempotency_key_in_progress or override_overlap. */
            409: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code payload_too_large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unsupported_media_type. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code idempotency_key_reused or override_outside_guardrails or override_not_printable. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteOverride: {
        parameters: {
            query: {
                /**
                 * @description Target company; only companies mapped to the partner are reachable.
                 * @example acme-eu
                 */
                company_id: string;
            };
            header?: never;
            path: {
                /** @example ovr_01JD2W5K3Q7Y8Z9A0B1C2D3E4F */
                override_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed; no body. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Error envelope with code validation_error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code invalid_token or token_expired. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code not_found or company_not_found or override_not_found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code method_not_allowed. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code request_timeout. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code rate_limited. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code headers_too_large. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code internal_error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error envelope with code unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    webhook_recommendations_updated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event's id (`msg_` + ULID): the same on every retry and every endpoint. Deliveries are at least once: use it to drop duplicates.
                 * @example msg_01JD2W5K3Q7Y8Z9A0B1C2D3E4F
                 */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Unix seconds when this attempt was signed; refuse a message more than 5 minutes off your clock.
                 * @example 1763863200
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /**
                 * @description Space-separated signatures `v1,<base64>`: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed by the base64-decoded part of your endpoint's `whsec_` secret (Standard Webhooks). Compare in constant time against each; one match is enough.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": components["parameters"]["WebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecommendationsUpdatedEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx counts as delivered). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (e.g. a bad signature); retried like any other failure. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_model_trained: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event's id (`msg_` + ULID): the same on every retry and every endpoint. Deliveries are at least once: use it to drop duplicates.
                 * @example msg_01JD2W5K3Q7Y8Z9A0B1C2D3E4F
                 */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Unix seconds when this attempt was signed; refuse a message more than 5 minutes off your clock.
                 * @example 1763863200
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /**
                 * @description Space-separated signatures `v1,<base64>`: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed by the base64-decoded part of your endpoint's `whsec_` secret (Standard Webhooks). Compare in constant time against each; one match is enough.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": components["parameters"]["WebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ModelTrainedEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx counts as delivered). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (e.g. a bad signature); retried like any other failure. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_model_promoted: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event's id (`msg_` + ULID): the same on every retry and every endpoint. Deliveries are at least once: use it to drop duplicates.
                 * @example msg_01JD2W5K3Q7Y8Z9A0B1C2D3E4F
                 */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description Unix seconds when this attempt was signed; refuse a message more than 5 minutes off your clock.
                 * @example 1763863200
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /**
                 * @description Space-separated signatures `v1,<base64>`: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed by the base64-decoded part of your endpoint's `whsec_` secret (Standard Webhooks). Compare in constant time against each; one match is enough.
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": components["parameters"]["WebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ModelPromotedEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx counts as delivered). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (e.g. a bad signature); retried like any other failure. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
