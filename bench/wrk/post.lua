-- A POST whose JSON body names a date range, drawn as range.lua draws it: a random first day
-- among `days` days from `first_day` (UTC midnight, seconds since the epoch), `window` days
-- long, ending at `end_time` on its last day. The body template gets {start} and {end}
-- (YYYY-MM-DD) and {end_time} (HH:MM:SS); the headers (Content-Type and the like) come from
-- wrk's -H options, which wrk.format adds to every request.
-- wrk ... -H 'Content-Type: application/json' -s post.lua URL --
--   <path> <body template> <first_day> <days> <window> <end_time>
dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "common.lua")

local path, body, first_day, days, window, end_time

function init(args)
  path, body = args[1], args[2]
  first_day, days, window, end_time = tonumber(args[3]), tonumber(args[4]), tonumber(args[5]),
    args[6]
  seed()
end

function request()
  local start = first_day + math.random(0, days - 1) * 86400
  return wrk.format("POST", path, nil, fill(body, {
    start = os.date("!%Y-%m-%d", start),
    ["end"] = os.date("!%Y-%m-%d", start + (window - 1) * 86400),
    end_time = end_time,
  }))
end
