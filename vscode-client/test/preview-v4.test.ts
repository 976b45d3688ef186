// The preview of an AgentV 4.x test (criteria, system message, expected output, assertions,
// grader prompt, runtime badge) next to a v2 case, which keeps exactly its old shape and sections.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { Window } from "happy-dom";
import { normalizeCase, normalizeFile, normalizeStatus } from "../src/preview/model";
import { renderCase, renderFile } from "../src/preview/webview/render";

const win = new Window();
const document = win.document as unknown as Document;
after(() => win.happyDOM.close());
const hooks = { copy: () => {}, openFile: () => {}, setMode: () => {} };

// As the server's agentv.previewCase returns it for a 4.x test (trimmed).
const V4 = {
  id: "sys-user",
  conversation_id: null,
  criteria: "Terse answer <b>x</b>",
  expected_output: [{ role: "assistant", content: "2" }],
  reference_answer: "2",
  file_paths: [],
  lm: {
    question: "@[System]:\nYou are terse.\n\n@[User]:\nName a prime number.",
    chatPrompt: [
      { role: "system", content: "You are terse." },
      { role: "user", content: "Name a prime number." },
    ],
    systemMessage: "You are terse.",
  },
  agent: { question: "q", chatPrompt: null, systemMessage: null },
  judge_prompt: { question: "grade it", systemPrompt: "You are an expert grader." },
  assertions: [{ name: "contains-2", type: "contains", value: "2" }],
  index: 0,
  expected_outcome: "Terse answer <b>x</b>",
  guideline_paths: [],
  role_markers: true,
  systemMessage: "You are terse.",
  runtime: "4.42.4",
  warnings: [],
};

describe("4.x previews", () => {
  it("keeps the 4.x fields", () => {
    const c = normalizeCase(V4);
    assert.ok(c);
    assert.equal(c.criteria, "Terse answer <b>x</b>");
    assert.equal(c.lm.systemMessage, "You are terse.");
    assert.equal(c.agent.systemMessage, null);
    assert.deepEqual(c.expected_output, [{ role: "assistant", content: "2" }]);
    assert.deepEqual(c.assertions, V4.assertions);
    assert.equal(c.runtime, "4.42.4");
  });

  it("shows criteria, system message, expected output, assertions and the grader prompt", () => {
    const c = normalizeCase(V4);
    assert.ok(c);
    const root = renderCase(document, c, "lm", "evals/conv.eval.yaml", hooks);
    const sections = [...root.querySelectorAll("[data-section]")].map((s) => s.getAttribute("data-section"));
    assert.deepEqual(sections, [
      "criteria",
      "question",
      "system",
      "chat",
      "expected-output",
      "assertions",
      "judge",
      "judge-system",
      "judge-question",
      "reference",
    ]);
    assert.equal(root.querySelector("[data-section=system] pre")?.textContent, "You are terse.");
    assert.equal(root.querySelector("[data-section=judge] h2")?.textContent, "Grader prompt");
    assert.equal(root.querySelectorAll("b").length, 0);
    assert.ok([...root.querySelectorAll(".badge")].some((b) => b.textContent === "AgentV 4.42.4"));
    // the agent tab has no system message
    const agent = renderCase(document, c, "agent", "", hooks);
    assert.equal(agent.querySelector("[data-section=system]"), null);
  });

  it("a file preview names the runtime", () => {
    const f = normalizeFile({ file: "evals/a.eval.yaml", load_error: null, warnings: [], cases: [V4], runtime: "4.42.4" });
    assert.ok(f);
    assert.equal(f.runtime, "4.42.4");
    const root = renderFile(document, f, "lm", "a.eval.yaml", hooks);
    assert.match(root.querySelector(".meta")?.textContent ?? "", /AgentV 4\.42\.4/);
  });

  it("status carries the runtime and its reason", () => {
    const s = normalizeStatus({
      schema: null,
      config: null,
      kind: "eval",
      targets: null,
      cases: 2,
      runtime: { major: 4, version: "4.42.4", reason: "no AgentV installed or declared", description: "…" },
    });
    assert.deepEqual(s?.runtime, { major: 4, version: "4.42.4", reason: "no AgentV installed or declared" });
    assert.equal(s?.schema, "4.42.4"); // the status item reads "AgentV 4.42.4", not "no $schema"
    assert.equal(normalizeStatus({ schema: "agentv-eval-v2", config: null })?.runtime, undefined);
  });
});
