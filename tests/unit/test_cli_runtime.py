"""`--agentv 2|4|auto` on `preview` and `check`: which runtime judges each file, and saying so."""

from __future__ import annotations

import json

V2 = "$schema: agentv-eval-v2\nevalcases:\n  - id: c1\n    outcome: ok\n    input_messages:\n      - role: user\n        content: hi\n"
V4 = "tests:\n  - id: t1\n    criteria: ok\n    input: hello there\n"


def test_preview_of_a_4x_file_says_which_runtime_and_why(make_repo, cli):
    repo = make_repo({"evals/a.eval.yaml": V4})
    result = cli("preview", "evals/a.eval.yaml", "--json", cwd=repo.root)
    payload = json.loads(result.out)
    assert (result.code, payload["runtime"], payload["load_error"]) == (0, "4.42.4", None)
    assert "not in the v2 format" in payload["runtime_reason"]
    assert [c["id"] for c in payload["cases"]] == ["t1"]
    assert payload["cases"][0]["lm"]["question"] == "hello there"
    text = cli("preview", "evals/a.eval.yaml", "--color", "never", cwd=repo.root)
    assert text.out.splitlines()[1].startswith("judged as AgentV 4.42.4 (")


def test_an_installed_agentv_4_judges_a_v2_file_and_loads_no_test(make_repo, cli):
    repo = make_repo({"e.eval.yaml": V2, "node_modules/agentv/package.json": '{"version": "4.42.4"}'})
    payload = json.loads(cli("preview", "e.eval.yaml", "--json", cwd=repo.root).out)
    assert payload["runtime"] == "4.42.4" and "node_modules" in payload["runtime_reason"]
    assert payload["cases"] == []
    assert payload["load_error"] is not None or payload["warnings"]
    forced = json.loads(cli("preview", "e.eval.yaml", "--json", "--agentv", "2", cwd=repo.root).out)
    assert forced["runtime"].startswith("2") and [c["id"] for c in forced["cases"]] == ["c1"]


def test_check_judges_each_file_of_a_mixed_tree_by_its_runtime(make_repo, cli):
    repo = make_repo(
        {
            "evals/old.yaml": V2,
            "evals/new.eval.yaml": V4,
            "docker-compose.yaml": "services:\n  web:\n    image: nginx\n",  # not AgentV: left alone
        }
    )
    result = cli("check", ".", "--format", "json", cwd=repo.root)
    payload = json.loads(result.out)
    runtimes = {f["file"]: f["runtime"] for f in payload["files"]}
    assert runtimes == {"evals/old.yaml": "2 (agentv-eval-v2)", "evals/new.eval.yaml": "4.42.4"}
    assert payload["summary"]["files"] == 2 and result.code == 0


def test_check_with_agentv_4_reports_a_v2_file_it_would_not_load(make_repo, cli):
    repo = make_repo({"evals/old.yaml": V2})
    result = cli("check", ".", "--format", "json", "--agentv", "4", cwd=repo.root)
    payload = json.loads(result.out)
    assert result.code == 1
    messages = " ".join(d["message"] for d in payload["diagnostics"] if d["severity"] == "error")
    assert "tests" in messages  # "Missing or invalid 'tests' field" or the deprecation of evalcases


def test_bad_agentv_value_is_a_usage_error(make_repo, cli):
    repo = make_repo({"a.eval.yaml": V4})
    assert cli("check", "a.eval.yaml", "--agentv", "3", cwd=repo.root).code == 2


def test_a_v2_file_judged_as_v2_by_its_format_alone_gets_a_hint(make_repo, cli):
    """No AgentV in the project: the file's own format chooses v2, and an information finding
    (text and JSON alike) says that today's AgentV would not load it, at its `evalcases` key."""
    repo = make_repo({"evals/old.yaml": V2})
    payload = json.loads(cli("check", "evals/old.yaml", "--format", "json", cwd=repo.root).out)
    (note,) = [d for d in payload["diagnostics"] if d["code"] == "runtime-v2-undeclared"]
    assert note["severity"] == "information"
    assert V2.split("\n")[note["range"]["start"]["line"]].startswith("evalcases:")
    assert payload["files"][0]["runtime_reason"] in note["message"] and "4.42.4" in note["message"]
    text = cli("check", "evals/old.yaml", "--color", "never", cwd=repo.root)
    assert text.code == 0 and "information runtime-v2-undeclared" in text.out
    # the project declares v2, or the user asked for it: nothing to say
    declared = make_repo({"evals/old.yaml": V2, "package.json": '{"devDependencies": {"agentv": "^2.1.0"}}'})
    for where, extra in ((declared, ()), (repo, ("--agentv", "2"))):
        quiet = json.loads(cli("check", "evals/old.yaml", "--format", "json", *extra, cwd=where.root).out)
        assert quiet["files"][0]["runtime"].startswith("2")
        assert not [d for d in quiet["diagnostics"] if d["code"] == "runtime-v2-undeclared"]
