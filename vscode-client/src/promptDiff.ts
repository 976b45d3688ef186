// "Compare prompt with HEAD": VS Code's diff editor on a test's rendered prompt at HEAD (left) and as
// the unsaved buffer makes it (right). Both sides are read-only virtual documents whose text the
// language server renders (custom request agentv/renderedPrompt; see server/agentv_lsp/lsp/features/prompt_diff.py).
import * as vsc from "./common/vscodeapi";
import type { Disposable, Uri } from "./common/vscodeapi";

export const COMPARE_COMMAND = "agentv.comparePromptWithHead";
export const PROMPT_SCHEME = "agentv-prompt";
const RENDERED_PROMPT = "agentv/renderedPrompt";

type Side = "head" | "buffer";
interface Target {
  uri: string;
  caseId?: string;
}
export type Request = (method: string, params: unknown) => Promise<unknown>;
export type PreviewAt = (uri: string, line: number) => Promise<unknown>;

/** The virtual document's address: readable in the tab title, the request in its query. */
export function promptUri(target: { uri: string; caseId: string }, side: Side, nonce: number): string {
  const base = target.uri.split("/").pop() ?? "eval";
  const label = side === "head" ? "HEAD" : "buffer";
  const query = encodeURIComponent(JSON.stringify({ uri: target.uri, testId: target.caseId, side, nonce }));
  return `${PROMPT_SCHEME}:/${encodeURIComponent(base)}/${encodeURIComponent(target.caseId)}.${label}.prompt?${query}`;
}

export function parsePromptQuery(query: string): { uri: string; testId: string; side: Side } | undefined {
  try {
    const o = JSON.parse(decodeURIComponent(query)) as Record<string, unknown>;
    if (typeof o.uri === "string" && typeof o.testId === "string" && (o.side === "head" || o.side === "buffer")) {
      return { uri: o.uri, testId: o.testId, side: o.side };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function firstTarget(args: unknown[]): Target | undefined {
  const a = args[0];
  if (a && typeof a === "object" && typeof (a as Target).uri === "string") return a as Target;
  return undefined;
}

export function registerPromptDiff(request: Request, previewAt: PreviewAt): Disposable[] {
  let nonce = 0;
  const provider = vsc.registerTextDocumentContentProvider(PROMPT_SCHEME, async (uri: Uri) => {
    const q = parsePromptQuery(uri.query);
    if (!q) return "Not an AgentV prompt address.";
    try {
      const answer = (await request(RENDERED_PROMPT, q)) as { text?: unknown; error?: unknown } | undefined;
      if (answer && typeof answer.text === "string") return answer.text;
      return `AgentV could not render this prompt: ${String(answer?.error ?? "no answer")}`;
    } catch (err) {
      return `AgentV could not render this prompt: ${String(err)}`;
    }
  });
  const command = vsc.registerCommand(COMPARE_COMMAND, async (...args: unknown[]) => {
    let target = firstTarget(args);
    if (!target) {
      // from the palette: the test under the cursor of the active editor
      const editor = vsc.activeTextEditor();
      if (!editor) return;
      const found = (await previewAt(editor.document.uri.toString(), editor.selection.active.line)) as { id?: unknown } | null;
      if (!found || typeof found.id !== "string") {
        void vsc.showInformationMessage("AgentV: put the cursor in a test to compare its prompt with HEAD.");
        return;
      }
      target = { uri: editor.document.uri.toString(), caseId: found.id };
    }
    if (!target.caseId) return;
    nonce += 1; // a fresh address each time: the documents are rendered anew
    const named = { uri: target.uri, caseId: target.caseId };
    const left = vsc.uriParse(promptUri(named, "head", nonce));
    const right = vsc.uriParse(promptUri(named, "buffer", nonce));
    await vsc.executeCommand("vscode.diff", left, right, `${target.caseId}: prompt at HEAD ↔ buffer`);
  });
  return [provider, command];
}
