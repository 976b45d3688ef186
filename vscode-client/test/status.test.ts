import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RESTRICTED_DETAIL, RESTRICTED_TEXT, describeStatus, shortReason } from "../src/status";

describe("describeStatus", () => {
  it("shows the schema and the config file", () => {
    assert.deepEqual(
      describeStatus(
        true,
        { schema: "agentv-eval-v2", config: "/ws/.agentv/config.yaml", kind: "eval", targets: "/ws/.agentv/targets.yaml", cases: 2 },
        "x",
        (p) => p.replace("/ws/", ""),
      ),
      {
        text: "AgentV agentv-eval-v2",
        detail: "config: .agentv/config.yaml · targets: .agentv/targets.yaml · 2 cases",
        severity: "info",
      },
    );
  });
  it("warns when the file has no schema and says when defaults are used", () => {
    const d = describeStatus(true, { schema: null, config: null, kind: "eval" }, undefined);
    assert.equal(d.severity, "warning");
    assert.match(d.detail, /defaults/);
  });
  it("says so for a YAML file that is not an AgentV file", () => {
    assert.equal(describeStatus(true, { schema: null, config: null, kind: null }, undefined).detail, "not an AgentV file");
  });
  it("degrades to the launch command when the server has no agentv/status", () => {
    assert.deepEqual(describeStatus(true, null, "bundled server"), {
      text: "AgentV",
      detail: "server: bundled server",
      severity: "info",
    });
  });
  it("is an error when the server is not running", () => {
    assert.equal(describeStatus(false, null, undefined).severity, "error");
  });

  it("names the runtime that judges the file and why", () => {
    const d = describeStatus(
      true,
      { schema: "4.42.4", config: null, kind: "eval", runtime: { major: 4, version: "4.42.4", reason: "installed node_modules/agentv 4.42.4" } },
      undefined,
    );
    assert.equal(d.text, "AgentV 4.42.4");
    // a short line (the popup is narrow), the whole reason in the tooltip
    assert.equal(d.detail, "installed in the project"); // the text names the version already
    assert.equal(d.tooltip, "Judged as AgentV 4.42.4: installed node_modules/agentv 4.42.4");
  });

  it("puts the files in use in a second item, so that each line of the hover stays short", () => {
    const d = describeStatus(
      true,
      {
        schema: "agentv-eval-v2",
        config: "/ws/.agentv/config.yaml",
        kind: "eval",
        targets: "/ws/.agentv/targets.yaml",
        cases: 2,
        runtime: { major: 2, version: "2 (agentv-eval-v2)", reason: "the file declares $schema: agentv-eval-v2" },
      },
      undefined,
      (p) => p.replace("/ws/", ""),
    );
    assert.equal(d.detail, "AgentV 2 (agentv-eval-v2) · the file's v2 format");
    assert.deepEqual(d.files, { text: "config: .agentv/config.yaml", detail: "targets: .agentv/targets.yaml · 2 cases" });
  });

  it("keeps the line short whatever the reason, the reason whole in the tooltip", () => {
    const reason = "no AgentV installed or declared; the file is not in the v2 format";
    const d = describeStatus(true, { schema: "4.42.4", config: null, kind: "eval", runtime: { major: 4, version: "4.42.4", reason } }, undefined);
    assert.ok(d.detail.length <= 40, d.detail);
    assert.ok(d.tooltip?.includes(reason));
    assert.equal(shortReason("something new the server says one day, longer than forty characters").length, 40);
  });

  it("shows Restricted Mode on the item, and what it means in the tooltip", () => {
    const info = { schema: "4.42.4", config: null, kind: "eval", runtime: { major: 4, version: "4.42.4", reason: "asked for AgentV 4" } };
    const trusted = describeStatus(true, info, undefined, (p) => p, true);
    const restricted = describeStatus(true, info, undefined, (p) => p, false);
    assert.ok(!trusted.text.includes(RESTRICTED_TEXT));
    assert.equal(restricted.text, `${trusted.text} · ${RESTRICTED_TEXT}`);
    assert.equal(restricted.detail, trusted.detail);
    assert.ok(restricted.tooltip?.includes(RESTRICTED_DETAIL) && restricted.tooltip.includes("asked for AgentV 4"));
    assert.equal(restricted.severity, "warning");
  });
});
