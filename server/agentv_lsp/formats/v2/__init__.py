"""AgentV v2 (`agentv-eval-v2`, `evalcases:`): config, loader, prompt builder, judge, preview and
the checks (validate, schema, losses, document, split), over the shared core in `engine/` and
`checks/`."""
