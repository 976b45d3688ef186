import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { describeMigration, parseMigrationReport, parseProof } from "../src/migrated";

describe("the migration report (agentv/migrated)", () => {
  const raw = {
    file: "evals/legacy.eval.yaml",
    uri: "file:///ws/evals/legacy.eval.yaml",
    oldUri: "file:///ws/evals/legacy.yaml",
    renamedFrom: "evals/legacy.yaml",
    otherFiles: [{ file: "evals/judges/strict.md", reason: "grader prompt: {{candidate_answer}} -> {{output}}" }],
    attention: [],
  };

  it("names the new file, the rename and every other file rewritten, in one paragraph", () => {
    const report = parseMigrationReport(raw);
    assert.ok(report);
    const text = describeMigration(report);
    assert.doesNotMatch(text, /\n/);
    assert.match(text, /^AgentV: migrated evals\/legacy\.eval\.yaml to AgentV 4 \(renamed from evals\/legacy\.yaml, so that AgentV 4 finds it\)\./);
    assert.match(text, /Also rewrote evals\/judges\/strict\.md \(grader prompt: \{\{candidate_answer\}\} -> \{\{output\}\}\): save it with the eval file\./);
    assert.equal(report.oldUri, raw.oldUri);
  });

  it("says what needs attention, and nothing about renames or other files when there are none", () => {
    const report = parseMigrationReport({ ...raw, renamedFrom: null, otherFiles: [], attention: ["line 3: check this", "b"] });
    assert.ok(report);
    const text = describeMigration(report);
    assert.doesNotMatch(text, /renamed|Also rewrote/);
    assert.match(text, /Needs your attention: line 3: check this \(\+1 more, see Problems\)\./);
  });

  it("shows names from the workspace on one bounded line, and rejects what is not a report", () => {
    const report = parseMigrationReport({ ...raw, file: `a\nb\u202e${"x".repeat(500)}` });
    assert.ok(report);
    const text = describeMigration(report);
    assert.doesNotMatch(text, /[\n\u202e]/);
    assert.ok(text.length < 700, String(text.length));
    assert.equal(parseMigrationReport({ file: 1 }), undefined);
    assert.equal(parseMigrationReport(null), undefined);
    assert.deepEqual(parseProof({ title: "t", markdown: "m" }), { title: "t", markdown: "m" });
    assert.equal(parseProof({ title: "t" }), undefined);
  });
});
