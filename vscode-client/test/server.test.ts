import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { beforeEach, describe, it } from "node:test";
import { Uri, mock } from "./mocks/vscode";
import type { Prober } from "../src/common/probe";
import { planCandidates } from "../src/common/python";
import { ServerManager, chooseCandidate, pythonExtensionInfo, resolvePlan } from "../src/server";

function tmpExtension(withBundle: boolean): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentv-ext-"));
  if (withBundle) {
    fs.mkdirSync(path.join(dir, "bundled", "libs", "agentv_lsp"), { recursive: true });
    fs.writeFileSync(path.join(dir, "bundled", "libs", "agentv_lsp", "__init__.py"), "");
  }
  return dir;
}

function pythonExtension(interpreter: string | undefined, opts: { active?: boolean; throws?: boolean } = {}) {
  const ext = {
    isActive: opts.active ?? false,
    activated: 0,
    async activate() {
      this.activated++;
      this.isActive = true;
    },
    exports: {
      environments: {
        getActiveEnvironmentPath: () => ({ id: "x", path: interpreter ?? "" }),
        resolveEnvironment: async () => {
          if (opts.throws) throw new Error("resolve failed");
          return interpreter ? { executable: { uri: Uri.file(interpreter) } } : undefined;
        },
        onDidChangeActiveEnvironmentPath: () => ({ dispose() {} }),
      },
    },
  };
  return ext;
}

beforeEach(() => mock.reset());

describe("resolvePlan (settings through the vscode API)", () => {
  it("uses agentv.server.pythonPath with ${workspaceFolder} expanded and skips the Python extension", async () => {
    mock.folders = [{ uri: Uri.file("/ws"), name: "ws", index: 0 }];
    mock.settings["agentv.server.pythonPath"] = "${workspaceFolder}/.venv/bin/python";
    const ext = pythonExtension("/other/python");
    mock.extensions["ms-python.python"] = ext;
    const plan = await resolvePlan(tmpExtension(true));
    assert.deepEqual(plan.candidates.map((c) => [c.source, c.command]), [["setting-pythonPath", "/ws/.venv/bin/python"]]);
    assert.equal(ext.activated, 0, "an explicit setting must not activate the Python extension");
  });

  it("uses agentv.server.command as is", async () => {
    mock.settings["agentv.server.command"] = ["/bin/agentv-lsp", "serve"];
    const plan = await resolvePlan(tmpExtension(false));
    assert.deepEqual(plan.candidates.map((c) => [c.command, c.args]), [["/bin/agentv-lsp", ["serve"]]]);
  });

  it("asks the Python extension, then falls back to the bundle", async () => {
    const ext = pythonExtension("/venv/bin/python");
    mock.extensions["ms-python.python"] = ext;
    const extDir = tmpExtension(true);
    const plan = await resolvePlan(extDir);
    assert.equal(ext.activated, 1);
    assert.deepEqual(
      plan.candidates.map((c) => c.source),
      ["python-extension", "bundled", "bundled", "bundled"],
    );
    assert.equal(plan.candidates[1].env.PYTHONPATH, path.join(extDir, "bundled", "libs"));
  });

  it("has no bundled candidate when bundled/libs lacks the server", async () => {
    const plan = await resolvePlan(tmpExtension(false));
    assert.deepEqual(plan.candidates, []);
  });

  it("skips a workspace interpreter from the Python extension when the workspace is not trusted", async () => {
    mock.trusted = false;
    mock.folders = [{ uri: Uri.file("/ws"), name: "ws", index: 0 }];
    mock.extensions["ms-python.python"] = pythonExtension("/ws/.venv/bin/python");
    const plan = await resolvePlan(tmpExtension(true));
    assert.deepEqual(plan.candidates.map((c) => c.command), ["python3", "python"]);
  });

  it("passes agentv.server.env to every candidate", async () => {
    mock.settings["agentv.server.env"] = { AGENTV_LOG: "debug" };
    const plan = await resolvePlan(tmpExtension(true));
    assert.ok(plan.candidates.length > 0);
    assert.ok(plan.candidates.every((c) => c.env.AGENTV_LOG === "debug"));
  });
});

describe("pythonExtensionInfo", () => {
  it("reports not installed", async () => {
    assert.deepEqual(await pythonExtensionInfo(), { state: "not-installed" });
  });
  it("returns the active interpreter", async () => {
    mock.extensions["ms-python.python"] = pythonExtension("/venv/bin/python", { active: true });
    assert.deepEqual(await pythonExtensionInfo(), { state: "ok", interpreter: path.resolve("/venv/bin/python") });
  });
  it("survives an API error", async () => {
    mock.extensions["ms-python.python"] = pythonExtension("/venv/bin/python", { throws: true });
    const info = await pythonExtensionInfo();
    assert.equal(info.state, "no-interpreter");
  });
  it("handles an extension without the environments API", async () => {
    mock.extensions["ms-python.python"] = { isActive: true, exports: {} };
    assert.equal((await pythonExtensionInfo()).state, "no-interpreter");
  });
});

