import assert from "node:assert/strict";
import { after, beforeEach, describe, it } from "node:test";
import { Window } from "happy-dom";
import type { CasePreview, FilePreview } from "../src/preview/model";
import { type Mode, renderCase, renderFile, renderMessage } from "../src/preview/webview/render";

const win = new Window();
const document = win.document as unknown as Document;
after(() => win.happyDOM.close());

const EVIL = `<img src=x onerror=alert(1)><script>alert(2)</script><b>bold?</b>&amp;`;

function kase(over: Partial<CasePreview> = {}): CasePreview {
  return {
    id: "case-<1>",
    conversation_id: "conv",
    expected_outcome: `outcome ${EVIL}`,
    lm: {
      question: `question ${EVIL}`,
      guidelines: `guidelines ${EVIL}`,
      chatPrompt: [
        { role: "system", content: `system ${EVIL}` },
        { role: "user", content: "user says hi" },
        { role: "assistant", content: "assistant reply" },
        { role: `x" onclick="alert(3)`, content: "odd role" },
      ],
    },
    agent: { question: "agent question", guidelines: "", chatPrompt: null },
    guideline_paths: ["/ws/prompts/a.instructions.md"],
    file_paths: [`/ws/files/${EVIL}.txt`],
    reference_answer: "reference",
    judge_prompt: { question: "judge question", systemPrompt: `judge system ${EVIL}` },
    warnings: [`warning ${EVIL}`],
    ...over,
  };
}

let calls: { copy: string[]; open: string[]; mode: Mode[] };
const hooks = {
  copy: (t: string) => calls.copy.push(t),
  openFile: (p: string) => calls.open.push(p),
  setMode: (m: Mode) => calls.mode.push(m),
};
beforeEach(() => {
  calls = { copy: [], open: [], mode: [] };
});

function mount(node: HTMLElement): HTMLElement {
  document.body.replaceChildren(node);
  return node;
}

describe("renderCase escapes everything", () => {
  it("creates no element from eval content", () => {
    const root = mount(renderCase(document, kase(), "lm", "evals/a.yaml", hooks));
    assert.equal(root.querySelectorAll("img, script, b").length, 0);
    // The text is shown literally.
    assert.ok(root.textContent?.includes("<img src=x onerror=alert(1)>"));
    assert.ok(root.textContent?.includes("&amp;"));
    assert.equal(root.querySelector("h1")?.textContent, "case-<1>");
  });

  it("keeps hostile roles out of class names and attributes", () => {
    const root = mount(renderCase(document, kase(), "lm", "", hooks));
    const bubbles = [...root.querySelectorAll(".bubble")];
    assert.deepEqual(
      bubbles.map((b) => b.className),
      ["bubble role-system", "bubble role-user", "bubble role-assistant", "bubble role-other"],
    );
    assert.equal(bubbles[3].getAttribute("onclick"), null);
    assert.equal(bubbles[3].getAttribute("data-role"), `x" onclick="alert(3)`);
  });
});

