-- wrk script for scripts/bench-http. Every run ends with one line for the script to read:
--   BENCH requests=N duration_us=N p50_us=X p99_us=X errors=N
-- where errors counts failed connections, reads, writes, timeouts and answers of 400 or more.
--
-- With BENCH_CSRF set it posts instead of getting: each post flips the read state of one
-- message (mark-read, then mark-unread, ...) with the form token, the Host and `from=inbox`,
-- so every post is a real change that Mailroom must store before it answers. Thread t of wrk
-- cycles through its own BENCH_MESSAGES_PER_THREAD messages, ids t*N+1 ... t*N+N, which
-- scripts/bench-http marks unread just before the run. With one thread and N = 1 that is
-- message 1 toggled back and forth. N is a few times the connections per thread, so a
-- message's next flip is sent only long after the previous one was answered.
--
-- A message's state is taken from answers (the 303's Location names the message), not from
-- requests made: wrk can call request() for a request it then drops unsent (seen here: one
-- per run), and counting that one would turn every later flip of its message into a no-op.

-- With BENCH_VARY set it gets the URL with a field the page ignores, `?n=VARY-T-1`, `?n=VARY-T-2`,
-- ... (VARY names the run, T the thread): each address is new to Mailroom, so every page is rendered (its rows come from the row cache),
-- as after a change, instead of being answered from the whole-page cache.

local token = os.getenv("BENCH_CSRF")
local vary = os.getenv("BENCH_VARY")
local perThread = tonumber(os.getenv("BENCH_MESSAGES_PER_THREAD") or "1")
local host = os.getenv("BENCH_HOST")

local threadCount = 0

function setup(thread)
   thread:set("first", threadCount * perThread + 1)
   threadCount = threadCount + 1
end

-- Only a script that defines request() pays for Lua on every request: the GET runs do not.
if vary then
   local serial = 0
   -- After the address's own query, if it has one (a deep page, a search).
   local separator = string.find(wrk.path, "?", 1, true) and "&" or "?"
   function request()
      serial = serial + 1
      return wrk.format("GET", wrk.path .. separator .. "n=" .. vary .. "-" .. first .. "-" .. serial)
   end
elseif token then
   local headers = {
      ["Host"] = host,
      ["Content-Type"] = "application/x-www-form-urlencoded",
   }
   local turn = 0
   local sent = {}    -- message id -> the action last made for it
   local isRead = {}  -- message id -> its state after the last answered post

   function request()
      local id = first + turn
      turn = (turn + 1) % perThread
      local action = isRead[id] and "mark-unread" or "mark-read"
      sent[id] = action
      local body = "action=" .. action .. "&from=inbox&csrf=" .. token
      return wrk.format("POST", "/messages/" .. id, headers, body)
   end

   function response(status, headers, body)
      local id = tonumber(string.match(headers["Location"] or "", "^/messages/(%d+)"))
      if status == 303 and id and sent[id] then
         isRead[id] = sent[id] == "mark-read"
      end
   end
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "BENCH requests=%d duration_us=%d p50_us=%.1f p99_us=%.1f errors=%d\n",
      summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
      e.connect + e.read + e.write + e.status + e.timeout))
end
