// The Testing view's decisions (src/testing/plan.ts): which AgentV runs, its arguments, when to ask
// first, and what a recorded result means.
import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import {
  agentvCommand,
  escapeTestId,
  expectedText,
  needsConfirmation,
  outcomeOf,
  parseListedFiles,
  runArguments,
  terminalText,
  type TestResult,
} from "../src/testing/plan";

const root = path.resolve("/ws/project");
const evalFile = path.join(root, "evals", "sub", "a.eval.yaml");

test("the project's own agentv is found from the eval file's folder up to the workspace folder", () => {
  const installed = path.join(root, "evals", "node_modules", ".bin", "agentv");
  const found = agentvCommand(evalFile, root, ["npx", "agentv"], (p) => p === installed, "linux");
  assert.deepEqual(found, { command: installed, args: [] });
  const top = path.join(root, "node_modules", ".bin", "agentv");
  assert.deepEqual(agentvCommand(evalFile, root, [], (p) => p === top, "linux"), { command: top, args: [] });
});

test("nothing above the workspace folder is taken; then the setting; then a reason", () => {
  const above = path.join(path.dirname(root), "node_modules", ".bin", "agentv");
  const configured = agentvCommand(evalFile, root, ["npx", "agentv"], (p) => p === above, "linux");
  assert.deepEqual(configured, { command: "npx", args: ["agentv"] });
  const none = agentvCommand(evalFile, root, [], () => false, "linux");
  assert.ok("error" in none && none.error.includes("agentv.testing.command"));
});

test("test ids are passed as written, not as globs", () => {
  assert.equal(escapeTestId("plain-id_1.2"), "plain-id_1.2");
  assert.equal(escapeTestId("a*b?[c]{d}"), "a\\*b\\?\\[c\\]\\{d\\}");
  assert.deepEqual(runArguments("e.eval.yaml", ["x", "y*"], "default"), [
    "eval",
    "run",
    "e.eval.yaml",
    "--test-id",
    "x",
    "--test-id",
    "y\\*",
    "--target",
    "default",
  ]);
  assert.deepEqual(runArguments("e.eval.yaml", undefined), ["eval", "run", "e.eval.yaml"]);
});

test("a run above the threshold asks first; 0 never asks", () => {
  assert.equal(needsConfirmation(50_001, 50_000), true);
  assert.equal(needsConfirmation(50_000, 50_000), false);
  assert.equal(needsConfirmation(10 ** 9, 0), false);
});

const started = Date.parse("2026-11-29T10:00:00.000Z");

function result(status: "passed" | "failed" | "error", timestamp = "2026-11-29T10:00:05.000Z"): TestResult {
  return {
    id: "t",
    expected_output: [{ role: "assistant", content: "Madrid" }],
    last_run: {
      run: ".agentv/results/runs/default/x",
      timestamp,
      target: "default",
      status,
      score: status === "passed" ? 1 : 0,
      graders: [{ name: "contains-Madrid", type: "contains", verdict: "fail", score: 0, reasoning: "no Madrid" }],
      answer: "Paris",
      error: status === "error" ? "provider failed" : null,
      stale: false,
    },
  };
}

test("a result maps to the view's outcome, with expected and actual for a failure", () => {
  assert.deepEqual(outcomeOf(result("passed"), started, 0), { kind: "passed" });
  const failed = outcomeOf(result("failed"), started, 1);
  assert.equal(failed.kind, "failed");
  assert.ok(failed.message?.includes("contains-Madrid: fail (0)\nno Madrid"));
  assert.equal(failed.expected, "Madrid");
  assert.equal(failed.actual, "Paris");
  assert.deepEqual(outcomeOf(result("error"), started, 1), { kind: "errored", message: "provider failed" });
});

test("a result older than the run, or none, is not this run's", () => {
  const old = outcomeOf(result("passed", "2026-11-29T09:00:00.000Z"), started, 2);
  assert.equal(old.kind, "missing");
  assert.ok(old.message?.includes("exit code 2"));
  assert.equal(outcomeOf(undefined, started, null).kind, "missing");
});

test("the expected text is the last assistant message", () => {
  assert.equal(
    expectedText([
      { role: "assistant", content: "first" },
      { role: "user", content: "more" },
      { role: "assistant", content: [{ type: "text", value: "x" }] },
    ]),
    '[\n  {\n    "type": "text",\n    "value": "x"\n  }\n]',
  );
  assert.equal(expectedText(undefined), undefined);
});

test("the server's list is checked, not trusted", () => {
  const files = parseListedFiles({
    files: [
      { uri: "file:///ws/a.eval.yaml", folder: "file:///ws", tests: [{ id: "t", uri: "file:///ws/a.eval.yaml", line: 3 }, { id: 5 }] },
      { uri: 7, tests: [] },
      null,
    ],
  });
  assert.deepEqual(files, [
    { uri: "file:///ws/a.eval.yaml", folder: "file:///ws", tests: [{ id: "t", uri: "file:///ws/a.eval.yaml", line: 3 }] },
  ]);
  assert.deepEqual(parseListedFiles("nonsense"), []);
  assert.equal(terminalText("a\nb\r\nc"), "a\r\nb\r\nc");
});
