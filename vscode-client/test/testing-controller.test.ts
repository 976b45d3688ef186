// The Testing view's glue (src/testing/controller.ts) against the vscode stand-in: the tree from
// the server's list, nothing run in Restricted Mode, the outcomes read back, and cancel ending
// the whole process group.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { beforeEach, test } from "node:test";
import { TestingView, UNTRUSTED_REASON } from "../src/testing/controller";
import { RESULTS_REQUEST, RUN_PLAN_REQUEST, TESTS_REQUEST } from "../src/testing/plan";
import { EventEmitter, type FakeTestController, Uri, mock } from "./mocks/vscode";

const log = { info() {}, warn() {}, error() {} } as any;

function workspace(): { root: string; evalFile: string; uri: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "agentv-testing-"));
  const evalFile = path.join(root, "evals", "geo.eval.yaml");
  fs.mkdirSync(path.dirname(evalFile), { recursive: true });
  fs.writeFileSync(evalFile, "tests: []\n");
  mock.folders = [{ uri: Uri.file(root), name: "ws", index: 0 }];
  return { root, evalFile, uri: Uri.file(evalFile).toString() };
}

function server(uri: string, answers: Record<string, unknown> = {}) {
  const asked: { method: string; params: any }[] = [];
  const request = async (method: string, params: unknown) => {
    asked.push({ method, params });
    if (method === TESTS_REQUEST) {
      return {
        files: [
          {
            uri,
            folder: Uri.file(mock.folders[0].uri.fsPath).toString(),
            tests: [
              { id: "capital", uri, line: 2 },
              { id: "failing", uri, line: 8 },
            ],
          },
        ],
      };
    }
    if (method === RUN_PLAN_REQUEST) return { tests: [], total_tokens: 12, targets: ["default"] };
    return answers[method];
  };
  return { request, asked };
}

function token() {
  const cancel = new EventEmitter<void>();
  const t = { isCancellationRequested: false, onCancellationRequested: cancel.event };
  return {
    token: t,
    cancel: () => {
      t.isCancellationRequested = true;
      cancel.fire();
    },
  };
}

beforeEach(() => mock.reset());

test("the tree mirrors the server's list: folder, eval file, tests at their lines", async () => {
  const { uri } = workspace();
  const view = new TestingView(server(uri).request, log);
  await view.refresh();
  const controller = mock.testControllers[0] as FakeTestController;
  const folders: string[] = [];
  controller.items.forEach((folder) => {
    folders.push(folder.label);
    folder.children.forEach((file) => {
      assert.equal(file.label, "geo.eval.yaml");
      const tests: [string, number | undefined][] = [];
      file.children.forEach((t) => tests.push([t.label, t.range?.startLine]));
      assert.deepEqual(tests, [
        ["capital", 2],
        ["failing", 8],
      ]);
    });
  });
  assert.equal(folders.length, 1);
  view.dispose();
});

test("in Restricted Mode nothing runs, every test is skipped and the run says why", async () => {
  const { uri } = workspace();
  mock.trusted = false;
  const { request, asked } = server(uri);
  const view = new TestingView(request, log);
  await view.refresh();
  const controller = mock.testControllers[0] as FakeTestController;
  controller.items.forEach((folder) => assert.equal(folder.error, UNTRUSTED_REASON));
  const { token: t } = token();
  await controller.profiles[0].handler({ include: undefined, exclude: [] }, t);
  const run = controller.runs[0];
  assert.deepEqual(
    run.events.map(([kind, id]) => [kind, id.split("#")[1]]),
    [
      ["skipped", "capital"],
      ["skipped", "failing"],
    ],
  );
  assert.ok(run.output.includes("Restricted Mode") && run.ended);
  assert.deepEqual(
    asked.map((a) => a.method),
    [TESTS_REQUEST, RUN_PLAN_REQUEST], // the profiles' targets only: no run plan, no results
  );
  view.dispose();
});

test("a run's outcomes come from the results AgentV wrote; a failure carries the graders' words", async () => {
  const { uri, root } = workspace();
  const now = new Date(Date.now() + 5000).toISOString();
  const last = (status: string, score: number) => ({
    run: "r",
    timestamp: now,
    target: "default",
    status,
    score,
    graders: [{ name: "contains-Madrid", type: "contains", verdict: status === "passed" ? "pass" : "fail", score, reasoning: "why" }],
    answer: "Paris",
    stale: false,
  });
  const { request, asked } = server(uri, {
    [RESULTS_REQUEST]: {
      tests: [
        { id: "capital", last_run: last("passed", 1) },
        { id: "failing", last_run: last("failed", 0), expected_output: [{ role: "assistant", content: "Madrid" }] },
      ],
    },
  });
  mock.settings["agentv.testing.command"] = ["/bin/sh", "-c", "echo ran", "agentv"];
  const view = new TestingView(request, log);
  await view.refresh();
  const controller = mock.testControllers[0] as FakeTestController;
  const { token: t } = token();
  await controller.profiles[0].handler({ include: undefined, exclude: [] }, t);
  const run = controller.runs[0];
  const outcomes = run.events.filter(([kind]) => kind !== "started");
  assert.deepEqual(
    outcomes.map(([kind, id]) => [kind, id.split("#")[1]]),
    [
      ["passed", "capital"],
      ["failed", "failing"],
    ],
  );
  const message = outcomes[1][2]!;
  assert.ok(message.message.includes("contains-Madrid: fail (0)\nwhy"));
  assert.equal(message.expectedOutput, "Madrid");
  assert.equal(message.actualOutput, "Paris");
  assert.ok(run.output.includes("ran\r\n"));
  const plan = asked.find((a) => a.method === RUN_PLAN_REQUEST && a.params.testIds.length > 0);
  assert.deepEqual(plan?.params, { uri, testIds: ["capital", "failing"] });
  fs.rmSync(root, { recursive: true, force: true });
  view.dispose();
});

test("cancel ends AgentV and everything it started", async () => {
  const { uri, root } = workspace();
  const marker = path.join(root, "still-running");
  // a child that outlives its parent's shell unless the whole group is stopped
  const script = `(sleep 3; touch '${marker}') & sleep 30`;
  mock.settings["agentv.testing.command"] = ["/bin/sh", "-c", script, "agentv"];
  const { request } = server(uri, { [RESULTS_REQUEST]: { tests: [] } });
  const view = new TestingView(request, log);
  await view.refresh();
  const controller = mock.testControllers[0] as FakeTestController;
  const { token: t, cancel } = token();
  const started = Date.now();
  const running = controller.profiles[0].handler({ include: undefined, exclude: [] }, t);
  while (!controller.runs[0]?.output.includes("$ ")) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 200));
  cancel();
  await running;
  assert.ok(Date.now() - started < 3000, "the run ended at the cancel");
  await new Promise((r) => setTimeout(r, 3500));
  assert.equal(fs.existsSync(marker), false, "a process AgentV started outlived the cancel");
  assert.ok(controller.runs[0].events.filter(([k]) => k === "skipped").length === 2);
  spawnSync("true");
  fs.rmSync(root, { recursive: true, force: true });
  view.dispose();
});
