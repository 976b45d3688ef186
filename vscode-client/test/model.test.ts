import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  normalizeCase,
  normalizeFile,
  normalizeStatus,
  parseFromWebview,
  parsePreviewTarget,
  resolveLinkedFile,
  previewCaseArgs,
  previewFileArgs,
} from "../src/preview/model";

const U = "file:///ws/evals/a.yaml";

describe("command arguments", () => {
  it("agentv.previewCase: a case id wins over a position", () => {
    assert.deepEqual(previewCaseArgs(U, { caseId: "c1", position: { line: 1, character: 2 } }), [{ uri: U, caseId: "c1" }]);
    assert.deepEqual(previewCaseArgs(U, { position: { line: 3, character: 4 } }), [
      { uri: U, position: { line: 3, character: 4 } },
    ]);
    assert.deepEqual(previewCaseArgs(U, {}), [{ uri: U }]);
  });
  it("agentv.previewFile", () => {
    assert.deepEqual(previewFileArgs(U), [{ uri: U }]);
  });
  it("parses code lens arguments", () => {
    assert.deepEqual(parsePreviewTarget([{ uri: U, caseId: "c1" }]), { uri: U, caseId: "c1" });
    assert.deepEqual(parsePreviewTarget([{ uri: U, position: { line: 1, character: 0 } }]), {
      uri: U,
      position: { line: 1, character: 0 },
    });
    assert.deepEqual(parsePreviewTarget([{ uri: U, caseId: "", position: { line: "x" } }]), { uri: U });
    assert.equal(parsePreviewTarget([]), undefined);
    assert.equal(parsePreviewTarget(["nope"]), undefined);
    assert.equal(parsePreviewTarget([{ caseId: "c1" }]), undefined);
  });
  it("accepts a vscode.Uri-like object from other extensions", () => {
    const uri = { scheme: "file", toString: () => U };
    assert.deepEqual(parsePreviewTarget([{ uri }]), { uri: U });
  });
});

describe("normalizeCase", () => {
  it("keeps a well-formed case", () => {
    const raw = {
      id: "c1",
      conversation_id: null,
      expected_outcome: "ok",
      lm: { question: "q", guidelines: "g", chatPrompt: [{ role: "user", content: "hi" }] },
      agent: { question: "aq", guidelines: "", chatPrompt: null },
      guideline_paths: ["/g.md"],
      file_paths: [],
      reference_answer: "r",
      judge_prompt: { question: "jq", systemPrompt: "js" },
      warnings: ["w"],
    };
    assert.deepEqual(normalizeCase(raw), raw);
  });
  it("fills gaps and stringifies odd values", () => {
    const c = normalizeCase({ id: 7, lm: { chatPrompt: [{ role: "user", content: [{ type: "text", value: "x" }] }, null] } });
    assert.ok(c);
    assert.equal(c.id, "7");
    assert.equal(c.agent.question, "");
    assert.equal(c.lm.chatPrompt?.[0].content, JSON.stringify([{ type: "text", value: "x" }], null, 2));
    assert.deepEqual(c.lm.chatPrompt?.[1], { role: "unknown", content: '""' });
    assert.equal(c.judge_prompt, null);
    assert.deepEqual(c.warnings, []);
  });
  it("keeps a case AgentV skips, with its error", () => {
    const c = normalizeCase({ id: null, index: 2, error: "AgentV skips this case: missing outcome", warnings: ["w"] });
    assert.ok(c);
    assert.equal(c.id, "(case without an id)");
    assert.equal(c.error, "AgentV skips this case: missing outcome");
    assert.deepEqual(c.warnings, ["w"]);
    assert.equal(normalizeCase({ id: "x" })?.error, undefined);
  });
  it("returns null for anything that is not a case", () => {
    assert.equal(normalizeCase(null), null);
    assert.equal(normalizeCase([]), null);
    assert.equal(normalizeCase({ lm: {} }), null);
    assert.equal(normalizeCase("c1"), null);
  });
  it("normalizes a file preview, dropping broken cases", () => {
    const f = normalizeFile({ file: "/ws/a.yaml", load_error: null, warnings: ["w"], cases: [{ id: "a" }, 3, null] });
    assert.ok(f);
    assert.equal(f.cases.length, 1);
    assert.equal(normalizeFile(undefined), null);
  });
  it("normalizes the status answer", () => {
    assert.deepEqual(normalizeStatus({ schema: "agentv-eval-v2", config: null, kind: "eval", targets: "/t.yaml", cases: 3 }), {
      schema: "agentv-eval-v2",
      config: null,
      kind: "eval",
      targets: "/t.yaml",
      cases: 3,
    });
    assert.equal(normalizeStatus(null), null);
  });
});

describe("webview messages", () => {
  it("accepts only known, well-typed messages", () => {
    assert.deepEqual(parseFromWebview({ type: "copy", text: "x" }), { type: "copy", text: "x" });
    assert.deepEqual(parseFromWebview({ type: "ready" }), { type: "ready" });
    assert.deepEqual(parseFromWebview({ type: "openFile", path: "/a" }), { type: "openFile", path: "/a" });
    assert.equal(parseFromWebview({ type: "copy", text: 5 }), undefined);
    assert.equal(parseFromWebview({ type: "openFile", path: "" }), undefined);
    assert.equal(parseFromWebview({ type: "runCommand", id: "x" }), undefined);
    assert.equal(parseFromWebview("copy"), undefined);
  });
});

describe("resolveLinkedFile", () => {
  const files = new Set(["/repo/prompts/a.md", "/repo/evals/snippets/p.py", "/abs/x.md"]);
  const exists = (p: string) => files.has(p);
  it("keeps an existing absolute path", () => {
    assert.equal(resolveLinkedFile("/abs/x.md", "/repo/evals/e.yaml", "/repo", exists), "/abs/x.md");
    assert.equal(resolveLinkedFile("/abs/nope.md", "/repo/evals/e.yaml", "/repo", exists), undefined);
  });
  it("tries the workspace folder (repo-relative paths), then the eval file's folder", () => {
    assert.equal(resolveLinkedFile("prompts/a.md", "/repo/evals/e.yaml", "/repo", exists), "/repo/prompts/a.md");
    assert.equal(resolveLinkedFile("snippets/p.py", "/repo/evals/e.yaml", "/repo", exists), "/repo/evals/snippets/p.py");
    assert.equal(resolveLinkedFile("nope.md", "/repo/evals/e.yaml", "/repo", exists), undefined);
    assert.equal(resolveLinkedFile("prompts/a.md", undefined, undefined, exists), undefined);
  });
});
