-- Shared by the wrk scripts of bench/: per-thread random seeds, a path template filled in
-- per request, and a machine-readable summary line for bench/run.py.
--
-- A script's first argument (after wrk's `--`) is a path template; `{name}` is replaced by
-- the value the script draws for `name` (URL-safe values only: digits, dates, times).

local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

function seed()
  -- Each thread (its own Lua state) draws its own sequence; nothing repeats across runs.
  math.randomseed(os.time() * 1000 + (thread_number or 0) * 7919 + math.floor(os.clock() * 1e6))
  for _ = 1, 10 do math.random() end
end

function fill(template, values)
  return (template:gsub("{([%w_]+)}", function(name)
    local v = values[name]
    if v == nil then error("no value for {" .. name .. "} in " .. template) end
    return tostring(v)
  end))
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"errors_connect":%d,' ..
    '"errors_read":%d,"errors_write":%d,"errors_status":%d,"errors_timeout":%d,' ..
    '"latency_mean_us":%.1f,"latency_p50_us":%d,"latency_p99_us":%d,"latency_max_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write,
    e.status, e.timeout, latency.mean, latency:percentile(50), latency:percentile(99),
    latency.max))
end
