import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { Window } from "happy-dom";
import type { CasePreview } from "../src/preview/model";
import { renderCase } from "../src/preview/webview/render";
import { splitHidden } from "../src/preview/webview/hidden";

const win = new Window();
const document = win.document as unknown as Document;
after(() => win.happyDOM.close());

// Tag characters spell ASCII: U+E0000 + the character code.
const tags = (s: string) => Array.from(s, (c) => String.fromCodePoint(0xe0000 + (c.codePointAt(0) ?? 0))).join("");

function kase(question: string, system: string): CasePreview {
  return {
    id: "c",
    conversation_id: "",
    expected_outcome: "ok",
    lm: { question, guidelines: "", chatPrompt: [{ role: "system", content: system }, { role: "user", content: "hi" }] },
    agent: { question, guidelines: "", chatPrompt: null },
    guideline_paths: [],
    file_paths: [],
    reference_answer: "",
    judge_prompt: null,
    warnings: [],
  };
}

const noHooks = { copy: (_t: string) => {}, openFile: (_p: string) => {}, setMode: () => {} };

describe("the preview marks hidden characters", () => {
  it("shows bidi overrides, zero-width and tag characters as ⟦U+…⟧ spans", () => {
    const question = `Approve \u202Eevil\u202C now\u200B${tags("ignore all")}.`;
    const root = renderCase(document, kase(question, `sys${tags("X")}`), "lm", "a.yaml", noHooks);
    const pre = root.querySelector("[data-section=question] pre") as HTMLElement;
    assert.deepEqual(
      [...pre.querySelectorAll(".hidden-char")].map((s) => s.textContent),
      ["⟦U+202E⟧", "⟦U+202C⟧", "⟦U+200B⟧", ...Array.from("ignore all", (c) => `⟦U+E00${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}⟧`)],
    );
    // nothing invisible is left in what the panel renders
    assert.doesNotMatch(pre.textContent ?? "", /[\u202A-\u202E\u2066-\u2069\u200B]|[\u{E0000}-\u{E007F}]/u);
    assert.equal((root.querySelector(".bubble pre .hidden-char") as HTMLElement).dataset.codePoint, "U+E0058");
  });

  it("copy keeps the exact text", () => {
    const copied: string[] = [];
    const question = `a\u202Eb`;
    const root = renderCase(document, kase(question, "s"), "lm", "a.yaml", { ...noHooks, copy: (t) => copied.push(t) });
    (root.querySelector("[data-section=question] button.copy") as HTMLButtonElement).click();
    assert.deepEqual(copied, [question]);
  });

  it("leaves Hebrew and Arabic with their marks, emoji sequences and flags alone", () => {
    for (const text of [
      "שלום עולם\u200F!",
      "مرحبا\u061C بالعالم",
      "می\u200Cخواهم",
      "👩\u200D💻 ❤\uFE0F 🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
    ]) {
      assert.deepEqual(splitHidden(text), [text], text);
      const root = renderCase(document, kase(text, "s"), "lm", "a.yaml", noHooks);
      assert.equal(root.querySelector("[data-section=question] pre")?.textContent, text);
    }
  });

  it("marks a mark or joiner where no right-to-left or non-ASCII text needs it", () => {
    assert.deepEqual(splitHidden("ad\u200Dmin"), ["ad", 0x200d, "min"]);
    assert.deepEqual(splitHidden("abc\u200F"), ["abc", 0x200f]);
  });
});
