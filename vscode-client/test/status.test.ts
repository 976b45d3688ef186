import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeStatus } from "../src/status";

describe("describeStatus", () => {
  it("shows the schema and the config file", () => {
    assert.deepEqual(
      describeStatus(true, { schema: "agentv-eval-v2", config: "/ws/.agentv/config.yaml" }, "x", () => ".agentv/config.yaml"),
      { text: "AgentV agentv-eval-v2", detail: "config: .agentv/config.yaml", severity: "info" },
    );
  });
  it("warns when the file has no schema and says when defaults are used", () => {
    const d = describeStatus(true, { schema: null, config: null }, undefined);
    assert.equal(d.severity, "warning");
    assert.match(d.detail, /defaults/);
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
});
