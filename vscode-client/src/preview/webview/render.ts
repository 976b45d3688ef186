// Runs inside the webview. Builds the preview DOM from server data with createElement/textContent
// only: no innerHTML, so an eval file cannot inject markup or script.
import type { CasePreview, FilePreview, PromptMode, ToWebview } from "../model";
import { codePointLabel, splitHidden } from "./hidden";

export type Mode = "lm" | "agent";

export interface RenderHooks {
  copy(text: string): void;
  openFile(path: string): void;
  setMode(mode: Mode): void;
}

type Doc = Pick<Document, "createElement" | "createTextNode">;

function el<K extends keyof HTMLElementTagNameMap>(
  doc: Doc,
  tag: K,
  opts: { cls?: string; text?: string; attrs?: Record<string, string> } = {},
  children: (Node | null | undefined)[] = [],
): HTMLElementTagNameMap[K] {
  const e = doc.createElement(tag);
  if (opts.cls) e.className = opts.cls;
  if (opts.text !== undefined) e.textContent = opts.text;
  for (const [k, v] of Object.entries(opts.attrs ?? {})) e.setAttribute(k, v);
  for (const c of children) if (c) e.appendChild(c);
  return e;
}

function copyButton(doc: Doc, hooks: RenderHooks, text: string, what: string): HTMLButtonElement {
  const b = el(doc, "button", { cls: "copy", text: "Copy", attrs: { type: "button", title: `Copy ${what}`, "aria-label": `Copy ${what}` } });
  b.addEventListener("click", () => {
    hooks.copy(text);
    b.textContent = "Copied";
    setTimeout(() => (b.textContent = "Copy"), 1200);
  });
  return b;
}

/** Prompt text in a <pre>; hidden characters (bidi controls, zero-width, tag characters) are shown
 * as ⟦U+202E⟧ marks, never rendered invisibly. The copy buttons keep the exact text. */
function textBlock(doc: Doc, text: string): HTMLPreElement {
  const pre = el(doc, "pre", { cls: "text" });
  const pieces = splitHidden(text);
  if (pieces.length === 1 && typeof pieces[0] === "string") {
    pre.textContent = text;
    return pre;
  }
  for (const piece of pieces) {
    if (typeof piece === "string") pre.appendChild(doc.createTextNode(piece));
    else {
      const label = codePointLabel(piece);
      pre.appendChild(el(doc, "span", { cls: "hidden-char", text: `⟦${label}⟧`, attrs: { title: `${label}: hidden in editors, read by the model`, "data-code-point": label } }));
    }
  }
  pre.classList.add("has-hidden");
  pre.title = "⟦U+…⟧ marks a hidden character: editors show nothing (or reorder the text) there, the model receives it.";
  return pre;
}

/** A titled section with an optional copy button over a <pre> block. */
function textSection(doc: Doc, hooks: RenderHooks, title: string, text: string, key: string): HTMLElement {
  return el(doc, "section", { cls: `block block-${key}`, attrs: { "data-section": key } }, [
    el(doc, "div", { cls: "block-head" }, [el(doc, "h2", { text: title }), copyButton(doc, hooks, text, title.toLowerCase())]),
    textBlock(doc, text),
  ]);
}

function chatSection(doc: Doc, hooks: RenderHooks, m: PromptMode): HTMLElement {
  const head = el(doc, "div", { cls: "block-head" }, [el(doc, "h2", { text: "Chat prompt" })]);
  const sec = el(doc, "section", { cls: "block block-chat", attrs: { "data-section": "chat" } }, [head]);
  if (!m.chatPrompt || m.chatPrompt.length === 0) {
    sec.appendChild(el(doc, "p", { cls: "note", text: "No chat prompt in this mode: the target gets the question above as one message." }));
    return sec;
  }
  head.appendChild(copyButton(doc, hooks, JSON.stringify(m.chatPrompt, null, 2), "chat prompt as JSON"));
  const list = el(doc, "div", { cls: "chat" });
  for (const msg of m.chatPrompt) {
    const role = msg.role || "unknown";
    const safeRole = /^[a-z_-]+$/i.test(role) ? role.toLowerCase() : "other";
    list.appendChild(
      el(doc, "div", { cls: `bubble role-${safeRole}`, attrs: { "data-role": role } }, [
        el(doc, "div", { cls: "bubble-head" }, [el(doc, "span", { cls: "role", text: role }), copyButton(doc, hooks, msg.content, `${role} message`)]),
        textBlock(doc, msg.content),
      ]),
    );
  }
  sec.appendChild(list);
  return sec;
}

