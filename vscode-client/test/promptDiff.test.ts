// The addresses of the "Compare prompt with HEAD" documents: readable, and carrying the request.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PROMPT_SCHEME, parsePromptQuery, promptUri } from "../src/promptDiff";

test("a prompt address names the file, the test and the side, and carries the request", () => {
  const target = { uri: "file:///repo/evals/a b.eval.yaml", caseId: "t/1?x" };
  const address = promptUri(target, "head", 3);
  assert.ok(address.startsWith(`${PROMPT_SCHEME}:/a%20b.eval.yaml/t%2F1%3Fx.HEAD.prompt?`));
  const query = address.slice(address.indexOf("?") + 1);
  assert.deepEqual(parsePromptQuery(query), { uri: target.uri, testId: "t/1?x", side: "head" });
  assert.notEqual(promptUri(target, "buffer", 3), address);
  assert.notEqual(promptUri(target, "head", 4), address); // a fresh document each time
});

test("a query that is not ours is refused", () => {
  assert.equal(parsePromptQuery("%7Bnot json"), undefined);
  assert.equal(parsePromptQuery(encodeURIComponent(JSON.stringify({ uri: "x", testId: "t", side: "left" }))), undefined);
});