describe("chooseCandidate", () => {
  const inputs = {
    serverCommand: [],
    pythonPath: "",
    serverEnv: {},
    pythonExtension: { state: "ok" as const, interpreter: "/venv/bin/python" },
    bundledLibs: "/ext/bundled/libs",
    systemPythons: ["python3"],
    trusted: true,
    workspaceFolders: [],
  };

  it("takes the first interpreter that imports the server", async () => {
    const probed: string[] = [];
    const probe: Prober = async (cmd, env) => {
      probed.push(`${cmd}${env.PYTHONPATH ? "+bundle" : ""}`);
      return cmd === "python3" ? { ok: true, output: "3.11" } : { ok: false, output: "No module named 'agentv_lsp'" };
    };
    const r = await chooseCandidate(planCandidates(inputs), probe, undefined);
    assert.deepEqual(probed, ["/venv/bin/python", "/venv/bin/python+bundle", "python3+bundle"]);
    assert.equal(r.chosen?.command, "python3");
    assert.equal(r.attempts.length, 2);
  });

  it("does not probe an explicit command", async () => {
    let probes = 0;
    const r = await chooseCandidate(
      planCandidates({ ...inputs, serverCommand: ["agentv-lsp", "serve"] }),
      async () => {
        probes++;
        return { ok: false, output: "" };
      },
      undefined,
    );
    assert.equal(probes, 0);
    assert.equal(r.chosen?.command, "agentv-lsp");
  });

  it("returns every failure when nothing works", async () => {
    const r = await chooseCandidate(planCandidates(inputs), async (cmd) => ({ ok: false, output: `${cmd}: not found` }), undefined);
    assert.equal(r.chosen, undefined);
    assert.deepEqual(r.attempts.map((a) => a.error), ["/venv/bin/python: not found", "/venv/bin/python: not found", "python3: not found"]);
  });
});

describe("ServerManager when no server can be found", () => {
  it("shows one error naming what was tried and how to fix it, and reports not running", async () => {
    mock.settings["agentv.server.pythonPath"] = "/nope/python";
    const states: boolean[] = [];
    const log = { info() {}, warn() {}, error() {}, debug() {}, show() {} };
    const ctx = { extensionUri: Uri.file(tmpExtension(false)), subscriptions: [] };
    const mgr = new ServerManager(
      ctx as never,
      log as never,
      { onPreviewCase() {}, onPreviewFile() {}, onStateChange: (r) => states.push(r) },
      async (cmd) => ({ ok: false, output: `${cmd}: not found` }),
    );
    await mgr.start();
    assert.equal(mgr.running, false);
    assert.deepEqual(states, [false]);
    const errors = mock.messages.filter((m) => m.level === "error");
    assert.equal(errors.length, 1);
    assert.match(errors[0].text, /agentv\.server\.pythonPath \(\/nope\/python\): \/nope\/python: not found/);
    assert.deepEqual(errors[0].items, ["Open Settings", "Show Log"]);
    await assert.rejects(mgr.previewCase("file:///a.yaml", {}), /not running/);
    assert.equal(await mgr.status("file:///a.yaml"), undefined);
    await mgr.dispose();
  });

  it("restarts when workspace trust is granted and when a server setting changes", async () => {
    const probes: string[] = [];
    mock.settings["agentv.server.pythonPath"] = "/p1";
    const log = { info() {}, warn() {}, error() {}, debug() {}, show() {} };
    const ctx = { extensionUri: Uri.file(tmpExtension(false)), subscriptions: [] };
    const mgr = new ServerManager(
      ctx as never,
      log as never,
      { onPreviewCase() {}, onPreviewFile() {}, onStateChange() {} },
      async (cmd) => {
        probes.push(cmd);
        return { ok: false, output: "no" };
      },
    );
    await mgr.start();
    mock.events.trust.fire();
    await new Promise((r) => setTimeout(r, 20));
    mock.settings["agentv.server.pythonPath"] = "/p2";
    mock.events.configuration.fire({ affectsConfiguration: (s) => s === "agentv" || s === "agentv.server.pythonPath" });
    mock.events.configuration.fire({ affectsConfiguration: (s) => s === "agentv" || s === "agentv.preview.debounceMs" });
    await mgr.stop();
    assert.deepEqual(probes, ["/p1", "/p1", "/p2"]);
    await mgr.dispose();
  });
});
