#!/usr/bin/env bash
# Schemathesis (https://schemathesis.readthedocs.io, `pip install schemathesis`, tested with 4.32) over the partner
# API's OpenAPI: every check, every phase (examples, coverage, fuzzing, stateful), against the built server
# (`pnpm build` first) serving the demo's data from a temporary data directory.
#
#   scripts/schemathesis.sh [--max-time SECONDS] [--limited-time SECONDS] [any other `schemathesis run` option]
#
# Two runs: the main one (default --max-time 600; it must stay under a bearer token's 900 s, one token is exchanged
# up front) with the rate limits out of the way, then one of --limited-time (default 60) s over the GET operations on a server restarted
# with tight rate limits, which must see 429s (each is documented, with Retry-After). Both use the hooks in
# scripts/schemathesis_hooks.py. Not run in CI (minutes of CPU); run it after changing routes, schemas or statuses.
# Exit status: schemathesis's first failure, else 1 when a run saw a 5xx or the limited run no 429.
#
# What the generated config below sets, and why:
# - the demo partner's bearer token on every request, and the demo's company ids (and, for POST /auth/token, its
#   key pair) drawn in 4 of 5 cases, so the run reaches the data and not only 404 company_not_found / 401;
# - rate limits raised out of the way (a 429 is documented everywhere; it would hide the handlers) and 1-second
#   trainings (`PRICING_TRAIN_SECONDS`), so stateful sequences of trainings finish in the time budget;
# - positive_data_acceptance (ST202) lets 400 and 422 through on the data routes below, and the hooks' check
#   `rejections_are_named` narrows them to the named exceptions, each a rule a JSON Schema cannot say: 400
#   `validation_error` naming start_date/end_date on GET /v2/recommendations and POST /v2/recommendations/compute
#   (start_date <= end_date; on compute at most 366 days long, not before the company's today, at most 366 days
#   ahead: issue 15 item 9; schemathesis draws each date alone, so a schema-valid pair can break them); 422
#   `answer_too_large` naming PRICING_COMPUTE_MAX_PRICES on compute (products x days over the server's cap, issue
#   28); 422 `idempotency_key_reused` on every POST that takes an Idempotency-Key (the same key with another body
#   is refused by design, DESIGN §7, and schemathesis draws keys from a small space: "0", "00", ...). Any other
#   400/422 to valid data fails the run;
# - `Prefer: respond-async` on half the trainings, so the stateful phase gets 202s and follows their OpenAPI link
#   to GET /v2/operations/{operation_id};
# - a 120-second request timeout, and 120 s instead of the default 10 s for the response-time check (ST112) on the
#   trainings and computes: they run synchronously (`Prefer: respond-async` is the asynchronous form), and on a
#   loaded machine a 1-second training's wall time (data, fit, simulator, safety check) passes 10 s;
# - schemathesis warns that promote and rollback "mostly reject generated data": their model ids must name the
#   current latest (promote) or the approved and a formerly approved artifact (rollback), which no generator guesses;
#   the answers are the documented 409 `model_id_stale` / `approved_model_stale` and 404. Its run directory (the
#   crash cache under `.schemathesis/`) is the temporary one, removed at exit.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="$repo/packages/server/dist/cli.js"
max_time=600
limited_time=60
args=()
while (($#)); do
  case "$1" in
    --max-time) max_time="$2"; shift 2 ;;
    --limited-time) limited_time="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
