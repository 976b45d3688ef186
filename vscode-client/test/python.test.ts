import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BundleManifest } from "../src/common/bundle";
import {
  type CandidateInputs,
  SERVER_MODULE_ARGS,
  expandVariables,
  failureMessage,
  failureNotice,
  interpreterFromResolved,
  planCandidates,
} from "../src/common/python";

const manifest: BundleManifest = { common: "common", pythons: { "3.11": "cp311", "3.12": "cp312", "3.13": "cp313" }, verified: [] };
const bundle = { libs: "/ext/bundled/libs", manifest };
const base: CandidateInputs = {
  serverCommand: [],
  pythonPath: "",
  serverEnv: { EXTRA: "1" },
  pythonExtension: { state: "not-installed" },
  bundle,
  systemPythons: [
    { command: "python3", args: [] },
    { command: "python", args: [] },
  ],
  trusted: true,
  workspaceFolders: ["/ws"],
};

describe("planCandidates: lookup order", () => {
  it("agentv.server.command wins over everything and is not probed", () => {
    const plan = planCandidates({
      ...base,
      serverCommand: ["uv", "run", "agentv-lsp", "serve"],
      pythonPath: "/usr/bin/python3",
      pythonExtension: { state: "ok", interpreter: "/venv/bin/python" },
    });
    assert.equal(plan.candidates.length, 1);
    const c = plan.candidates[0];
    assert.equal(c.source, "setting-command");
    assert.equal(c.command, "uv");
    assert.deepEqual(c.args, ["run", "agentv-lsp", "serve"]);
    assert.equal(c.probe, false);
    assert.deepEqual(c.env, { EXTRA: "1" });
  });

  it("agentv.server.pythonPath comes next, exclusively: its own agentv_lsp, then the bundle run by it", () => {
    const plan = planCandidates({
      ...base,
      pythonPath: " /opt/py/bin/python ",
      pythonExtension: { state: "ok", interpreter: "/venv/bin/python" },
    });
    assert.deepEqual(
      plan.candidates.map((c) => [c.source, c.command, c.args]),
      [
        ["setting-pythonPath", "/opt/py/bin/python", SERVER_MODULE_ARGS],
        ["bundled", "/opt/py/bin/python", SERVER_MODULE_ARGS],
      ],
    );
    assert.ok(plan.candidates.every((c) => c.probe));
    assert.equal(plan.candidates[0].bundle, undefined);
    assert.equal(plan.candidates[1].bundle, bundle);
    assert.match(plan.candidates[1].label, /bundled server run by agentv\.server\.pythonPath \(\/opt\/py\/bin\/python\)/);
  });

  it("then the Python extension's interpreter, then the bundle run by it and by the system pythons", () => {
    const plan = planCandidates({ ...base, pythonExtension: { state: "ok", interpreter: "/venv/bin/python" } });
    assert.deepEqual(
      plan.candidates.map((c) => [c.source, c.command, c.bundle ? "bundle" : null]),
      [
        ["python-extension", "/venv/bin/python", null],
        ["bundled", "/venv/bin/python", "bundle"],
        ["bundled", "python3", "bundle"],
        ["bundled", "python", "bundle"],
      ],
    );
    assert.ok(plan.candidates.every((c) => c.probe));
    // PYTHONPATH depends on the interpreter's version: chosen after probing it (chooseCandidate).
    assert.ok(plan.candidates.every((c) => c.env.PYTHONPATH === undefined));
    assert.equal(plan.candidates[1].env.PYTHONNOUSERSITE, "1");
    assert.equal(plan.candidates[1].env.EXTRA, "1");
    // `python -m` never imports from the working directory.
    assert.ok(plan.candidates.every((c) => c.env.PYTHONSAFEPATH === "1"));
  });

  it("passes launcher arguments (py -3.12) before -m, and tries each interpreter once", () => {
    const plan = planCandidates({
      ...base,
      pythonExtension: { state: "ok", interpreter: "python3" },
      systemPythons: [
        { command: "py", args: ["-3.12"] },
        { command: "python3", args: [] },
      ],
    });
    assert.deepEqual(
      plan.candidates.map((c) => [c.source, c.command, c.interpreterArgs ?? null, c.args]),
      [
        ["python-extension", "python3", null, SERVER_MODULE_ARGS],
        ["bundled", "python3", [], SERVER_MODULE_ARGS],
        ["bundled", "py", ["-3.12"], ["-3.12", ...SERVER_MODULE_ARGS]],
      ],
    );
    assert.equal(plan.candidates[2].label, "bundled server run by py -3.12");
  });

  it("does not set PYTHONSAFEPATH for an explicit command (it may be a script that imports its siblings)", () => {
    const plan = planCandidates({ ...base, serverCommand: ["python", "/srv/server.py"] });
    assert.equal(plan.candidates[0].env.PYTHONSAFEPATH, undefined);
  });

  it("ignores empty strings in the command setting", () => {
    const plan = planCandidates({ ...base, serverCommand: ["", ""] });
    assert.notEqual(plan.candidates[0]?.source, "setting-command");
  });

  it("without the Python extension and without a bundle there is nothing to try", () => {
    const plan = planCandidates({ ...base, bundle: undefined });
    assert.deepEqual(plan.candidates, []);
    assert.equal(plan.skipped.length, 3);
    assert.match(plan.skipped.join("\n"), /not installed/);
    assert.match(plan.skipped.join("\n"), /no bundled\/libs/);
    const why = planCandidates({ ...base, bundle: undefined, bundleProblem: "built for darwin-arm64" });
    assert.match(why.skipped.join("\n"), /bundled server: built for darwin-arm64/);
  });

  it("reports an installed Python extension without an interpreter", () => {
    const plan = planCandidates({ ...base, pythonExtension: { state: "no-interpreter", detail: "boom" } });
    assert.match(plan.skipped.join("\n"), /no active interpreter \(boom\)/);
    assert.deepEqual(plan.candidates.map((c) => c.command), ["python3", "python"]);
  });
});

