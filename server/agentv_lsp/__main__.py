"""`python -m agentv_lsp` behaves exactly like the `agentv-lsp` console script."""

import sys

from agentv_lsp.cli import main

sys.exit(main())
