-- wrk script of the soak (benchmarks/src/soak.ts starts it; see benchmarks/README.md "Soak").
--
-- SOAK_MODE=recommendations | runs | model: GET /v2/<mode> round-robin over SOAK_COMPANIES (one wrk per endpoint,
--   so each gets its own latency distribution), with the bearer token read from SOAK_TOKEN_FILE (re-read every few
--   seconds: the driver exchanges a fresh token before the old one's 15 minutes run out, so a soak may run longer
--   than one token's life).
-- SOAK_MODE=token: POST /auth/token with SOAK_ACCESS_KEY / SOAK_SECRET_KEY.
-- SOAK_DELAY_MS paces each connection (milliseconds between its requests; 0: back to back).
-- done() prints one line "SOAK_RESULT <json>": status counts, wrk's socket errors, latency percentiles (µs).

local mode = os.getenv("SOAK_MODE") or "runs"
local prefix = os.getenv("SOAK_PREFIX") or "/public/v1"
local delay_ms = tonumber(os.getenv("SOAK_DELAY_MS") or "0")
local token_file = os.getenv("SOAK_TOKEN_FILE")
local start_date = os.getenv("SOAK_START_DATE")
local end_date = os.getenv("SOAK_END_DATE")

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

counts = {}
local token = nil
local token_read_at = -1
local paths = {}
local next_path = 1

local function read_token()
  local now = os.time()
  if token ~= nil and now - token_read_at < 5 then
    return token
  end
  local f = io.open(token_file, "r")
  if f then
    local t = f:read("*l")
    f:close()
    if t and #t > 0 then
      token = t
    end
  end
  token_read_at = now
  return token
end

function init(args)
  for company in string.gmatch(os.getenv("SOAK_COMPANIES") or "", "[^,]+") do
    if mode == "recommendations" then
      table.insert(paths, prefix .. "/v2/recommendations?company_id=" .. company .. "&start_date=" .. start_date ..
        "&end_date=" .. end_date)
    else
      table.insert(paths, prefix .. "/v2/" .. mode .. "?company_id=" .. company)
    end
  end
end

local token_body = nil

function request()
  if mode == "token" then
    if token_body == nil then
      token_body = '{"access_key":"' .. os.getenv("SOAK_ACCESS_KEY") .. '","secret_key":"' ..
        os.getenv("SOAK_SECRET_KEY") .. '"}'
    end
    return wrk.format("POST", prefix .. "/auth/token", { ["content-type"] = "application/json" }, token_body)
  end
  local path = paths[next_path]
  next_path = next_path % #paths + 1
  return wrk.format("GET", path, { ["authorization"] = "Bearer " .. (read_token() or "") })
end

function response(status, headers, body)
  local key = tostring(status)
  counts[key] = (counts[key] or 0) + 1
end

if delay_ms > 0 then
  function delay()
    return delay_ms
  end
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    local c = thread:get("counts")
    for k, v in pairs(c) do
      total[k] = (total[k] or 0) + v
    end
  end
  local parts = {}
  for k, v in pairs(total) do
    table.insert(parts, '"' .. k .. '":' .. v)
  end
  local e = summary.errors
  io.write(string.format(
    'SOAK_RESULT {"mode":"%s","requests":%d,"duration_us":%d,"statuses":{%s},' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d},' ..
      '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    mode, summary.requests, summary.duration, table.concat(parts, ","),
    e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