describe("planCandidates: untrusted workspace", () => {
  it("never runs an interpreter from inside the workspace folders", () => {
    const plan = planCandidates({
      ...base,
      trusted: false,
      pythonExtension: { state: "ok", interpreter: "/ws/.venv/bin/python" },
    });
    assert.deepEqual(plan.candidates.map((c) => c.command), ["python3", "python"]);
    assert.match(plan.skipped.join("\n"), /\/ws\/\.venv\/bin\/python.*inside the untrusted workspace/);
  });

  it("blocks a user-level pythonPath that points into the workspace, but allows one outside", () => {
    const inside = planCandidates({ ...base, trusted: false, pythonPath: "/ws/sub/../.venv/bin/python" });
    assert.deepEqual(inside.candidates, []);
    assert.match(failureMessage(inside, []), /untrusted workspace/);
    const outside = planCandidates({ ...base, trusted: false, pythonPath: "/wsx/bin/python" });
    assert.deepEqual(outside.candidates.map((c) => c.source), ["setting-pythonPath", "bundled"]);
  });

  it("trusted workspaces may use their own virtual environment", () => {
    const plan = planCandidates({ ...base, pythonPath: "/ws/.venv/bin/python" });
    assert.equal(plan.candidates[0].command, "/ws/.venv/bin/python");
  });
});

