import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contentSecurityPolicy, escapeHtml, makeNonce, webviewHtml } from "../src/preview/html";

describe("escapeHtml", () => {
  it("escapes the five HTML metacharacters", () => {
    assert.equal(escapeHtml(`<a href="x" onclick='y'>&</a>`), "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
    assert.equal(escapeHtml("plain"), "plain");
  });
});

describe("nonce", () => {
  it("is 32 alphanumerics and differs between calls", () => {
    const a = makeNonce();
    assert.match(a, /^[A-Za-z0-9]{32}$/);
    assert.notEqual(a, makeNonce());
  });
});

describe("webview shell", () => {
  const html = webviewHtml({
    cspSource: "https://csp.test",
    nonce: "N0NCE",
    scriptUri: "https://csp.test/dist/webview.js",
    styleUri: "https://csp.test/media/preview.css",
    title: `</title><script>alert(1)</script>`,
  });
  it("has a strict CSP: no inline script or style, scripts only with the nonce", () => {
    const csp = contentSecurityPolicy("https://csp.test", "N0NCE");
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-N0NCE'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.ok(html.includes(`content="${escapeHtml(csp)}"`));
  });
  it("loads exactly one script, with the nonce", () => {
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.match(html, /<script nonce="N0NCE" src="https:\/\/csp.test\/dist\/webview.js"><\/script>/);
  });
  it("escapes the title", () => {
    assert.ok(html.includes("&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
  });
});
