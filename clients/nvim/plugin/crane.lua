-- crane is configured by require("crane").setup({...}); nothing runs until then.
if vim.g.loaded_crane then
  return
end
vim.g.loaded_crane = true
