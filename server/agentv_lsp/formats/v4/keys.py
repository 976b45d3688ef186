"""The key names of an AgentV 4.x eval file, in one table.

The 4.x code (loader, graders, check, split, schema outline, validate, lint, losses) reads
every key of the eval file through a `Keys` instance instead of a string literal, so a format
whose files name the same things otherwise (AgentV 5 renames most keys) can run this code
with its own table. `V4_KEYS` is AgentV 4.42.4's.

The table reaches the code as a value: `load_suite`, `check_v4_document`, `preview_suite` and
the split take `keys: Keys = V4_KEYS`; inside a load it rides on the `LoadContext`.
Messages that name a key (a deprecation warning, "missing 'tests' field") name it from the
table, so a renamed key shows renamed in them.

Not in the table, because they are no key of the file:
- the runtime's own in-memory shapes the code builds and hands on: the loaded test (`V4Test`:
  `question`, `reference_answer`, …), a parsed grader config (`{"name", "type", …}` as
  `parseGraders` returns it), a processed message (`role`, `content`, and its segments'
  `type`/`value`/`text`/`path`/`resolvedPath`, as `processMessages` returns them);
- the preview's JSON output (our format) and the judge prompt's `{{ variables }}`;
- message-level keys (`role`, `content`, `tool_calls`, a segment's `type`/`value`): the
  loader hands messages on as written, so they are the in-memory shape too; a format that
  renamed them would map its messages onto this shape before loading;
- the keys inside one grader (`type`, `name`, `weight`, `required`, `min_score`, …), a
  workspace (`template`, `repos`, `hooks`, …), `.agentv/config.yaml` and targets files: each
  is the shape of its own object, read in one place (grader_parser, the workspace readers,
  the settings validators), not spread through the code;
- the JSON Schema (schema/agentv-eval-v4.schema.json) and `schema.py`'s uses of its property
  names: a format with other key names brings its own schema.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from functools import cache


@dataclass(frozen=True, slots=True)
class Keys:
    """One field per key name of an eval file the code reads. Comments: where AgentV 4.42.4
    reads the key (`@agentv/core` src/evaluation/…)."""

    # -- suite level (yaml-parser.ts `loadTestsFromYaml`, loaders/jsonl-parser.ts sidecar) --
    tests: str = "tests"  # the list of tests, or a path to a cases file or folder
    deprecated_tests: tuple[str, ...] = ("eval_cases", "evalcases")  # read after `tests`, warned
    workspace: str = "workspace"  # suite and test level; workspace/*.ts
    governance: str = "governance"  # `extractSuiteMetadataPayload`, added to `metadata`
    preprocessors: str = "preprocessors"  # content-preprocessor.ts (suite and grader level)

    # -- test level (yaml-parser.ts loop body, loaders/case-conversion.ts) ----------------
    id: str = "id"
    vars: str = "vars"  # template-variables.ts `interpolateRawEvalCase`
    input: str = "input"  # also the suite's default input; `resolveInputMessages`
    input_files: str = "input_files"  # test and suite level
    criteria: str = "criteria"
    expected_outcome: str = "expected_outcome"  # deprecated `criteria`, warned
    expected_output: str = "expected_output"  # also in a turn; `processExpectedMessages`
    conversation_id: str = "conversation_id"
    metadata: str = "metadata"  # test and suite level; `mergeSuiteMetadataPayload`
    turns: str = "turns"  # multi-turn tests; `parseTurns`, graders/llm-grader-prompt.ts
    rubrics: str = "rubrics"  # inline rubrics of a test, and an llm-grader's rubrics
    evaluator: str = "evaluator"  # the grader kind, suite and test level (`coerceEvaluator`)
    mode: str = "mode"  # `conversation`: the turns run as one conversation (orchestrator.ts)
    window_size: str = "window_size"  # of a conversation: the turns the graders see

    # -- graders (graders/grader-parser.ts `parseGraders`; suite and test level) -----------
    assertions: str = "assertions"  # also a turn's and a composite grader's members
    deprecated_assertions: str = "assert"  # read after `assertions`, warned at suite level
    evaluators: str = "evaluators"  # the oldest name: `execution.evaluators` or top-level

    # -- execution (yaml-parser.ts, orchestrator.ts) ---------------------------------------
    execution: str = "execution"  # suite and test level
    skip_defaults: str = "skip_defaults"  # in `execution`: the suite's input and graders not applied
    target: str = "target"  # in `execution`, and a grader's judge target
    targets: str = "targets"  # in `execution`: a matrix of targets

    def test_list_keys(self) -> tuple[str, ...]:
        """The suite keys that may hold the tests, in the order the runtime tries them."""
        return (self.tests, *self.deprecated_tests)

    def grader_list_keys(self) -> tuple[str, ...]:
        """The keys that may hold a list of graders, in the order the runtime tries them."""
        return (self.assertions, self.deprecated_assertions, self.evaluators)

    def named(self, v4_name: str) -> str:
        """This table's name for the key 4.42.4 calls `v4_name` (a name the table does not
        hold stays as it is): for the lists of known fields `agentv validate` keeps."""
        return _renames(self).get(v4_name, v4_name)

    def names(self, v4_names: Iterable[str]) -> frozenset[str]:
        return frozenset(self.named(name) for name in v4_names)


V4_KEYS = Keys()
"""AgentV 4.42.4's key names."""


@cache
def _renames(keys: Keys) -> dict[str, str]:
    """4.42.4's name -> this table's, for every key the table holds."""
    out: dict[str, str] = {}
    for field in fields(Keys):
        old, new = getattr(V4_KEYS, field.name), getattr(keys, field.name)
        for o, n in zip(old, new, strict=False) if isinstance(old, tuple) else ((old, new),):
            out.setdefault(o, n)
    return out