command -v schemathesis >/dev/null || { echo "schemathesis not found: pip install schemathesis" >&2; exit 2; }
[[ -f "$cli" ]] || { echo "$cli missing: run pnpm build" >&2; exit 2; }
((max_time < 880)) || { echo "--max-time must stay under a token's 900 s" >&2; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/pricing-schemathesis-XXXXXX")"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
base="http://127.0.0.1:$port"
node "$cli" demo --no-serve --data-dir "$work/data" >"$work/demo.out"
access_key="$(awk '/^access_key:/ {print $2}' "$work/demo.out")"
secret_key="$(awk '/^secret_key:/ {print $2}' "$work/demo.out")"

unlimited='{"max":1000000000,"windowMs":60000}'
# Tight enough that the limited run (the data reads, fast) meets them within seconds: 20 data calls, 5 computes,
# 2 trainings and 5 token exchanges a minute per partner (or key; 20 per address).
limited='{"tokenPerKey":{"max":5,"windowMs":60000},"tokenPerAddress":{"max":20,"windowMs":60000},"dataPerPartner":{"max":20,"windowMs":60000},"computePerPartner":{"max":5,"windowMs":60000},"trainPerPartner":{"max":2,"windowMs":60000}}'

start_server() {
  PRICING_RATE_LIMITS="$1" PRICING_TRAIN_SECONDS=1 PRICING_LOG_LEVEL=warn \
    node "$cli" serve --port "$port" --data-dir "$work/data" >>"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 120); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.5; done
}
stop_server() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

start_server "{\"tokenPerKey\":$unlimited,\"tokenPerAddress\":$unlimited,\"dataPerPartner\":$unlimited,\"computePerPartner\":$unlimited,\"trainPerPartner\":$unlimited}"
token="$(curl -sf -X POST "$base/public/v1/auth/token" -H 'content-type: application/json' \
  -d "{\"access_key\":\"$access_key\",\"secret_key\":\"$secret_key\"}" |
  node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')"

cat >"$work/schemathesis.toml" <<TOML
headers = { Authorization = "Bearer $token" }

[dictionaries.companies]
values = ["demo-grocer", "demo-fashion"]
[dictionaries.access_keys]
values = ["$access_key"]
[dictionaries.secret_keys]
values = ["$secret_key"]
[dictionaries.prefer]
values = ["respond-async"]

[parameters]
"query.company_id" = { dictionary = "companies", probability = 0.8 }
"body.company_id" = { dictionary = "companies", probability = 0.8 }
"body.access_key" = { dictionary = "access_keys", probability = 0.8 }
"body.secret_key" = { dictionary = "secret_keys", probability = 0.8 }
"header.prefer" = { dictionary = "prefer", probability = 0.5 }

[[operations]]
include-name = ["GET /v2/recommendations", "POST /v2/recommendations/compute"]
checks.positive_data_acceptance.expected-statuses = ["2XX", "3XX", 400, 401, 403, 404, 409, 422, 429]
checks.max_response_time = 120

[[operations]]
include-name = ["POST /v2/model/train", "POST /v2/model/promote", "POST /v2/model/rollback"]
checks.positive_data_acceptance.expected-statuses = ["2XX", "3XX", 401, 403, 404, 409, 422, 429]
checks.max_response_time = 120
TOML

export PYTHONPATH="$repo/scripts${PYTHONPATH:+:$PYTHONPATH}" SCHEMATHESIS_HOOKS=schemathesis_hooks
# One run: schemathesis over the served document, its statuses tallied (the hooks' after_call).
run() {
  local name="$1" seconds="$2"
  shift 2
  export PRICING_STATUS_TALLY="$work/statuses-$name"
  : >"$PRICING_STATUS_TALLY"
  echo "== schemathesis: $name run, $seconds s"
  (cd "$work" && schemathesis --config-file "$work/schemathesis.toml" run "$base/public/v1/openapi.json" \
    --checks all --max-time "$seconds" --request-timeout 120 --no-color "$@")
}
count() { grep -c "$2" "$work/statuses-$1" || true; }

set +e
run main "$max_time" "${args[@]}"
status=$?
stop_server
start_server "$limited"
# The rate-limited run: 429 is documented on every operation, so schemathesis accepts it; this run must see it.
run limited "$limited_time" --phases fuzzing --include-method GET "${args[@]}"
limited_status=$?
set -e
# Stopping the first server aborts any asynchronous training still running ("The server is shutting down"): the
# script's own restart, not a failure of the API.
server_errors() { grep '"level":[56]0' "$work/server.log" | grep -v 'The server is shutting down' || true; }
errors="$(server_errors | wc -l)"
server_errors | head -5
main_5xx="$(count main '^5')"
limited_5xx="$(count limited '^5')"
limited_429="$(count limited '^429$')"
echo "summary: main run $(wc -l <"$work/statuses-main") responses, $main_5xx 5xx; rate-limited run" \
  "$(wc -l <"$work/statuses-limited") responses, $limited_429 429s, $limited_5xx 5xx; server error log lines: $errors"
((status == 0)) || exit "$status"
((limited_status == 0)) || exit "$limited_status"
((main_5xx + limited_5xx + errors == 0 && limited_429 > 0)) || exit 1
