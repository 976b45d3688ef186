// "Compare prompt with HEAD": both sides rendered before the diff editor opens, their names in the tab
// title (not in the texts), served only at addresses this extension issued.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { COMPARE_COMMAND, PROMPT_SCHEME, compareTitle, registerPromptDiff, renderedSide } from "../src/promptDiff";
import { REFUSED, VirtualDocuments } from "../src/virtualDocs";
import { Uri, commands, mock } from "./mocks/vscode";

beforeEach(() => mock.reset());

const PROMPT = "# review (evals/a.eval.yaml)\ntokens (o200k_base): 12 to the candidate\n\n## criteria\nfinds the bug\n";

test("a new server's answer: the text as it is, the label for the title", () => {
  assert.deepEqual(renderedSide({ text: PROMPT, label: "HEAD (7195137)" }, "head"), { text: PROMPT, label: "HEAD (7195137)" });
  assert.deepEqual(renderedSide({ text: PROMPT, label: "" }, "buffer"), { text: PROMPT, label: "unsaved buffer" });
});

test("an old server's answer: the side's name taken out of line 1, so unchanged sides are equal", () => {
  const [first, ...rest] = PROMPT.split("\n");
  const head = renderedSide({ text: `${first.slice(0, -1)}, HEAD (7195137))\n${rest.join("\n")}` }, "head");
  const buffer = renderedSide({ text: `${first.slice(0, -1)}, unsaved buffer)\n${rest.join("\n")}` }, "buffer");
  assert.deepEqual([head.label, buffer.label], ["HEAD (7195137)", "unsaved buffer"]);
  assert.equal(head.text, PROMPT);
  assert.equal(buffer.text, head.text);
  const missing = renderedSide({ text: "# HEAD (7195137): evals/a.eval.yaml is not in this revision\n" }, "head");
  assert.deepEqual(missing, { text: "# evals/a.eval.yaml is not in this revision\n", label: "HEAD (7195137)" });
  assert.match(renderedSide({ error: "boom" }, "head").text, /could not render this prompt: boom/);
});

test("the command renders both sides, then opens the diff titled with their names", async () => {
  const asked: unknown[] = [];
  const request = async (_method: string, params: unknown) => {
    asked.push(params);
    const side = (params as { side: string }).side;
    return { text: PROMPT, label: side === "head" ? "HEAD (7195137)" : "unsaved buffer" };
  };
  registerPromptDiff(request, async () => null);
  await commands.executeCommand(COMPARE_COMMAND, { uri: "file:///ws/evals/a.eval.yaml", caseId: "review" });
  assert.equal(asked.length, 2);
  const diff = mock.executed.find((e) => e.id === "vscode.diff");
  assert.ok(diff);
  const [left, right, title] = diff.args as [Uri, Uri, string];
  assert.equal(title, compareTitle("review", "HEAD (7195137)", "unsaved buffer"));
  const provider = mock.contentProviders.get(PROMPT_SCHEME);
  assert.ok(provider);
  assert.equal(provider.provideTextDocumentContent(left), PROMPT);
  assert.equal(provider.provideTextDocumentContent(right), PROMPT);
  assert.equal(left.scheme, PROMPT_SCHEME);
  assert.match(left.fsPath, /a\.eval\.yaml\/review\.HEAD\.prompt$/);
});

test("an address the extension did not issue is refused without asking the server", async () => {
  let asked = 0;
  registerPromptDiff(async () => {
    asked += 1;
    return { text: "secret" };
  }, async () => null);
  const provider = mock.contentProviders.get(PROMPT_SCHEME);
  assert.ok(provider);
  const query = encodeURIComponent(JSON.stringify({ uri: "file:///etc/passwd", testId: "x", side: "head", nonce: 1 }));
  const forged = Uri.parse(`${PROMPT_SCHEME}:/passwd/x.HEAD.prompt?${query}`);
  assert.equal(provider.provideTextDocumentContent(forged), REFUSED);
  assert.equal(asked, 0);
});

test("issued documents are kept under unguessable addresses, the oldest forgotten past the bound", () => {
  const documents = new VirtualDocuments("agentv-x");
  const first = documents.issue(["a b.md"], "one");
  const second = documents.issue(["a b.md"], "two");
  assert.notEqual(first, second);
  assert.match(first, /^agentv-x:\/a%20b\.md\?[0-9a-f]{24}$/);
  const query = (address: string) => address.slice(address.indexOf("?") + 1);
  assert.deepEqual([documents.provide(query(first)), documents.provide(query(second))], ["one", "two"]);
  for (let i = 0; i < 100; i += 1) documents.issue(["n.md"], String(i));
  assert.equal(documents.provide(query(first)), REFUSED);
});
