// Webview entry point (bundled to dist/webview.js, loaded with the CSP nonce).
import type { ToWebview } from "../model";
import { type Mode, renderMessage } from "./render";

declare function acquireVsCodeApi(): {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(s: unknown): void;
};

const vscode = acquireVsCodeApi();
const saved = (vscode.getState() ?? {}) as { mode?: Mode; last?: ToWebview };
let mode: Mode = saved.mode === "agent" ? "agent" : "lm";
let last: ToWebview | undefined = saved.last;

function draw(): void {
  const root = document.getElementById("root");
  if (!root || !last) return;
  const scrollY = window.scrollY;
  const sameCase = root.firstElementChild?.getAttribute("data-case-id");
  const node = renderMessage(document, last, mode, {
    copy: (text) => vscode.postMessage({ type: "copy", text }),
    openFile: (path) => vscode.postMessage({ type: "openFile", path }),
    setMode: (m) => {
      mode = m;
      vscode.setState({ mode, last });
      draw();
    },
  });
  root.replaceChildren(node);
  // Keep the scroll position while typing in the same case.
  if (sameCase && sameCase === node.getAttribute("data-case-id")) window.scrollTo(0, scrollY);
}

window.addEventListener("message", (ev: MessageEvent) => {
  const msg = ev.data as ToWebview;
  if (!msg || typeof msg !== "object" || !("type" in msg)) return;
  last = msg;
  vscode.setState({ mode, last });
  draw();
});

draw();
vscode.postMessage({ type: "ready" });
