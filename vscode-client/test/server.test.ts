import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { beforeEach, describe, it } from "node:test";
import { Uri, mock } from "./mocks/vscode";
import type { BundleManifest } from "../src/common/bundle";
import type { Prober, VersionProber } from "../src/common/probe";
import { type CandidateInputs, failureMessage, planCandidates } from "../src/common/python";
import { ServerManager, chooseCandidate, pythonExtensionInfo, readBundle, resolvePlan } from "../src/server";

const MANIFEST = {
  format: 2,
  common: "common",
  pythons: { "3.11": "cp311", "3.12": "cp312", "3.13": "cp313" },
  node: { platform: process.platform, arch: process.arch },
  verified: ["3.11", "3.12", "3.13"],
};

/** An extension folder; with a bundle laid out as scripts/bundle-python.mjs lays it out. */
function tmpExtension(withBundle: boolean, manifest: unknown = MANIFEST): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentv-ext-"));
  if (withBundle) {
    const libs = path.join(dir, "bundled", "libs");
    fs.mkdirSync(path.join(libs, "common", "agentv_lsp"), { recursive: true });
    fs.writeFileSync(path.join(libs, "common", "agentv_lsp", "__init__.py"), "");
    for (const part of ["cp311", "cp312", "cp313"]) fs.mkdirSync(path.join(libs, part));
    fs.writeFileSync(path.join(libs, ".agentv-bundle.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest));
  }
  return dir;
}

/** A version probe answering like the interpreters named in `versions` ("3.12", or an error). */
function versions(table: Record<string, string>, probed: string[] = []): VersionProber {
  return async (cmd, _env, _cwd, args = []) => {
    const name = [cmd, ...args].join(" ");
    probed.push(name);
    const v = table[name];
    if (v === undefined) return { ok: false, output: `${cmd}: not found` };
    const m = /^(\d+)\.(\d+)(t?)$/.exec(v);
    return m ? { ok: true, output: `cpython ${m[1]} ${m[2]} ${m[3] ? 1 : 0}` } : { ok: false, output: v };
  };
}

const importsOk: Prober = async (_cmd, env) => ({ ok: true, output: `3.x ${env.PYTHONPATH ?? ""}` });

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
    assert.deepEqual(plan.candidates.map((c) => [c.source, c.command]), [
      ["setting-pythonPath", "/ws/.venv/bin/python"],
      ["bundled", "/ws/.venv/bin/python"],
    ]);
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
      plan.candidates.map((c) => [c.source, [c.command, ...(c.interpreterArgs ?? [])].join(" ")]),
      process.platform === "win32"
        ? [
            ["python-extension", path.resolve("/venv/bin/python")],
            ["bundled", path.resolve("/venv/bin/python")],
            ["bundled", "py -3.13"],
            ["bundled", "py -3.12"],
            ["bundled", "py -3.11"],
            ["bundled", "py -3"],
            ["bundled", "python"],
          ]
        : [
            ["python-extension", path.resolve("/venv/bin/python")],
            ["bundled", path.resolve("/venv/bin/python")],
            ["bundled", "python3.13"],
            ["bundled", "python3.12"],
            ["bundled", "python3.11"],
            ["bundled", "python3"],
            ["bundled", "python"],
          ],
    );
    assert.equal(plan.candidates[1].bundle?.libs, path.join(extDir, "bundled", "libs"));
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
    assert.ok(plan.candidates.length > 0);
    assert.ok(plan.candidates.every((c) => c.source === "bundled" && !c.command.startsWith(path.resolve("/ws"))));
    assert.match(plan.skipped.join("\n"), /inside the untrusted workspace/);
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

describe("readBundle", () => {
  it("reads the manifest of a built bundle", () => {
    const dir = tmpExtension(true);
    const b = readBundle(dir);
    assert.ok(typeof b !== "string", String(b));
    assert.equal(b.libs, path.join(dir, "bundled", "libs"));
    assert.deepEqual(Object.keys(b.manifest.pythons), ["3.11", "3.12", "3.13"]);
  });

  it("says why a bundle cannot be used", () => {
    assert.match(readBundle(tmpExtension(false)) as string, /no bundled\/libs/);
    assert.match(readBundle(tmpExtension(true, "{oops")) as string, /\.agentv-bundle\.json: its manifest is not JSON/);
    assert.match(readBundle(tmpExtension(true, { ...MANIFEST, common: "elsewhere" })) as string, /elsewhere has no agentv_lsp/);
    assert.match(readBundle(tmpExtension(true), "sunos", "sparc") as string, /built for .*, this is sunos-sparc/);
  });
});