function pathList(doc: Doc, hooks: RenderHooks, title: string, paths: string[], key: string): HTMLElement | null {
  if (paths.length === 0) return null;
  const ul = el(doc, "ul", { cls: "paths" });
  for (const p of paths) {
    const a = el(doc, "a", { text: p, attrs: { href: "#", title: `Open ${p}` } });
    a.addEventListener("click", (ev) => {
      ev.preventDefault();
      hooks.openFile(p);
    });
    ul.appendChild(el(doc, "li", {}, [a]));
  }
  return el(doc, "section", { cls: `block block-${key}`, attrs: { "data-section": key } }, [el(doc, "h2", { text: title }), ul]);
}

function tabs(doc: Doc, hooks: RenderHooks, mode: Mode): HTMLElement {
  const bar = el(doc, "div", { cls: "tabs", attrs: { role: "tablist", "aria-label": "Prompt mode" } });
  const defs: [Mode, string, string][] = [
    ["lm", "LM", "Prompt as sent to a language-model target (files inlined)"],
    ["agent", "Agent", "Prompt as sent to an agent target (files referenced)"],
  ];
  for (const [m, label, title] of defs) {
    const b = el(doc, "button", {
      cls: m === mode ? "tab active" : "tab",
      text: label,
      attrs: { type: "button", role: "tab", title, "aria-selected": String(m === mode), "data-mode": m },
    });
    b.addEventListener("click", () => hooks.setMode(m));
    bar.appendChild(b);
  }
  return bar;
}

