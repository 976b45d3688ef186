// The preview webview beside the editor. The server computes the preview (agentv.previewCase /
// agentv.previewFile); this class only asks for it, keeps it in sync with the cursor and the text
// (debounced), and posts it to the webview, which renders it with textContent.
import * as fs from "fs";
import * as path from "path";
import * as vsc from "../common/vscodeapi";
import type { Disposable, TextDocument, TextEditor, Uri, WebviewPanel } from "../common/vscodeapi";
import { makeNonce, webviewHtml } from "./html";
import { type Pos, type ToWebview, normalizeCase, normalizeFile, parseFromWebview, resolveLinkedFile } from "./model";

export interface PreviewSource {
  /** Executes agentv.previewCase on the server. Throws when the server is not running. */
  previewCase(uri: string, target: { caseId?: string; position?: Pos }): Promise<unknown>;
  previewFile(uri: string): Promise<unknown>;
}

export interface PreviewOptions {
  debounceMs(): number;
  followCursor(): boolean;
  /** Whether a document is one the server handles (same selector as the language client). */
  isEvalDocument(doc: TextDocument): boolean;
}

type View = { kind: "case"; uri: string; caseId?: string; position?: Pos } | { kind: "file"; uri: string };

export class PreviewPanel implements Disposable {
  static readonly viewType = "agentv.preview";
  private panel: WebviewPanel | undefined;
  private view: View | undefined;
  private lastCaseId: string | undefined;
  private lastMessage: ToWebview | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private seq = 0;
  private readonly disposables: Disposable[] = [];
  private panelDisposables: Disposable[] = [];

  constructor(
    private readonly extensionUri: Uri,
    private readonly source: PreviewSource,
    private readonly options: PreviewOptions,
    private readonly log: { warn(msg: string): void; debug?(msg: string): void },
  ) {
    this.disposables.push(
      vsc.onDidChangeTextEditorSelection((e) => this.onSelection(e.textEditor)),
      vsc.onDidChangeActiveTextEditor((e) => e && this.onSelection(e)),
      vsc.onDidChangeTextDocument((e) => {
        if (this.view && e.document.uri.toString() === this.view.uri && e.contentChanges.length > 0) this.schedule();
      }),
    );
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  /** Shows the case at `target` (a case id, or a position; by default the active editor's cursor). */
  showCase(target?: { uri: string; caseId?: string; position?: Pos }): void {
    const t = target ?? this.targetFromEditor(vsc.activeTextEditor());
    if (!t) {
      void vsc.showInformationMessage("AgentV: open an eval YAML file and put the cursor in an eval case to preview it.");
      return;
    }
    this.view = { kind: "case", ...t };
    this.ensurePanel();
    void this.refresh();
  }

  showFile(uri?: string): void {
    const u = uri ?? vsc.activeTextEditor()?.document.uri.toString();
    if (!u) {
      void vsc.showInformationMessage("AgentV: open an eval YAML file to preview it.");
      return;
    }
    this.view = { kind: "file", uri: u };
    this.ensurePanel();
    void this.refresh();
  }

  /** Re-runs the current preview, e.g. after the server restarted. */
  /** The previewed file was renamed (a migration): follow it, and show it again. */
  followRename(oldUri: string, newUri: string): void {
    if (this.view && this.view.uri === oldUri) this.view = { ...this.view, uri: newUri };
    this.refreshNow();
  }

  refreshNow(): void {
    if (this.panel) void this.refresh();
  }

  private targetFromEditor(ed: TextEditor | undefined): { uri: string; position: Pos } | undefined {
    if (!ed) return undefined;
    const doc = ed.document;
    if (!this.options.isEvalDocument(doc)) return undefined;
    const p = ed.selection.active;
    return { uri: doc.uri.toString(), position: { line: p.line, character: p.character } };
  }

  private onSelection(ed: TextEditor): void {
    if (!this.panel || !this.options.followCursor()) return;
    if (this.view?.kind === "file") {
      // A file preview follows the active file, not the cursor.
      const uri = ed.document.uri.toString();
      if (uri !== this.view.uri && this.options.isEvalDocument(ed.document)) {
        this.view = { kind: "file", uri };
        this.schedule();
      }
      return;
    }
    const t = this.targetFromEditor(ed);
    if (!t) return;
    this.view = { kind: "case", ...t };
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, this.options.debounceMs());
  }

