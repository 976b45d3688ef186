import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DEFAULTS,
  augmentConfiguration,
  documentSelector,
  needsRestart,
  readSettings,
  serverSettings,
} from "../src/common/settings";

const reader = (values: Record<string, unknown>) => ({ get: <T>(k: string) => values[k] as T | undefined });

describe("readSettings", () => {
  it("returns the defaults for an empty configuration", () => {
    assert.deepEqual(readSettings(reader({})), DEFAULTS);
  });

  it("reads every documented setting", () => {
    const s = readSettings(
      reader({
        "server.command": ["/venv/bin/python", "-m", "agentv_lsp", "serve"],
        "server.pythonPath": "/usr/bin/python3.12",
        "server.env": { AGENTV_DEBUG: "1" },
        evalGlobs: ["evals/**/*.yaml"],
        maxFileSizeKb: 64,
        "preview.debounceMs": 50,
        "preview.followCursor": false,
        "codeLens.enabled": false,
        "trace.server": "verbose",
      }),
    );
    assert.deepEqual(s, {
      serverCommand: ["/venv/bin/python", "-m", "agentv_lsp", "serve"],
      pythonPath: "/usr/bin/python3.12",
      serverEnv: { AGENTV_DEBUG: "1" },
      evalGlobs: ["evals/**/*.yaml"],
      maxFileSizeKb: 64,
      previewDebounceMs: 50,
      previewFollowCursor: false,
      codeLensEnabled: false,
      trace: "verbose",
    });
  });

  it("falls back to defaults on wrong types instead of throwing", () => {
    const s = readSettings(
      reader({
        "server.command": "python -m agentv_lsp",
        "server.pythonPath": 3,
        "server.env": { OK: "1", BAD: 2 },
        evalGlobs: [1, 2],
        maxFileSizeKb: "big",
        "preview.debounceMs": Number.NaN,
        "trace.server": "loud",
      }),
    );
    assert.deepEqual(s.serverCommand, []);
    assert.equal(s.pythonPath, "");
    assert.deepEqual(s.serverEnv, { OK: "1" });
    assert.deepEqual(s.evalGlobs, DEFAULTS.evalGlobs);
    assert.equal(s.maxFileSizeKb, DEFAULTS.maxFileSizeKb);
    assert.equal(s.previewDebounceMs, DEFAULTS.previewDebounceMs);
    assert.equal(s.trace, "off");
  });

  it("clamps numbers and drops blank globs", () => {
    const s = readSettings(reader({ "preview.debounceMs": 99999, maxFileSizeKb: -5, evalGlobs: ["  ", ""] }));
    assert.equal(s.previewDebounceMs, 5000);
    assert.equal(s.maxFileSizeKb, 1);
    assert.deepEqual(s.evalGlobs, DEFAULTS.evalGlobs);
  });
});

describe("server settings", () => {
  it("adds trustedWorkspace to the settings object", () => {
    assert.deepEqual(serverSettings({ maxFileSizeKb: 10 }, false), { maxFileSizeKb: 10, trustedWorkspace: false });
    assert.deepEqual(serverSettings(undefined, true), { trustedWorkspace: true });
    assert.deepEqual(serverSettings([1, 2], true), { trustedWorkspace: true });
  });

  it("augments only the agentv section of workspace/configuration answers", () => {
    const out = augmentConfiguration(
      [{ section: "agentv" }, { section: "editor" }, {}],
      [{ maxFileSizeKb: 5 }, { tabSize: 2 }, { agentv: { evalGlobs: [] }, other: 1 }],
      false,
    );
    assert.deepEqual(out, [
      { maxFileSizeKb: 5, trustedWorkspace: false },
      { tabSize: 2 },
      { agentv: { evalGlobs: [], trustedWorkspace: false }, other: 1 },
    ]);
  });

  it("a workspace cannot claim trust through its own settings", () => {
    const out = augmentConfiguration([{ section: "agentv" }], [{ trustedWorkspace: true }], false);
    assert.deepEqual(out, [{ trustedWorkspace: false }]);
  });
});

describe("documentSelector", () => {
  it("is one YAML file filter per glob plus the .agentv config files", () => {
    assert.deepEqual(documentSelector(["**/*.yaml"]), [
      { language: "yaml", scheme: "file", pattern: "**/*.yaml" },
      { scheme: "file", pattern: "**/.agentv/*.yaml" },
      { scheme: "file", pattern: "**/.agentv/*.yml" },
    ]);
  });
});

describe("needsRestart", () => {
  it("restarts for server and glob settings only", () => {
    assert.equal(needsRestart((s) => s === "agentv.server.pythonPath"), true);
    assert.equal(needsRestart((s) => s === "agentv.evalGlobs"), true);
    assert.equal(needsRestart((s) => s === "agentv.preview.debounceMs"), false);
    assert.equal(needsRestart((s) => s === "agentv.maxFileSizeKb"), false);
  });
});
