"""AgentV 4.42.4 (`*.eval.yaml` with `tests:`): loader, prompt builder, preview and checks."""

RUNTIME_VERSION = "4.42.4"
