"""Schemathesis hooks for scripts/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

- `rejections_are_named`: a 400 or 422 answered to schema-valid data (positive mode) passes only with the error
  codes and messages that the OpenAPI documents for it and a JSON Schema cannot express; anything else fails.
  positive_data_acceptance lets every 400/422 through on those operations, this check narrows them to the names.
- `after_call` tallies the statuses seen into $PRICING_STATUS_TALLY (one status a line), so the script can require
  429s in its rate-limited run and count every 5xx.
"""

import os
import re

import schemathesis

# (operation label, code) -> what the message must say. Dates obey rules between fields (start <= end; a compute
# at most 366 days long, from the company's today, at most 366 days ahead) that schemathesis draws one date at a
# time without knowing; the same Idempotency-Key with another body is refused by design, and schemathesis draws
# keys from a small space; a compute whose answer would pass the server's price limit is refused before planning.
DATE_RULE = re.compile(r"(start_date|end_date)")
NAMED = {
    ("GET /v2/recommendations", "validation_error"): DATE_RULE,
    ("POST /v2/recommendations/compute", "validation_error"): DATE_RULE,
    ("POST /v2/recommendations/compute", "answer_too_large"): re.compile(r"PRICING_COMPUTE_MAX_PRICES"),
}
IDEMPOTENT_POSTS = {
    "POST /v2/recommendations/compute",
    "POST /v2/model/train",
    "POST /v2/model/promote",
    "POST /v2/model/rollback",
}


@schemathesis.check
def rejections_are_named(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    if response.status_code not in (400, 422):
        return None
    label = case.operation.label
    try:
        error = response.json()["error"]
        code, message = error["code"], error["message"]
    except Exception:
        raise AssertionError(f"{label}: {response.status_code} without the error envelope")
    if code == "idempotency_key_reused" and label in IDEMPOTENT_POSTS:
        return None
    rule = NAMED.get((label, code))
    if rule is None or not rule.search(message):
        raise AssertionError(f"{label}: valid data refused with {response.status_code} {code}: {message}")
    return None


@schemathesis.hook
def after_call(context, case, response):
    tally = os.environ.get("PRICING_STATUS_TALLY")
    if tally:
        with open(tally, "a", encoding="utf-8") as out:
            out.write(f"{response.status_code}\n")
