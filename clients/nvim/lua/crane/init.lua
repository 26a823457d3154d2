-- crane: crash warnings before a cell runs, from the live Jupyter kernel (crane-server over LSP).
local compat = require("crane.compat")

local M = {}

M.name = "crane"

M.defaults = {
  cmd = { "crane-server", "--stdio" },
  filetypes = { "python" },
  root_markers = { "pyproject.toml", "setup.cfg", ".git" },
  -- Sent as initializationOptions and settings.crane (see protocol/README.md).
  settings = {
    debounce_ms = 300,
    llm = { trigger = "command", model = vim.NIL, privacy = "full" },
  },
  notify = function(message, level)
    vim.notify(message, level)
  end,
}

M.config = nil
M.statuses = {} -- uri -> crane/kernelStatus params
local client_id = nil -- 0.7 path: the one client shared by all buffers
local gave_up = false -- a start failed or the server exited: say it once, never restart
local stopping = false -- :CraneRestart stopped the old client on purpose
local told_dead = {}

local function notify(message, level)
  M.config.notify("crane: " .. message, level or vim.log.levels.INFO)
end

local function on_kernel_status(_, params)
  if type(params) ~= "table" or type(params.uri) ~= "string" then
    return
  end
  M.statuses[params.uri] = params
  local key = params.uri .. "\0" .. tostring(params.kernel_id or params.connection_file)
  if params.state == "dead" then
    if not told_dead[key] then
      told_dead[key] = true
      notify(
        "the kernel of " .. vim.uri_to_fname(params.uri) .. " is gone; crash warnings are paused. :CraneAttach another.",
        vim.log.levels.WARN
      )
    end
  else
    told_dead[key] = nil
  end
end

local function on_exit(code, signal)
  vim.schedule(function()
    client_id = nil
    if stopping then
      stopping = false
      return
    end
    if compat.has_config_api then
      vim.lsp.enable(M.name, false) -- no new client for the next buffer either
    end
    if not gave_up then
      gave_up = true
      notify(
        string.format(
          "crane-server exited (code %s, signal %s); crash warnings are off. See :lua print(vim.lsp.get_log_path()) and run :CraneRestart.",
          tostring(code),
          tostring(signal)
        ),
        vim.log.levels.ERROR
      )
    end
  end)
end

local function root_dir(bufnr)
  local fname = vim.api.nvim_buf_get_name(bufnr)
  local start = fname ~= "" and vim.fn.fnamemodify(fname, ":p:h") or vim.fn.getcwd()
  for _, marker in ipairs(M.config.root_markers) do
    local file = vim.fn.findfile(marker, start .. ";")
    if file ~= "" then
      return vim.fn.fnamemodify(file, ":p:h")
    end
    local dir = vim.fn.finddir(marker, start .. ";")
    if dir ~= "" then
      return vim.fn.fnamemodify(dir, ":p:h:h")
    end
  end
  return start
end

--- The first line of a diagnostic: what fits beside the code (the float has the rest).
function M.first_line(diagnostic)
  return (diagnostic.message:gsub("\n.*", ""))
end

--- Show crane's diagnostics as Neovim can: the first line as virtual text, the whole message
--- (reason, evidence, fix) in the float and, on 0.11+, as virtual lines under the cursor's line.
local function configure_diagnostics(client)
  local ok, namespace = pcall(vim.lsp.diagnostic.get_namespace, client.id)
  if not ok or namespace == nil then
    return
  end
  M.namespace = namespace
  local options = {
    virtual_text = { format = M.first_line },
    float = { source = true },
  }
  if vim.fn.has("nvim-0.11") == 1 then
    options.virtual_lines = { current_line = true }
  end
  vim.diagnostic.config(options, namespace)
end

--- The whole text of crane's diagnostics on the cursor's line, in a float (:CraneExplain).
function M.explain()
  return vim.diagnostic.open_float({ scope = "line", namespace = M.namespace, source = true })
end

local function client_config(bufnr)
  local config = M.config
  return {
    name = M.name,
    cmd = config.cmd,
    root_dir = root_dir(bufnr),
    init_options = config.settings,
    settings = { crane = config.settings },
    handlers = { ["crane/kernelStatus"] = on_kernel_status },
    on_init = configure_diagnostics,
    on_exit = on_exit,
    filetypes = config.filetypes,
  }
end

local function executable_ok()
  local exe = M.config.cmd[1]
  if vim.fn.executable(exe) == 1 then
    return true
  end
  if not gave_up then
    gave_up = true
    notify(
      "cannot start the language server: '" .. exe .. "' was not found or is not executable. "
        .. "Install it (pip install crane-server) or pass cmd = { '/full/path/crane-server', '--stdio' } to setup().",
      vim.log.levels.ERROR
    )
  end
  return false
end

--- Attach crane to a buffer (0.7 path; 0.11+ uses vim.lsp.enable).
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if gave_up or not executable_ok() then
    return nil
  end
  if client_id == nil then
    client_id = vim.lsp.start_client(client_config(bufnr))
    if client_id == nil then
      gave_up = true
      notify("could not start " .. M.config.cmd[1], vim.log.levels.ERROR)
      return nil
    end
  end
  vim.lsp.buf_attach_client(bufnr, client_id)
  return client_id
end

--- The crane client of a buffer, or nil with a message.
function M.client(bufnr)
  local clients = compat.clients(bufnr, M.name)
  if #clients == 0 then
    notify("no crane-server attached to this buffer", vim.log.levels.WARN)
    return nil
  end
  return clients[1]
end