/** The full view of one case. */
export function renderCase(doc: Doc, c: CasePreview, mode: Mode, fileName: string, hooks: RenderHooks, withTabs = true): HTMLElement {
  const m = mode === "agent" ? c.agent : c.lm;
  const meta = el(doc, "div", { cls: "meta" });
  if (fileName) meta.appendChild(el(doc, "span", { cls: "file", text: fileName }));
  if (c.conversation_id) meta.appendChild(el(doc, "span", { cls: "badge", text: `conversation: ${c.conversation_id}` }));
  if (c.runtime) meta.appendChild(el(doc, "span", { cls: "badge runtime", text: `AgentV ${c.runtime}` }));
  if (c.tokens) {
    const grader = c.tokens.grader === null ? "" : `, grader ${c.tokens.grader.toLocaleString("en")}`;
    const text = `${c.tokens.candidate.toLocaleString("en")} tokens${grader} (${c.tokens.tokenizer})`;
    meta.appendChild(el(doc, "span", { cls: "badge tokens", text, attrs: { "data-section": "tokens" } }));
  }
  const root = el(doc, "article", { cls: "case", attrs: { "data-case-id": c.id, "data-mode": mode } }, [
    el(doc, "header", {}, [el(doc, "h1", { text: c.id }), meta]),
    withTabs ? tabs(doc, hooks, mode) : null,
  ]);
  if (c.error) root.appendChild(el(doc, "p", { cls: "error", text: c.error, attrs: { "data-section": "error" } }));
  if (c.warnings.length > 0) {
    const ul = el(doc, "ul", { cls: "warnings", attrs: { "data-section": "warnings" } });
    for (const w of c.warnings) ul.appendChild(el(doc, "li", { text: w }));
    root.appendChild(ul);
  }
  if (c.error) return root; // AgentV skips this case: there is no prompt to show
  const v4 = c.criteria !== undefined; // AgentV 4.x: criteria, system message, assertions, grader
  if (v4) {
    if (c.criteria) root.appendChild(textSection(doc, hooks, "Criteria", c.criteria, "criteria"));
  } else if (c.expected_outcome) root.appendChild(textSection(doc, hooks, "Expected outcome", c.expected_outcome, "expected"));
  root.appendChild(textSection(doc, hooks, "Question", m.question, "question"));
  if (m.systemMessage) root.appendChild(textSection(doc, hooks, "System message", m.systemMessage, "system"));
  root.appendChild(chatSection(doc, hooks, m));
  if (m.guidelines) root.appendChild(textSection(doc, hooks, "Guidelines", m.guidelines, "guidelines"));
  if (c.expected_output && c.expected_output.length > 0) {
    const text = c.expected_output.map((msg) => `${msg.role}: ${msg.content}`).join("\n\n");
    root.appendChild(textSection(doc, hooks, "Expected output", text, "expected-output"));
  }
  if (c.assertions && c.assertions.length > 0) {
    root.appendChild(textSection(doc, hooks, "Assertions", JSON.stringify(c.assertions, null, 2), "assertions"));
  }
  if (c.judge_prompt) {
    const title = v4 ? "Grader prompt" : "Judge prompt";
    const jp = el(doc, "section", { cls: "block block-judge", attrs: { "data-section": "judge" } }, [el(doc, "h2", { text: title })]);
    if (c.judge_prompt.systemPrompt) jp.appendChild(textSection(doc, hooks, "System prompt", c.judge_prompt.systemPrompt, "judge-system"));
    jp.appendChild(textSection(doc, hooks, v4 ? "Grader question" : "Judge question", c.judge_prompt.question, "judge-question"));
    root.appendChild(jp);
  }
  if (c.reference_answer) root.appendChild(textSection(doc, hooks, "Reference answer", c.reference_answer, "reference"));
  const g = pathList(doc, hooks, "Guideline files", c.guideline_paths, "guideline-paths");
  const f = pathList(doc, hooks, "Files", c.file_paths, "file-paths");
  if (g) root.appendChild(g);
  if (f) root.appendChild(f);
  return root;
}

/** All cases of a file, each collapsible. */
export function renderFile(doc: Doc, fp: FilePreview, mode: Mode, fileName: string, hooks: RenderHooks): HTMLElement {
  const root = el(doc, "article", { cls: "file-preview" }, [
    el(doc, "header", {}, [el(doc, "h1", { text: fileName || fp.file }), el(doc, "div", { cls: "meta", text: `${fp.cases.length} case(s)${fp.runtime ? ` · AgentV ${fp.runtime}` : ""}` })]),
    tabs(doc, hooks, mode),
  ]);
  if (fp.load_error) root.appendChild(el(doc, "p", { cls: "error", text: fp.load_error }));
  if (fp.warnings.length > 0) {
    const ul = el(doc, "ul", { cls: "warnings" });
    for (const w of fp.warnings) ul.appendChild(el(doc, "li", { text: w }));
    root.appendChild(ul);
  }
  for (const c of fp.cases) {
    const d = el(doc, "details", { cls: "case-details" }, [el(doc, "summary", { text: c.id }), renderCase(doc, c, mode, "", hooks, false)]);
    root.appendChild(d);
  }
  return root;
}

export function renderMessage(doc: Doc, msg: ToWebview, mode: Mode, hooks: RenderHooks): HTMLElement {
  switch (msg.type) {
    case "case":
      return renderCase(doc, msg.case, mode, msg.fileName, hooks);
    case "file":
      return renderFile(doc, msg.file, mode, msg.fileName, hooks);
    case "error":
      return el(doc, "p", { cls: "error", text: msg.message });
    default:
      return el(doc, "p", { cls: "empty", text: msg.message });
  }
}
