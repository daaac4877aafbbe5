-- A date range of about 1,000 rows: a random first day among `days` days from `first_day`
-- (UTC midnight, seconds since the epoch), `window` days long, ending at `end_time` on its
-- last day. The template gets {start} and {end} (YYYY-MM-DD) and {end_time} (HH:MM:SS).
-- wrk ... -s range.lua URL -- <template> <first_day> <days> <window> <end_time>
dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "common.lua")

local template, first_day, days, window, end_time

function init(args)
  template, first_day, days = args[1], tonumber(args[2]), tonumber(args[3])
  window, end_time = tonumber(args[4]), args[5]
  seed()
end

function request()
  local start = first_day + math.random(0, days - 1) * 86400
  return wrk.format("GET", fill(template, {
    start = os.date("!%Y-%m-%d", start),
    ["end"] = os.date("!%Y-%m-%d", start + (window - 1) * 86400),
    end_time = end_time,
  }))
end
