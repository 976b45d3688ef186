-- Headless Neovim as an LSP client of `agentv-lsp serve` (tests/editors/test_neovim.py): open one
-- file, wait for diagnostics, hover at a position, write both as JSON, quit. Uses the
-- vim.lsp.start_client API that Neovim 0.7 (Debian 12) already has.
local root = vim.env.AGENTV_ROOT
local file = root .. "/evals/a.eval.yaml"
local client_id = vim.lsp.start_client({
  name = "agentv",
  cmd = { vim.env.AGENTV_PYTHON, "-m", "agentv_lsp", "serve" },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = "w" } },
})
vim.cmd("edit " .. file)
vim.lsp.buf_attach_client(0, client_id)
vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local diags = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(diags, { lnum = d.lnum, col = d.col, message = d.message, code = d.code })
end
vim.api.nvim_win_set_cursor(0, { tonumber(vim.env.AGENTV_HOVER_LINE), tonumber(vim.env.AGENTV_HOVER_COL) })
local params = vim.lsp.util.make_position_params()
local responses = vim.lsp.buf_request_sync(0, "textDocument/hover", params, 20000) or {}
local hover = nil
for _, r in pairs(responses) do
  if r.result and r.result.contents then hover = r.result.contents end
end
local f = io.open(vim.env.AGENTV_NVIM_OUT, "w")
f:write(vim.fn.json_encode({ diagnostics = diags, hover = hover }))
f:close()
vim.lsp.stop_client(client_id)
vim.cmd("qa!")
