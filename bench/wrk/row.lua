-- One record by a random id: wrk ... -s row.lua URL -- <template with {id}> <max id>
dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "common.lua")

local template, max_id

function init(args)
  template, max_id = args[1], tonumber(args[2])
  seed()
end

function request()
  return wrk.format("GET", fill(template, {id = math.random(1, max_id)}))
end
