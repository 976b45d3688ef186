"""The subcommands of `agentv-lsp`, one module each: glue from the parsed arguments (`cli.py`)
to the core and the formats (`formats.registry`), and the exit status."""

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
