import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { beforeEach, describe, it } from "node:test";
import { type FakeWebviewPanel, Uri, mock } from "./mocks/vscode";
import type { Pos } from "../src/preview/model";
import { PreviewPanel } from "../src/preview/panel";

const FILE = "/ws/evals/a.yaml";
const URI = Uri.file(FILE).toString();
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

function caseAt(line: number) {
  const id = line < 10 ? "first" : "second";
  return { id, lm: { question: `q ${id}` }, agent: {} };
}

function setup(opts: { debounceMs?: number; follow?: boolean } = {}) {
  const calls: { uri: string; target: { caseId?: string; position?: Pos } }[] = [];
  const pending: { resolve(v: unknown): void }[] = [];
  let manual = false;
  const source = {
    previewCase: async (uri: string, target: { caseId?: string; position?: Pos }) => {
      calls.push({ uri, target });
      if (manual) return new Promise((resolve) => pending.push({ resolve }));
      if (target.caseId) return { id: target.caseId, lm: { question: "by id" }, agent: {} };
      return target.position && target.position.line < 100 ? caseAt(target.position.line) : null;
    },
    previewFile: async (uri: string) => ({ file: uri, load_error: null, warnings: [], cases: [caseAt(0), caseAt(20)] }),
  };
  const warnings: string[] = [];
  const panel = new PreviewPanel(
    Uri.file("/ext") as never,
    source,
    {
      debounceMs: () => opts.debounceMs ?? 20,
      followCursor: () => opts.follow ?? true,
      isEvalDocument: (doc) => doc.languageId === "yaml",
    },
    { warn: (m) => warnings.push(m) },
  );
  return {
    panel,
    calls,
    warnings,
    manual: () => (manual = true),
    pending,
    webview: () => mock.panels[0] as FakeWebviewPanel,
    posted: () => (mock.panels[0] as FakeWebviewPanel).posted as { type: string; case?: { id: string }; message?: string }[],
  };
}

beforeEach(() => {
  mock.reset();
  mock.folders = [{ uri: Uri.file("/ws"), name: "ws", index: 0 }];
});

