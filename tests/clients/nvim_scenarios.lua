-- Driven by tests/clients/test_nvim.py: `nvim --headless --clean -l`-free (works on 0.7).
-- Environment: CRANE_PLUGIN_DIR, CRANE_SCENARIO, CRANE_EVENTS (JSON lines out), CRANE_FILE,
-- CRANE_CMD (JSON list), CRANE_CONNECTION_FILE, CRANE_TIMEOUT_MS.
vim.opt.runtimepath:prepend(os.getenv("CRANE_PLUGIN_DIR"))
local crane = require("crane")
local compat = require("crane.compat")

local events_path = os.getenv("CRANE_EVENTS")
local timeout = tonumber(os.getenv("CRANE_TIMEOUT_MS") or "60000")
local messages = {}

local function emit(event)
  local handle = assert(io.open(events_path, "a"))
  handle:write(compat.json_encode(event) .. "\n")
  handle:close()
end

local function crane_diagnostics(bufnr)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == "crane" then
      table.insert(found, { lnum = d.lnum, col = d.col, severity = d.severity, message = d.message, code = d.code })
    end
  end
  return found
end

local function wait_client(bufnr)
  local ok = vim.wait(timeout, function()
    local c = compat.clients(bufnr, "crane")[1]
    return #messages > 0 or (c ~= nil and c.server_capabilities ~= nil and next(c.server_capabilities) ~= nil)
  end, 20)
  assert(ok and #messages == 0, "crane-server did not initialize: " .. vim.inspect(messages))
  return compat.clients(bufnr, "crane")[1]
end

local function setup(cmd)
  crane.setup({
    cmd = cmd,
    settings = { debounce_ms = 50 },
    notify = function(message, level)
      table.insert(messages, { message = message, level = level })
      emit({ event = "notify", message = message, level = level })
    end,
  })
end

local scenarios = {}

-- A percent script cell uses a missing column: the Error arrives on its line; then the test
-- runs a cell in the kernel that creates the column and the Error clears by itself.
function scenarios.live()
  setup(vim.fn.json_decode(os.getenv("CRANE_CMD")))
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("CRANE_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_client(bufnr)
  emit({ event = "attached", version = tostring(vim.version().major) .. "." .. tostring(vim.version().minor) })
  vim.cmd("CraneAttach " .. vim.fn.fnameescape(os.getenv("CRANE_CONNECTION_FILE")))
  local arrived = vim.wait(timeout, function()
    return #crane_diagnostics(bufnr) > 0
  end, 20)
  emit({ event = "diagnostics", arrived = arrived, diagnostics = crane_diagnostics(bufnr), status = crane.status(bufnr) })
  if not arrived then
    return false
  end
  -- What the user sees: the virtual text (first line) and :CraneExplain's float (all of it).
  local first = crane_diagnostics(bufnr)[1]
  vim.api.nvim_win_set_cursor(0, { first.lnum + 1, 0 })
  local config = vim.diagnostic.config(nil, crane.namespace)
  vim.cmd("CraneExplain")
  local float_lines = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      float_lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
      vim.api.nvim_win_close(win, true)
    end
  end
  emit({
    event = "shown",
    virtual_text = config.virtual_text.format(first),
    virtual_lines = config.virtual_lines ~= nil,
    float = float_lines,
  })
  local cleared = vim.wait(timeout, function()
    return #crane_diagnostics(bufnr) == 0
  end, 20)
  emit({ event = "cleared", cleared = cleared, diagnostics = crane_diagnostics(bufnr) })
  if not cleared then
    return false
  end
  -- The test now shuts the kernel down: one "gone" message, then nothing more.
  local function gone()
    local found = {}
    for _, m in ipairs(messages) do
      if m.message:find("is gone", 1, true) then
        table.insert(found, m)
      end
    end
    return found
  end
  local told = vim.wait(timeout, function()
    return #gone() > 0
  end, 20)
  -- A request round trip: notifications the server sent before its reply are handled by now.
  local answered = false
  crane.execute("crane.listKernels", {}, bufnr, function()
    answered = true
  end)
  vim.wait(timeout, function()
    return answered
  end, 20)
  emit({ event = "gone", told = told, count = #gone(), status = crane.status(bufnr) })
  return told
end

-- A wrong server path: one clear message, no client, nothing retried for the next buffer.
function scenarios.bad_path()
  setup({ "/nonexistent/bin/crane-server", "--stdio" })
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("CRANE_FILE")))
  vim.cmd("new")
  vim.bo.filetype = "python"
  vim.cmd("CraneCheck")
  emit({ event = "done", clients = #compat.clients(nil, "crane"), messages = messages })
  return true
end

-- A server that exits at once: one message, no restart when another buffer opens.
function scenarios.server_exits()
  setup(vim.fn.json_decode(os.getenv("CRANE_CMD")))
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("CRANE_FILE")))
  local told = vim.wait(timeout, function()
    return #messages > 0
  end, 20)
  vim.cmd("new")
  vim.bo.filetype = "python"
  vim.wait(timeout, function()
    return #compat.clients(nil, "crane") == 0
  end, 20)
  emit({ event = "done", told = told, clients = #compat.clients(nil, "crane"), messages = messages })
  return true
end

-- A kernel on a Jupyter Server: the server is in the plugin's settings (URL only, the token
-- in the environment crane-server inherits), and :CraneAttach takes the kernel's id.
function scenarios.remote()
  crane.setup({
    cmd = vim.fn.json_decode(os.getenv("CRANE_CMD")),
    settings = { debounce_ms = 50, servers = vim.fn.json_decode(os.getenv("CRANE_SERVERS")) },
    notify = function(message, level)
      table.insert(messages, { message = message, level = level })
      emit({ event = "notify", message = message, level = level })
    end,
  })
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("CRANE_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_client(bufnr)
  vim.cmd("CraneAttach " .. os.getenv("CRANE_KERNEL_ID"))
  local arrived = vim.wait(timeout, function()
    return #crane_diagnostics(bufnr) > 0
  end, 20)
  emit({ event = "diagnostics", arrived = arrived, diagnostics = crane_diagnostics(bufnr),
         status = crane.status(bufnr), messages = messages })
  return arrived
end

-- Pure helpers: what :CraneAttach sends, and the statusline text.
function scenarios.units()
  setup({ "/nonexistent/bin/crane-server", "--stdio" })
  local uri = "file:///work/a.py"
  emit({
    event = "done",
    by_file = crane.attach_args(uri, "/run/jupyter/kernel-abc.json"),
    by_id = crane.attach_args(uri, "kernel-abc"),
    empty = crane.attach_args(uri, "  ") == nil,
    commands = vim.fn.exists(":CraneAttach") == 2 and vim.fn.exists(":CraneCheck") == 2,
    config_api = compat.has_config_api,
    minor = vim.version().minor,
  })
  return true
end

local name = os.getenv("CRANE_SCENARIO")
local ok, result = pcall(scenarios[name])
if not ok then
  emit({ event = "error", message = tostring(result) })
end
vim.cmd((ok and result) and "qa!" or "cquit 1")
