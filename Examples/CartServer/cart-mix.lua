-- The request mix of load.sh: over 1,000 carts, 70% add an item, 20% read the cart,
-- 10% reserve it. Each wrk thread draws from its own seeded generator.
local carts = 1000
local headers = { ["Content-Type"] = "application/json" }
local thread_count = 0

function setup(thread)
  thread_count = thread_count + 1
  thread:set("seed", thread_count)
end

function init(args)
  math.randomseed(seed)
end

function request()
  local cart = math.random(carts)
  local pick = math.random(100)
  if pick <= 70 then
    local body = '{"sku":"sku-' .. math.random(20) .. '","quantity":1}'
    return wrk.format("POST", "/carts/" .. cart .. "/items", headers, body)
  elseif pick <= 90 then
    return wrk.format("GET", "/carts/" .. cart)
  else
    return wrk.format("POST", "/carts/" .. cart .. "/reserve")
  end
end
