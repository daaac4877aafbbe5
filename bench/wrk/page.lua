-- A page at a random deep position: a page number from first_page to last_page (the upper
-- half of the table), given to the template as {page} and as the row offset {offset}.
-- wrk ... -s page.lua URL -- <template> <first_page> <last_page> <page_size>
dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "common.lua")

local template, first_page, last_page, page_size

function init(args)
  template = args[1]
  first_page, last_page, page_size = tonumber(args[2]), tonumber(args[3]), tonumber(args[4])
  seed()
end

function request()
  local page = math.random(first_page, last_page)
  return wrk.format("GET", fill(template, {page = page, offset = (page - 1) * page_size}))
end
