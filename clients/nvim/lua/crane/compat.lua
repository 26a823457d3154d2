-- Differences between Neovim 0.7 and 0.11+ in one place.
local M = {}

M.has_config_api = vim.fn.has("nvim-0.11") == 1 and vim.lsp.config ~= nil and vim.lsp.enable ~= nil

--- Send a request on a client, method-style on 0.11+, field-style before.
function M.request(client, method, params, handler, bufnr)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- Stop a client.
function M.stop(client)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:stop()
  end
  return client.stop()
end

--- The crane clients attached to a buffer (or all crane clients when bufnr is nil).
function M.clients(bufnr, name)
  local found = {}
  if vim.lsp.get_clients then
    found = vim.lsp.get_clients({ bufnr = bufnr, name = name })
  else
    for _, client in pairs(bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()) do
      if client.name == name then
        table.insert(found, client)
      end
    end
  end
  return found
end

--- Encode JSON on any version.
function M.json_encode(value)
  if vim.json and vim.json.encode then
    return vim.json.encode(value)
  end
  return vim.fn.json_encode(value)
end

return M