describe("failureMessage", () => {
  it("names every way tried and how to get a Python the bundle runs with", () => {
    const plan = planCandidates({ ...base, pythonExtension: { state: "ok", interpreter: "/venv/bin/python" } });
    const msg = failureMessage(plan, [
      { label: plan.candidates[0].label, error: "Traceback (most recent call last):\n  File x\nModuleNotFoundError: No module named 'agentv_lsp'" },
      { label: plan.candidates[1].label, error: "Python 3.10: too old, the bundled server needs Python 3.11–3.13" },
      { label: plan.candidates[2].label, error: "python3: not found" },
    ]);
    assert.match(msg, /could not start the language server/);
    assert.match(msg, /Python extension interpreter \(\/venv\/bin\/python\): ModuleNotFoundError: No module named 'agentv_lsp'/);
    assert.match(msg, /- bundled server run by \/venv\/bin\/python: Python 3\.10: too old/);
    assert.match(msg, /- bundled server run by python3: python3: not found/);
    assert.match(msg, /Install Python 3\.11–3\.13/);
    assert.match(msg, /agentv\.server\.pythonPath/);
    assert.match(msg, /agentv\.server\.command/);
  });

  it("the notification is one paragraph: the fix first, with the settings as the Settings editor names them", () => {
    const plan = planCandidates({ ...base, pythonExtension: { state: "ok", interpreter: "/venv/bin/python" } });
    const attempts = plan.candidates.map((c) => ({ label: c.label, error: `${c.command}: not found\nmore` }));
    const notice = failureNotice(plan, attempts);
    assert.doesNotMatch(notice, /\n/);
    assert.match(notice, /^AgentV: could not start the language server\. Install Python 3\.11–3\.13/);
    assert.match(notice, /AgentV › Server: Python Path \(agentv\.server\.pythonPath\)/);
    assert.match(notice, /AgentV › Server: Command \(agentv\.server\.command\)/);
    assert.match(notice, new RegExp(`Tried: .*${attempts[0].label.replace(/[()]/g, "\\$&")}: /venv/bin/python: not found; `));
  });

  it("without a bundle, asks for an interpreter with agentv-lsp installed", () => {
    const plan = planCandidates({ ...base, bundle: undefined, pythonExtension: { state: "ok", interpreter: "/venv/bin/python" } });
    const msg = failureMessage(plan, [{ label: plan.candidates[0].label, error: "No module named 'agentv_lsp'" }]);
    assert.match(msg, /pip install agentv-lsp/);
    assert.doesNotMatch(msg, /Install Python/);
  });

  it("tells the user to fix an explicit setting", () => {
    const plan = planCandidates({ ...base, pythonPath: "/nope/python" });
    const msg = failureMessage(plan, [
      { label: plan.candidates[0].label, error: "/nope/python: not found" },
      { label: plan.candidates[1].label, error: "/nope/python: not found" },
    ]);
    assert.match(msg, /agentv\.server\.pythonPath \(\/nope\/python\): \/nope\/python: not found/);
    assert.match(msg, /Fix the setting \(a Python 3\.11–3\.13 interpreter/);
  });
});

describe("expandVariables", () => {
  const vars = { workspaceFolder: "/ws", home: "/home/me", env: { VENV: "/v" } };
  it("expands workspaceFolder, userHome, env and ~", () => {
    assert.equal(expandVariables("${workspaceFolder}/.venv/bin/python", vars), "/ws/.venv/bin/python");
    assert.equal(expandVariables("${userHome}/py", vars), "/home/me/py");
    assert.equal(expandVariables("${env:VENV}/bin/python", vars), "/v/bin/python");
    assert.equal(expandVariables("~/venv/bin/python", vars), "/home/me/venv/bin/python");
    assert.equal(expandVariables("${env:MISSING}x", vars), "x");
  });
  it("leaves unknown variables and plain paths alone", () => {
    assert.equal(expandVariables("${workspaceFolder}/p", {}), "${workspaceFolder}/p");
    assert.equal(expandVariables("/usr/bin/python3", vars), "/usr/bin/python3");
    assert.equal(expandVariables("a~b", vars), "a~b");
  });
});

describe("helpers", () => {
  it("reads the interpreter from the Python extension's resolved environment", () => {
    assert.equal(interpreterFromResolved({ executable: { uri: { fsPath: "/venv/bin/python" } } }), "/venv/bin/python");
    assert.equal(interpreterFromResolved({ executable: { uri: undefined } }), undefined);
    assert.equal(interpreterFromResolved(undefined), undefined);
  });
});