--- Run a crane workspace command for a buffer; `done(result)` gets the result.
function M.execute(command, args, bufnr, done)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if client == nil then
    return
  end
  compat.request(client, "workspace/executeCommand", { command = command, arguments = { args } }, function(err, result)
    if err then
      notify(command .. " failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if done then
      done(result)
    end
  end, bufnr)
end

--- Arguments of crane.attachKernel for what the user typed: a connection file or a kernel id.
function M.attach_args(uri, target)
  target = vim.trim(target or "")
  if target == "" then
    return nil
  end
  if target:find("/", 1, true) or target:find("\\", 1, true) or target:match("%.json$") then
    return { uri = uri, connection_file = vim.fn.fnamemodify(target, ":p") }
  end
  return { uri = uri, kernel_id = (target:gsub("^kernel%-", "")) }
end

--- :CraneAttach {connection file | kernel id}
function M.attach_kernel(target, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local args = M.attach_args(vim.uri_from_bufnr(bufnr), target)
  if args == nil then
    M.list_kernels(bufnr)
    return
  end
  M.execute("crane.attachKernel", args, bufnr, function()
    notify("attached " .. (args.connection_file or args.kernel_id))
  end)
end

--- :CraneKernels: print the kernels crane-server can see.
function M.list_kernels(bufnr)
  M.execute("crane.listKernels", {}, bufnr, function(result)
    if type(result) ~= "table" or #result == 0 then
      notify("no running kernels found")
      return
    end
    local lines = { "crane: kernels (use :CraneAttach <file or id>)" }
    for _, k in ipairs(result) do
      table.insert(lines, string.format("  %s  %s  %s", tostring(k.kernel_id), k.state or "?", k.connection_file or ""))
    end
    notify(table.concat(lines, "\n"))
  end)
end

local function cell_args(bufnr)
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  return { uri = vim.uri_from_bufnr(bufnr), line = line }
end

--- :CraneCheck: ask the LLM about the cell under the cursor.
function M.check(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  notify("asking the LLM about this cell...")
  M.execute("crane.check", cell_args(bufnr), bufnr, function(result)
    if type(result) ~= "table" then
      return
    end
    if result.error and result.error ~= vim.NIL then
      notify(result.error, vim.log.levels.WARN)
    elseif result.crash == true then
      notify("the LLM predicts a crash; see the diagnostics", vim.log.levels.WARN)
    elseif result.crash == false then
      notify("the LLM predicts no crash")
    end
  end)
end

--- :CranePrompt: show the LLM prompt for the cell under the cursor in a scratch buffer.
function M.show_prompt(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  M.execute("crane.showPrompt", cell_args(bufnr), bufnr, function(result)
    local text = type(result) == "string" and result
      or (type(result) == "table" and type(result.prompt) == "string" and result.prompt)
      or vim.inspect(result)
    vim.cmd("new")
    local scratch = vim.api.nvim_get_current_buf()
    vim.bo[scratch].buftype = "nofile"
    vim.bo[scratch].filetype = "markdown"
    vim.api.nvim_buf_set_lines(scratch, 0, -1, false, vim.split(text, "\n"))
  end)
end

--- A short status for the statusline: "crane: 1c2d3e4f idle".
function M.status(bufnr)
  local s = M.statuses[vim.uri_from_bufnr(bufnr or vim.api.nvim_get_current_buf())]
  if s == nil or s.state == "none" then
    return "crane: no kernel"
  end
  local id = type(s.kernel_id) == "string" and s.kernel_id:sub(1, 8) or "?"
  return "crane: " .. id .. " " .. tostring(s.state)
end

--- :CraneRestart: stop the client and start again (after fixing the cause).
function M.restart()
  local running = compat.clients(nil, M.name)
  stopping = #running > 0
  for _, client in ipairs(running) do
    compat.stop(client)
  end
  client_id = nil
  gave_up = false
  if compat.has_config_api then
    vim.lsp.enable(M.name, false)
    vim.lsp.enable(M.name)
    return
  end
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(M.config.filetypes, vim.bo[buf].filetype) then
      M.attach(buf)
    end
  end
end

local function create_commands()
  local cmd = vim.api.nvim_create_user_command
  cmd("CraneAttach", function(o)
    M.attach_kernel(o.args)
  end, { nargs = "?", complete = "file", desc = "crane: bind this buffer to a kernel (connection file or id)" })
  cmd("CraneCheck", function()
    M.check()
  end, { desc = "crane: check the cell under the cursor with the LLM" })
  cmd("CranePrompt", function()
    M.show_prompt()
  end, { desc = "crane: show the LLM prompt for the cell under the cursor" })
  cmd("CraneExplain", function()
    M.explain()
  end, { desc = "crane: the whole message (reason, evidence, fix) of the warning on this line" })
  cmd("CraneKernels", function()
    M.list_kernels()
  end, { desc = "crane: list running kernels" })
  cmd("CraneRestart", function()
    M.restart()
  end, { desc = "crane: restart the language server" })
end

--- Set up crane: `require("crane").setup({ cmd = {...}, settings = {...} })`.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", {}, M.defaults, opts or {})
  gave_up = false
  create_commands()
  if compat.has_config_api and M.config.use_config_api ~= false then
    if not executable_ok() then
      return
    end
    local config = client_config(vim.api.nvim_get_current_buf())
    config.root_dir = nil
    config.root_markers = M.config.root_markers
    vim.lsp.config(M.name, config)
    vim.lsp.enable(M.name)
    return
  end
  local group = vim.api.nvim_create_augroup("crane", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.config.filetypes,
    callback = function(event)
      M.attach(event.buf)
    end,
  })
end

return M
