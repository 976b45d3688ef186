import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type CandidateInputs,
  SERVER_MODULE_ARGS,
  defaultSystemPythons,
  expandVariables,
  failureMessage,
  interpreterFromResolved,
  planCandidates,
} from "../src/common/python";

const base: CandidateInputs = {
  serverCommand: [],
  pythonPath: "",
  serverEnv: { EXTRA: "1" },
  pythonExtension: { state: "not-installed" },
  bundledLibs: "/ext/bundled/libs",
  systemPythons: ["python3", "python"],
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

  it("agentv.server.pythonPath comes next, exclusively (no silent fallback)", () => {
    const plan = planCandidates({
      ...base,
      pythonPath: " /opt/py/bin/python ",
      pythonExtension: { state: "ok", interpreter: "/venv/bin/python" },
    });
    assert.deepEqual(
      plan.candidates.map((c) => [c.source, c.command, c.args]),
      [["setting-pythonPath", "/opt/py/bin/python", SERVER_MODULE_ARGS]],
    );
    assert.equal(plan.candidates[0].probe, true);
  });

  it("then the Python extension's interpreter, then the bundled libs with it and with system pythons", () => {
    const plan = planCandidates({ ...base, pythonExtension: { state: "ok", interpreter: "/venv/bin/python" } });
    assert.deepEqual(
      plan.candidates.map((c) => [c.source, c.command, c.env.PYTHONPATH ?? null]),
      [
        ["python-extension", "/venv/bin/python", null],
        ["bundled", "/venv/bin/python", "/ext/bundled/libs"],
        ["bundled", "python3", "/ext/bundled/libs"],
        ["bundled", "python", "/ext/bundled/libs"],
      ],
    );
    assert.ok(plan.candidates.every((c) => c.probe));
    assert.equal(plan.candidates[1].env.PYTHONNOUSERSITE, "1");
    assert.equal(plan.candidates[1].env.EXTRA, "1");
    // `python -m` never imports from the working directory.
    assert.ok(plan.candidates.every((c) => c.env.PYTHONSAFEPATH === "1"));
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
    const plan = planCandidates({ ...base, bundledLibs: undefined });
    assert.deepEqual(plan.candidates, []);
    assert.equal(plan.skipped.length, 3);
    assert.match(plan.skipped.join("\n"), /not installed/);
    assert.match(plan.skipped.join("\n"), /no bundled\/libs/);
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
    assert.equal(outside.candidates.length, 1);
  });

  it("trusted workspaces may use their own virtual environment", () => {
    const plan = planCandidates({ ...base, pythonPath: "/ws/.venv/bin/python" });
    assert.equal(plan.candidates[0].command, "/ws/.venv/bin/python");
  });
});

describe("failureMessage", () => {
  it("names every way tried and the setting that fixes it", () => {
    const plan = planCandidates({ ...base, pythonExtension: { state: "ok", interpreter: "/venv/bin/python" } });
    const msg = failureMessage(plan, [
      { label: plan.candidates[0].label, error: "Traceback (most recent call last):\n  File x\nModuleNotFoundError: No module named 'agentv_lsp'" },
      { label: plan.candidates[2].label, error: "python3: not found" },
    ]);
    assert.match(msg, /could not start the language server/);
    assert.match(msg, /Python extension interpreter \(\/venv\/bin\/python\): ModuleNotFoundError: No module named 'agentv_lsp'/);
    assert.match(msg, /python3: not found/);
    assert.match(msg, /agentv\.server\.pythonPath/);
    assert.match(msg, /pip install agentv-lsp/);
  });

  it("tells the user to fix an explicit setting", () => {
    const plan = planCandidates({ ...base, pythonPath: "/nope/python" });
    const msg = failureMessage(plan, [{ label: plan.candidates[0].label, error: "/nope/python: not found" }]);
    assert.match(msg, /agentv\.server\.pythonPath \(\/nope\/python\): \/nope\/python: not found/);
    assert.match(msg, /Fix the setting/);
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
  it("uses platform-appropriate interpreter names", () => {
    assert.deepEqual(defaultSystemPythons("linux"), ["python3", "python"]);
    assert.deepEqual(defaultSystemPythons("win32"), ["py", "python"]);
  });
});