describe("chooseCandidate", () => {
  const bundle = { libs: "/ext/bundled/libs", manifest: MANIFEST as BundleManifest };
  const inputs: CandidateInputs = {
    serverCommand: [],
    pythonPath: "",
    serverEnv: {},
    pythonExtension: { state: "ok", interpreter: "/venv/bin/python" },
    bundle,
    systemPythons: ["python3.13", "python3.12", "python3.11", "python3", "python"].map((command) => ({ command, args: [] })),
    trusted: true,
    workspaceFolders: [],
  };
  const libs = (minor: string) => [path.join("/ext/bundled/libs", "common"), path.join("/ext/bundled/libs", `cp${minor.replace(".", "")}`)].join(path.delimiter);

  it("takes the first interpreter that imports the server", async () => {
    const probed: string[] = [];
    const probe: Prober = async (cmd, env) => {
      probed.push(`${cmd}${env.PYTHONPATH ? "+bundle" : ""}`);
      return cmd === "python3.12" ? { ok: true, output: "3.12" } : { ok: false, output: "No module named 'agentv_lsp'" };
    };
    const r = await chooseCandidate(planCandidates(inputs), probe, undefined, undefined, versions({ "/venv/bin/python": "3.11", "python3.12": "3.12" }));
    assert.deepEqual(probed, ["/venv/bin/python", "/venv/bin/python+bundle", "python3.12+bundle"]);
    assert.equal(r.chosen?.command, "python3.12");
    assert.equal(r.chosen?.env.PYTHONPATH, libs("3.12"));
    assert.deepEqual(r.attempts.map((a) => a.error), [
      "No module named 'agentv_lsp'",
      "No module named 'agentv_lsp'",
      "python3.13: not found",
    ]);
  });

  for (const minor of ["3.11", "3.12", "3.13"]) {
    it(`runs the bundle with the first CPython ${minor} found, with common + cp${minor.replace(".", "")} on PYTHONPATH`, async () => {
      const probed: string[] = [];
      const r = await chooseCandidate(
        planCandidates({ ...inputs, pythonExtension: { state: "not-installed" } }),
        importsOk,
        undefined,
        undefined,
        versions({ python3: minor, python: "3.10", [`python${minor}`]: minor }, probed),
      );
      assert.equal(r.chosen?.source, "bundled");
      assert.equal(r.chosen?.command, `python${minor}`);
      assert.equal(r.chosen?.env.PYTHONPATH, libs(minor));
      assert.match(r.chosen?.label ?? "", new RegExp(`run by python${minor.replace(".", "\\.")} \\(Python ${minor.replace(".", "\\.")}\\)`));
      // Newer names were asked first and were missing.
      assert.equal(probed[probed.length - 1], `python${minor}`);
    });
  }

  it("falls back to python3 when no python3.X name exists, and skips versions the bundle lacks", async () => {
    const log: string[] = [];
    const r = await chooseCandidate(
      planCandidates(inputs),
      async (cmd, env) => (env.PYTHONPATH ? { ok: true, output: "ok" } : { ok: false, output: `No module named 'agentv_lsp'` }),
      undefined,
      (m) => log.push(m),
      versions({ "/venv/bin/python": "3.10", "python3.13": "3.13t", python3: "3.12" }),
    );
    assert.equal(r.chosen?.command, "python3");
    assert.equal(r.chosen?.env.PYTHONPATH, libs("3.12"));
    assert.deepEqual(r.attempts.map((a) => a.error), [
      "No module named 'agentv_lsp'",
      "Python 3.10: too old, the bundled server needs Python 3.11–3.13",
      "Python 3.13 free-threaded: the bundled server needs a standard (not free-threaded) CPython 3.11–3.13",
      "python3.12: not found",
      "python3.11: not found",
    ]);
    assert.ok(log.includes("version bundled server run by python3: Python 3.12"), log.join("\n"));
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
      undefined,
      async () => {
        probes++;
        return { ok: false, output: "" };
      },
    );
    assert.equal(probes, 0);
    assert.equal(r.chosen?.command, "agentv-lsp");
  });

  it("runs the bundle with agentv.server.pythonPath when that interpreter lacks agentv_lsp", async () => {
    const r = await chooseCandidate(
      planCandidates({ ...inputs, pythonPath: "/opt/py313/bin/python3" }),
      async (_cmd, env) => (env.PYTHONPATH ? { ok: true, output: "ok" } : { ok: false, output: "No module named 'agentv_lsp'" }),
      undefined,
      undefined,
      versions({ "/opt/py313/bin/python3": "3.13" }),
    );
    assert.equal(r.chosen?.source, "bundled");
    assert.equal(r.chosen?.command, "/opt/py313/bin/python3");
    assert.equal(r.chosen?.env.PYTHONPATH, libs("3.13"));
  });

  it("reports a missing program once, not for each way of running it", async () => {
    const probed: string[] = [];
    const missing = async (cmd: string) => {
      probed.push(cmd);
      return { ok: false, output: `${cmd}: not found` };
    };
    const plan = planCandidates({ ...inputs, pythonPath: "/nope/python" });
    const r = await chooseCandidate(plan, missing, undefined, undefined, missing);
    assert.deepEqual(probed, ["/nope/python"]);
    assert.deepEqual(r.attempts, [{ label: "agentv.server.pythonPath (/nope/python)", error: "/nope/python: not found" }]);
    // The Windows launcher: once `py` is missing, `py -3.12` and `py -3` are not tried.
    const launcher = planCandidates({
      ...inputs,
      pythonExtension: { state: "not-installed" },
      systemPythons: [{ command: "py", args: ["-3.12"] }, { command: "py", args: ["-3"] }, { command: "python", args: [] }],
    });
    probed.length = 0;
    await chooseCandidate(launcher, missing, undefined, undefined, missing);
    assert.deepEqual(probed, ["py", "python"]);
  });

  it("returns every failure when nothing fits, and the message lists command -> version or not found", async () => {
    const plan = planCandidates({ ...inputs, pythonExtension: { state: "not-installed" } });
    const r = await chooseCandidate(plan, importsOk, undefined, undefined, versions({ python3: "3.10", python: "2.7" }));
    assert.equal(r.chosen, undefined);
    const msg = failureMessage(plan, r.attempts);
    assert.equal(
      msg,
      [
        "AgentV: could not start the language server. Tried:",
        "- agentv.server.command and agentv.server.pythonPath: not set",
        "- Python extension (ms-python.python): not installed",
        "- bundled server run by python3.13: python3.13: not found",
        "- bundled server run by python3.12: python3.12: not found",
        "- bundled server run by python3.11: python3.11: not found",
        "- bundled server run by python3: Python 3.10: too old, the bundled server needs Python 3.11–3.13",
        "- bundled server run by python: Python 2.7: too old, the bundled server needs Python 3.11–3.13",
        'Install Python 3.11–3.13 (python.org, your package manager or pyenv) so that one of the commands above finds it, or set "agentv.server.pythonPath" to such an interpreter, or "agentv.server.command" to a command that starts the server (e.g. after pip install agentv-lsp).',
      ].join("\n"),
    );
  });

  it("reports an interpreter that answers the version query strangely or fails to import the bundle", async () => {
    const plan = planCandidates({ ...inputs, pythonExtension: { state: "not-installed" }, systemPythons: [{ command: "python3", args: [] }, { command: "python", args: [] }] });
    const r = await chooseCandidate(
      plan,
      async () => ({ ok: false, output: "Traceback (most recent call last):\n  x\nImportError: libc.so.6: version `GLIBC_2.17' not found" }),
      undefined,
      undefined,
      async (cmd) => (cmd === "python3" ? { ok: true, output: "Python was not found" } : { ok: true, output: "cpython 3 11 0" }),
    );
    assert.equal(r.chosen, undefined);
    assert.match(r.attempts[0].error, /unexpected answer to the version query: Python was not found/);
    assert.equal(r.attempts[1].label, "bundled server run by python (Python 3.11)");
    assert.match(failureMessage(plan, r.attempts), /run by python \(Python 3\.11\): ImportError: libc\.so\.6/);
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

  it("with a bundle and no fitting Python: the error lists each command with its version or 'not found'", async () => {
    const log = { info() {}, warn() {}, error() {}, debug() {}, show() {} };
    const ctx = { extensionUri: Uri.file(tmpExtension(true)), subscriptions: [] };
    const mgr = new ServerManager(
      ctx as never,
      log as never,
      { onPreviewCase() {}, onPreviewFile() {}, onStateChange() {} },
      importsOk,
      versions({ python3: "3.10", "py -3": "3.9" }),
    );
    await mgr.start();
    assert.equal(mgr.running, false);
    const errors = mock.messages.filter((m) => m.level === "error");
    assert.equal(errors.length, 1);
    const text = errors[0].text;
    const first = process.platform === "win32" ? "py -3.13" : "python3.13";
    assert.ok(text.includes(`bundled server run by ${first}: `), text);
    assert.match(text, /not found/);
    assert.match(text, /Python 3\.(10|9): too old, the bundled server needs Python 3\.11–3\.13/);
    assert.match(text, /Install Python 3\.11–3\.13/);
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