describe("PreviewPanel", () => {
  it("opens beside the editor with scripts on, command URIs off and local roots limited", async () => {
    const t = setup();
    mock.activeEditor = mock.editor(FILE, 3);
    t.panel.showCase();
    await tick();
    const p = t.webview();
    assert.equal(p.viewType, "agentv.preview");
    assert.equal(p.options.enableScripts, true);
    assert.equal(p.options.enableCommandUris, false);
    assert.deepEqual((p.options.localResourceRoots as Uri[]).map((u) => u.fsPath), ["/ext/dist", "/ext/media"]);
    assert.match(p.webview.html, /Content-Security-Policy/);
    assert.deepEqual(t.calls, [{ uri: URI, target: { position: { line: 3, character: 0 } } }]);
    assert.equal(t.posted()[0].type, "case");
    assert.equal(t.posted()[0].case?.id, "first");
    assert.equal(p.title, "Preview: first");
    t.panel.dispose();
  });

  it("a code lens target asks for the case by id", async () => {
    const t = setup();
    t.panel.showCase({ uri: URI, caseId: "c-42" });
    await tick();
    assert.deepEqual(t.calls[0].target, { caseId: "c-42" });
    assert.equal(t.posted()[0].case?.id, "c-42");
    t.panel.dispose();
  });

  it("follows the cursor with one debounced request per burst", async () => {
    const t = setup({ debounceMs: 30 });
    const ed = mock.editor(FILE, 1);
    mock.activeEditor = ed;
    t.panel.showCase();
    await tick();
    for (const line of [12, 13, 14, 15]) {
      mock.events.selection.fire({ textEditor: mock.editor(FILE, line) });
      await tick(5);
    }
    assert.equal(t.calls.length, 1, "still debouncing");
    await tick(60);
    assert.equal(t.calls.length, 2);
    assert.deepEqual(t.calls[1].target, { position: { line: 15, character: 0 } });
    assert.equal(t.posted().at(-1)?.case?.id, "second");
    t.panel.dispose();
  });

  it("refreshes (debounced) when the document changes", async () => {
    const t = setup({ debounceMs: 10 });
    mock.activeEditor = mock.editor(FILE, 1);
    t.panel.showCase();
    await tick();
    mock.events.textChange.fire({ document: mock.activeEditor.document, contentChanges: [{}] });
    mock.events.textChange.fire({ document: mock.activeEditor.document, contentChanges: [{}] });
    mock.events.textChange.fire({ document: mock.editor("/ws/other.yaml").document, contentChanges: [{}] });
    await tick(40);
    assert.equal(t.calls.length, 2);
    t.panel.dispose();
  });

  it("does not follow the cursor when agentv.preview.followCursor is off, nor into non-eval files", async () => {
    const t = setup({ follow: false });
    mock.activeEditor = mock.editor(FILE, 1);
    t.panel.showCase();
    await tick();
    mock.events.selection.fire({ textEditor: mock.editor(FILE, 20) });
    await tick(40);
    assert.equal(t.calls.length, 1);
    t.panel.dispose();

    const u = setup();
    mock.reset();
    mock.activeEditor = mock.editor(FILE, 1);
    u.panel.showCase();
    await tick();
    mock.events.selection.fire({ textEditor: mock.editor("/ws/readme.md", 20, 0, "markdown") });
    await tick(40);
    assert.equal(u.calls.length, 1);
    u.panel.dispose();
  });

  it("drops an answer that arrives after a newer one was requested", async () => {
    const t = setup({ debounceMs: 0 });
    t.manual();
    mock.activeEditor = mock.editor(FILE, 1);
    t.panel.showCase();
    await tick();
    mock.events.selection.fire({ textEditor: mock.editor(FILE, 20) });
    await tick(10);
    assert.equal(t.pending.length, 2);
    t.pending[1].resolve(caseAt(20));
    await tick();
    t.pending[0].resolve(caseAt(1));
    await tick();
    assert.deepEqual(t.posted().map((m) => m.case?.id), ["second"]);
    t.panel.dispose();
  });

  it("keeps the last case while the cursor is between cases, and explains an empty result otherwise", async () => {
    const t = setup({ debounceMs: 0 });
    mock.activeEditor = mock.editor(FILE, 1);
    t.panel.showCase();
    await tick();
    // A source that finds no case: the last case stays.
    (t.calls as unknown[]).length = 0;
    const p = t.posted().length;
    t.panel.showCase({ uri: URI, position: { line: 999, character: 0 } });
    await tick();
    assert.equal(t.posted().length, p);
    t.panel.dispose();

    mock.reset();
    mock.folders = [{ uri: Uri.file("/ws"), name: "ws", index: 0 }];
    const u = setup();
    u.panel.showCase({ uri: Uri.file("/ws/evals/b.yaml").toString(), position: { line: 999, character: 0 } });
    await tick();
    assert.equal(u.posted()[0].type, "empty");
    assert.match(u.posted()[0].message ?? "", /No eval case at the cursor in evals\/b.yaml/);
    u.panel.dispose();
  });

  it("shows a server failure in the panel", async () => {
    const t = setup();
    (t.panel as unknown as { source: { previewCase: () => Promise<never> } }).source.previewCase = async () => {
      throw new Error("server not running");
    };
    t.panel.showCase({ uri: URI, caseId: "x" });
    await tick();
    assert.equal(t.posted()[0].type, "error");
    assert.match(t.posted()[0].message ?? "", /server not running/);
    assert.equal(t.warnings.length, 1);
    t.panel.dispose();
  });

  it("previews a whole file", async () => {
    const t = setup();
    t.panel.showFile(URI);
    await tick();
    const m = t.posted()[0] as unknown as { type: string; file: { cases: unknown[] }; fileName: string };
    assert.equal(m.type, "file");
    assert.equal(m.file.cases.length, 2);
    assert.equal(m.fileName, "evals/a.yaml");
    t.panel.dispose();
  });

  it("handles webview messages: copy, open file, ready; ignores unknown ones", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentv-panel-"));
    fs.mkdirSync(path.join(dir, "prompts"));
    fs.mkdirSync(path.join(dir, "evals"));
    fs.writeFileSync(path.join(dir, "prompts", "a.md"), "a");
    mock.folders = [{ uri: Uri.file(dir), name: "ws", index: 0 }];
    const t = setup();
    t.panel.showCase({ uri: Uri.file(path.join(dir, "evals", "x.yaml")).toString(), caseId: "c1" });
    await tick();
    const wv = t.webview();
    wv.receive({ type: "copy", text: "copied text" });
    wv.receive({ type: "openFile", path: path.join(dir, "prompts", "a.md") });
    wv.receive({ type: "openFile", path: "prompts/a.md" });
    wv.receive({ type: "openFile", path: "prompts/missing.md" });
    wv.receive({ type: "runCommand", command: "workbench.action.terminal.new" });
    const before = wv.posted.length;
    wv.receive({ type: "ready" });
    await tick();
    assert.equal(mock.clipboard, "copied text");
    assert.deepEqual(
      mock.executed.filter((e) => e.id === "showTextDocument").map((e) => e.args[0]),
      [path.join(dir, "prompts", "a.md"), path.join(dir, "prompts", "a.md")],
    );
    assert.ok(mock.messages.some((m) => m.level === "warning" && m.text.includes("prompts/missing.md")));
    assert.equal(wv.posted.length, before + 1, "ready re-sends the current content");
    assert.equal(mock.executed.filter((e) => e.id !== "showTextDocument").length, 0);
    t.panel.dispose();
  });

  it("re-reveals one panel instead of opening a second, and resets after the user closes it", async () => {
    const t = setup();
    t.panel.showCase({ uri: URI, caseId: "a" });
    t.panel.showCase({ uri: URI, caseId: "b" });
    await tick();
    assert.equal(mock.panels.length, 1);
    assert.equal(t.webview().revealed, 1);
    t.webview().dispose();
    assert.equal(t.panel.isOpen, false);
    mock.events.selection.fire({ textEditor: mock.editor(FILE, 3) });
    await tick(40);
    assert.equal(t.calls.length, 2, "a closed panel does not refresh");
    t.panel.dispose();
  });

  it("asks for an eval file when there is no editor", async () => {
    const t = setup();
    t.panel.showCase();
    await tick();
    assert.equal(mock.panels.length, 0);
    assert.match(mock.messages[0].text, /open an eval YAML file/);
    t.panel.dispose();
  });
});
