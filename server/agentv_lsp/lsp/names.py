"""Names the server and its client share, kept in one place: the commands a lens or the
client runs, and the kinds of lens above each test (both formats' lenses and `listing`'s
lean lens data use them)."""

from __future__ import annotations

PREVIEW_CASE = "agentv.previewCase"
PREVIEW_FILE = "agentv.previewFile"
STATUS = "agentv/status"

# what a lens shows: the preview command, a one-line summary, or "Compare prompt with HEAD"
LENS_PREVIEW, LENS_SUMMARY, LENS_COMPARE = LENS_KINDS = ("preview", "summary", "compare")
