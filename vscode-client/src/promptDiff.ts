// "Compare prompt with HEAD": VS Code's diff editor on a test's rendered prompt at HEAD (left) and as
// the unsaved buffer makes it (right). The language server renders both (custom request
// agentv/renderedPrompt; see server/agentv_lsp/lsp/features/prompt_diff.py) before the editor opens;
// the two sides are read-only virtual documents this extension issued (`VirtualDocuments`): an
// `agentv-prompt:` link anywhere else is refused, never forwarded to the server. The sides' names
// ("HEAD (7195137)", "unsaved buffer") go in the tab title, not in the texts: an unchanged prompt
// shows no change.
import * as vsc from "./common/vscodeapi";
import type { Disposable, Uri } from "./common/vscodeapi";
import { VirtualDocuments } from "./virtualDocs";

export const COMPARE_COMMAND = "agentv.comparePromptWithHead";
export const PROMPT_SCHEME = "agentv-prompt";
const RENDERED_PROMPT = "agentv/renderedPrompt";

export type Side = "head" | "buffer";
interface Target {
  uri: string;
  caseId?: string;
}
export type Request = (method: string, params: unknown) => Promise<unknown>;
export type PreviewAt = (uri: string, line: number) => Promise<unknown>;

const DEFAULT_LABEL: Record<Side, string> = { head: "HEAD", buffer: "unsaved buffer" };
// What servers before the `label` field wrote on line 1: `# id (file, SIDE)` or `# SIDE: what is missing`.
const SIDE = String.raw`(?:HEAD \([0-9a-f]+\)|HEAD|unsaved buffer)`;
const OLD_HEADING = new RegExp(String.raw`^(# .*), (${SIDE})\)$`);
const OLD_MISSING = new RegExp(String.raw`^# (${SIDE}): `);

/**
 * One side as the server answered it: `{text, label}` (the prompt alone, and the side's name), or from
 * a server without `label`, `{text}` whose first line names the side (taken out here, so that the two
 * sides of an unchanged prompt are the same text), or `{error}`.
 */
export function renderedSide(answer: unknown, side: Side): { text: string; label: string } {
  const a = (answer && typeof answer === "object" ? answer : {}) as Record<string, unknown>;
  if (typeof a.text !== "string") {
    return { text: `AgentV could not render this prompt: ${String(a.error ?? "no answer")}`, label: DEFAULT_LABEL[side] };
  }
  if (typeof a.label === "string") return { text: a.text, label: a.label || DEFAULT_LABEL[side] };
  const newline = a.text.indexOf("\n");
  const first = newline < 0 ? a.text : a.text.slice(0, newline);
  const rest = newline < 0 ? "" : a.text.slice(newline);
  const heading = OLD_HEADING.exec(first);
  if (heading) return { text: `${heading[1]})${rest}`, label: heading[2] };
  const missing = OLD_MISSING.exec(first);
  if (missing) return { text: `# ${a.text.slice(missing[0].length)}`, label: missing[1] };
  return { text: a.text, label: DEFAULT_LABEL[side] };
}

/** The tab title of the diff editor: the test and the two sides' names. */
export function compareTitle(testId: string, left: string, right: string): string {
  return `${testId}: ${left} ↔ ${right}`;
}

/** The readable path of one side's document (the tab shows it): file, test, side. */
export function promptPath(target: { uri: string; caseId: string }, side: Side): string[] {
  const base = decodeURIComponent(target.uri.split("/").pop() ?? "eval");
  return [base, `${target.caseId}.${side === "head" ? "HEAD" : "buffer"}.prompt`];
}

function firstTarget(args: unknown[]): Target | undefined {
  const a = args[0];
  if (a && typeof a === "object" && typeof (a as Target).uri === "string") return a as Target;
  return undefined;
}

async function render(request: Request, uri: string, testId: string, side: Side): Promise<{ text: string; label: string }> {
  try {
    return renderedSide(await request(RENDERED_PROMPT, { uri, testId, side }), side);
  } catch (err) {
    return renderedSide({ error: String(err) }, side);
  }
}

export function registerPromptDiff(request: Request, previewAt: PreviewAt, documents = new VirtualDocuments(PROMPT_SCHEME)): Disposable[] {
  const provider = vsc.registerTextDocumentContentProvider(PROMPT_SCHEME, (uri: Uri) => documents.provide(uri.query));
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
    const named = { uri: target.uri, caseId: target.caseId };
    const [head, buffer] = await Promise.all([
      render(request, named.uri, named.caseId, "head"),
      render(request, named.uri, named.caseId, "buffer"),
    ]);
    // fresh addresses each time: the documents hold this rendering
    const left = vsc.uriParse(documents.issue(promptPath(named, "head"), head.text));
    const right = vsc.uriParse(documents.issue(promptPath(named, "buffer"), buffer.text));
    await vsc.executeCommand("vscode.diff", left, right, compareTitle(named.caseId, head.label, buffer.label));
  });
  return [provider, command];
}