  private async refresh(): Promise<void> {
    const view = this.view;
    if (!view || !this.panel) return;
    const mine = ++this.seq;
    const fileName = displayName(view.uri);
    let msg: ToWebview;
    try {
      if (view.kind === "file") {
        const fp = normalizeFile(await this.source.previewFile(view.uri));
        msg = fp
          ? { type: "file", file: fp, fileName }
          : { type: "empty", message: `The AgentV server returned no preview for ${fileName}.` };
      } else {
        const target = view.caseId ? { caseId: view.caseId } : { position: view.position };
        const c = normalizeCase(await this.source.previewCase(view.uri, target));
        if (c) {
          msg = { type: "case", case: c, fileName };
          this.lastCaseId = c.id;
        } else if (this.lastMessage?.type === "case" && this.lastMessage.fileName === fileName && !view.caseId) {
          return; // cursor between cases: keep showing the last one
        } else {
          msg = { type: "empty", message: `No eval case at the cursor in ${fileName}. Move the cursor into an eval case.` };
        }
      }
    } catch (err) {
      this.log.warn(`preview failed: ${String(err)}`);
      msg = { type: "error", message: `AgentV preview failed: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (mine !== this.seq || !this.panel) return; // a newer refresh is under way
    this.post(msg);
  }

  private post(msg: ToWebview): void {
    if (!this.panel) return;
    this.lastMessage = msg;
    this.panel.title =
      msg.type === "case" ? `Preview: ${msg.case.id}` : msg.type === "file" ? `Preview: ${msg.fileName}` : "AgentV Preview";
    void this.panel.webview.postMessage(msg);
  }

  private ensurePanel(): void {
    if (this.panel) {
      vsc.revealPanel(this.panel);
      return;
    }
    const dist = vsc.joinPath(this.extensionUri, "dist");
    const media = vsc.joinPath(this.extensionUri, "media");
    const panel = vsc.createPreviewPanel(PreviewPanel.viewType, "AgentV Preview", [dist, media]);
    const nonce = makeNonce();
    panel.webview.html = webviewHtml({
      cspSource: panel.webview.cspSource,
      nonce,
      scriptUri: panel.webview.asWebviewUri(vsc.joinPath(dist, "webview.js")).toString(),
      styleUri: panel.webview.asWebviewUri(vsc.joinPath(media, "preview.css")).toString(),
      title: "AgentV Preview",
    });
    this.panelDisposables = [
      panel.webview.onDidReceiveMessage((m) => this.onMessage(m)),
      panel.onDidDispose(() => {
        this.panel = undefined;
        this.view = undefined;
        this.lastMessage = undefined;
        this.lastCaseId = undefined;
        this.panelDisposables.forEach((d) => d.dispose());
        this.panelDisposables = [];
      }),
    ];
    this.panel = panel;
  }

  private onMessage(raw: unknown): void {
    const m = parseFromWebview(raw);
    if (!m) return;
    if (m.type === "ready") {
      // The webview (re)loaded: send it the current content.
      if (this.lastMessage) void this.panel?.webview.postMessage(this.lastMessage);
    } else if (m.type === "copy") {
      void vsc.writeClipboard(m.text).then(() => vsc.showInformationMessage("AgentV: copied to the clipboard."));
    } else if (m.type === "openFile") {
      const doc = this.view ? vsc.uriParse(this.view.uri) : undefined;
      const folder = doc ? vsc.getWorkspaceFolder(doc)?.uri.fsPath : undefined;
      const target = resolveLinkedFile(m.path, doc?.fsPath, folder, fs.existsSync);
      if (!target) {
        void vsc.showWarningMessage(`AgentV: cannot find ${m.path}.`);
        return;
      }
      void vsc.showTextDocument(vsc.uriFile(target)).catch((e) => this.log.warn(`cannot open ${target}: ${e}`));
    }
  }

  /** The id of the case last shown (for tests and the status item). */
  get currentCaseId(): string | undefined {
    return this.lastCaseId;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.panel?.dispose();
    this.disposables.forEach((d) => d.dispose());
  }
}

function displayName(uri: string): string {
  try {
    const u = vsc.uriParse(uri);
    const folder = vsc.getWorkspaceFolder(u);
    if (folder) return path.relative(folder.uri.fsPath, u.fsPath).split(path.sep).join("/");
    return path.basename(u.fsPath);
  } catch {
    return uri;
  }
}