describe("renderCase content", () => {
  it("shows the chat prompt as one bubble per message, in order", () => {
    const root = mount(renderCase(document, kase(), "lm", "", hooks));
    const texts = [...root.querySelectorAll(".bubble pre")].map((p) => p.textContent);
    assert.deepEqual(texts, [`system ${EVIL}`, "user says hi", "assistant reply", "odd role"]);
    assert.deepEqual([...root.querySelectorAll(".bubble .role")].map((r) => r.textContent), [
      "system",
      "user",
      "assistant",
      `x" onclick="alert(3)`,
    ]);
  });

  it("has the sections of the selected mode", () => {
    const root = mount(renderCase(document, kase(), "lm", "evals/a.yaml", hooks));
    const sections = [...root.querySelectorAll("[data-section]")].map((s) => s.getAttribute("data-section"));
    assert.deepEqual(sections, [
      "warnings",
      "expected",
      "question",
      "chat",
      "guidelines",
      "judge",
      "judge-system",
      "judge-question",
      "reference",
      "guideline-paths",
      "file-paths",
    ]);
    assert.equal(root.querySelector("[data-section=question] pre")?.textContent, `question ${EVIL}`);
    assert.equal(root.querySelector(".meta .file")?.textContent, "evals/a.yaml");
    assert.equal(root.querySelector(".badge")?.textContent, "conversation: conv");
  });

  it("agent mode shows the agent question and explains a missing chat prompt", () => {
    const root = mount(renderCase(document, kase(), "agent", "", hooks));
    assert.equal(root.getAttribute("data-mode"), "agent");
    assert.equal(root.querySelector("[data-section=question] pre")?.textContent, "agent question");
    assert.equal(root.querySelectorAll(".bubble").length, 0);
    assert.match(root.querySelector("[data-section=chat] .note")?.textContent ?? "", /No chat prompt/);
    assert.equal(root.querySelector("[data-section=guidelines]"), null);
    const active = root.querySelector(".tab.active");
    assert.equal(active?.getAttribute("data-mode"), "agent");
    assert.equal(active?.getAttribute("aria-selected"), "true");
  });

  it("omits empty optional sections", () => {
    const root = mount(
      renderCase(
        document,
        kase({ judge_prompt: null, reference_answer: "", guideline_paths: [], file_paths: [], warnings: [], expected_outcome: "" }),
        "lm",
        "",
        hooks,
      ),
    );
    for (const s of ["judge", "reference", "guideline-paths", "file-paths", "warnings", "expected"]) {
      assert.equal(root.querySelector(`[data-section=${s}]`), null, s);
    }
  });
});

describe("a case AgentV skips", () => {
  it("shows the error and the warnings, and no prompt sections", () => {
    const c = { ...kase({ warnings: ["w1"], error: `AgentV skips this case: ${EVIL}` }) };
    const root = mount(renderCase(document, c, "lm", "", hooks));
    assert.equal(root.querySelector("[data-section=error]")?.textContent, `AgentV skips this case: ${EVIL}`);
    assert.equal(root.querySelectorAll("[data-section=warnings] li").length, 1);
    assert.equal(root.querySelector("[data-section=question]"), null);
    assert.equal(root.querySelectorAll("img, script, b").length, 0);
  });
});

describe("interaction", () => {
  it("copy buttons copy the raw text", () => {
    const root = mount(renderCase(document, kase(), "lm", "", hooks));
    (root.querySelector("[data-section=question] button.copy") as HTMLButtonElement).click();
    (root.querySelectorAll(".bubble button.copy")[0] as HTMLButtonElement).click();
    (root.querySelector("[data-section=chat] > .block-head button.copy") as HTMLButtonElement).click();
    assert.deepEqual(calls.copy.slice(0, 2), [`question ${EVIL}`, `system ${EVIL}`]);
    assert.deepEqual(JSON.parse(calls.copy[2]), kase().lm.chatPrompt);
  });

  it("tabs switch the mode and file links open files", () => {
    const root = mount(renderCase(document, kase(), "lm", "", hooks));
    (root.querySelector("button.tab[data-mode=agent]") as HTMLButtonElement).click();
    assert.deepEqual(calls.mode, ["agent"]);
    (root.querySelector("[data-section=file-paths] a") as HTMLAnchorElement).click();
    assert.deepEqual(calls.open, [`/ws/files/${EVIL}.txt`]);
  });
});

describe("file and status messages", () => {
  it("renders every case of a file and the load error as text", () => {
    const fp: FilePreview = { file: "/ws/a.yaml", load_error: `bad ${EVIL}`, warnings: ["w1"], cases: [kase(), kase({ id: "two" })] };
    const root = mount(renderFile(document, fp, "lm", "evals/a.yaml", hooks));
    assert.deepEqual([...root.querySelectorAll("summary")].map((s) => s.textContent), ["case-<1>", "two"]);
    assert.equal(root.querySelector(".error")?.textContent, `bad ${EVIL}`);
    assert.equal(root.querySelectorAll("img, script, b").length, 0);
    // Nested cases carry no tabs of their own.
    assert.equal(root.querySelectorAll(".tabs").length, 1);
  });

  it("renders empty and error messages as text", () => {
    const e = mount(renderMessage(document, { type: "error", message: EVIL }, "lm", hooks));
    assert.equal(e.className, "error");
    assert.equal(e.textContent, EVIL);
    const m = mount(renderMessage(document, { type: "empty", message: "nothing" }, "lm", hooks));
    assert.equal(m.className, "empty");
  });
});
