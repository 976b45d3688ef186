// Pure logic: the static HTML shell of the preview webview. All eval content is sent later by
// postMessage and rendered with textContent (src/preview/webview/render.ts), never as HTML.

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** 32 random alphanumerics; `random` is injectable for tests. */
export function makeNonce(random: () => number = Math.random): string {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let out = "";
  for (let i = 0; i < 32; i++) out += chars.charAt(Math.floor(random() * chars.length));
  return out;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
}

export function webviewHtml(opts: { cspSource: string; nonce: string; scriptUri: string; styleUri: string; title: string }): string {
  const csp = contentSecurityPolicy(opts.cspSource, opts.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(opts.styleUri)}">
<title>${escapeHtml(opts.title)}</title>
</head>
<body>
<main id="root" aria-live="polite"><p class="empty">Loading AgentV preview…</p></main>
<script nonce="${escapeHtml(opts.nonce)}" src="${escapeHtml(opts.scriptUri)}"></script>
</body>
</html>`;
}
