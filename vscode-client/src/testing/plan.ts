// The Testing view's decisions, free of `vscode`: which AgentV runs, with which arguments, whether to
// ask before sending many tokens, and what a test's last result (the server's `agentv/testResults`)
// means for the view.
import * as path from "path";

export const TESTS_REQUEST = "agentv/tests";
export const RUN_PLAN_REQUEST = "agentv/testRunPlan";
export const RESULTS_REQUEST = "agentv/testResults";

export interface ListedTest {
  id: string;
  uri: string; // where the test is written (a cases file, or the eval file itself)
  line: number;
}

export interface ListedFile {
  uri: string; // the eval file `agentv eval run` is given
  folder: string | null; // its workspace folder
  tests: ListedTest[];
}

export interface GraderResult {
  name: string | null;
  type: string | null;
  verdict: string | null;
  score: number | null;
  reasoning: string | null;
}

export interface LastRun {
  run: string;
  timestamp: string;
  target: string | null;
  status: "passed" | "failed" | "error";
  score: number | null;
  graders: GraderResult[];
  answer: string | null;
  error?: string | null;
  stale: boolean;
}

export interface TestResult {
  id: string;
  last_run: LastRun | null;
  expected_output?: unknown;
}

/** `agentv/tests`' answer, checked (anything else from the server is dropped). */
export function parseListedFiles(raw: unknown): ListedFile[] {
  const files = (raw as { files?: unknown } | null)?.files;
  if (!Array.isArray(files)) return [];
  const out: ListedFile[] = [];
  for (const file of files) {
    if (!file || typeof file.uri !== "string" || !Array.isArray(file.tests)) continue;
    const tests = file.tests.filter(
      (t: unknown): t is ListedTest =>
        !!t &&
        typeof (t as ListedTest).id === "string" &&
        typeof (t as ListedTest).uri === "string" &&
        typeof (t as ListedTest).line === "number",
    );
    out.push({ uri: file.uri, folder: typeof file.folder === "string" ? file.folder : null, tests });
  }
  return out;
}

export type AgentvCommand = { command: string; args: string[] } | { error: string };

/**
 * The project's own AgentV: `node_modules/.bin/agentv` in the eval file's folder or one above it,
 * up to the workspace folder; else the configured command (`agentv.testing.command`, which an
 * untrusted workspace may not set); else why none.
 */
export function agentvCommand(
  evalPath: string,
  folderPath: string,
  configured: readonly string[],
  isFile: (p: string) => boolean,
  platform: NodeJS.Platform = process.platform,
): AgentvCommand {
  const name = platform === "win32" ? "agentv.cmd" : "agentv";
  const top = path.resolve(folderPath);
  let dir = path.dirname(path.resolve(evalPath));
  for (;;) {
    const candidate = path.join(dir, "node_modules", ".bin", name);
    if (isFile(candidate)) return { command: candidate, args: [] };
    if (dir === top || !dir.startsWith(top + path.sep)) break;
    dir = path.dirname(dir);
  }
  if (configured.length > 0 && configured[0].trim()) return { command: configured[0], args: configured.slice(1) };
  return {
    error:
      "No AgentV to run: none is installed in this project (npm install --save-dev agentv) and " +
      "agentv.testing.command is not set.",
  };
}

/** `agentv eval run`'s test-id is a glob: an id is matched as written. */
export function escapeTestId(id: string): string {
  return id.replace(/[\\*?[\]{}()!+@|]/g, (c) => `\\${c}`);
}

export function runArguments(evalFile: string, testIds: readonly string[] | undefined, target?: string): string[] {
  const args = ["eval", "run", evalFile];
  for (const id of testIds ?? []) args.push("--test-id", escapeTestId(id));
  if (target) args.push("--target", target);
  return args;
}

/** Ask before a run that sends more than `threshold` input tokens (0: never ask). */
export function needsConfirmation(totalTokens: number, threshold: number): boolean {
  return threshold > 0 && totalTokens > threshold;
}

export interface Outcome {
  kind: "passed" | "failed" | "errored" | "missing";
  message?: string;
  expected?: string;
  actual?: string;
}

/** What a test's result means for the view; `startedAt` (ms): a result older than the run did not
 * come from it. */
export function outcomeOf(result: TestResult | undefined, startedAt: number, exitCode: number | null): Outcome {
  const last = result?.last_run;
  const when = last ? Date.parse(last.timestamp) : NaN;
  if (!last || !(when >= startedAt - 1000)) {
    return {
      kind: "missing",
      message: `AgentV recorded no result for this test in this run (exit code ${exitCode ?? "none"}).`,
    };
  }
  const reasons = last.graders
    .map((g) => {
      const head = `${g.name ?? g.type ?? "grader"}: ${g.verdict ?? "?"}${g.score === null ? "" : ` (${g.score})`}`;
      return g.reasoning ? `${head}\n${g.reasoning}` : head;
    })
    .join("\n\n");
  if (last.status === "passed") return { kind: "passed" };
  if (last.status === "error") return { kind: "errored", message: last.error || reasons || "AgentV reported an execution error." };
  const expected = expectedText(result?.expected_output);
  return {
    kind: "failed",
    message: `Score ${last.score ?? "?"} on ${last.target ?? "the target"}.\n\n${reasons}`.trim(),
    ...(expected !== undefined && last.answer !== null ? { expected, actual: last.answer } : {}),
  };
}

/** The last assistant message of `expected_output` (what the answer is compared with). */
export function expectedText(expected: unknown): string | undefined {
  if (!Array.isArray(expected)) return undefined;
  for (let i = expected.length - 1; i >= 0; i--) {
    const message = expected[i];
    if (message && typeof message === "object" && message.role === "assistant") {
      const content = message.content;
      return typeof content === "string" ? content : JSON.stringify(content, null, 2);
    }
  }
  return undefined;
}

/** Output for the test run's terminal: line ends as a terminal wants them. */
export function terminalText(chunk: string): string {
  return chunk.replace(/\r?\n/g, "\r\n");
}

export function describeTokens(total: number, tests: number): string {
  return `${tests} test${tests === 1 ? "" : "s"}, about ${total.toLocaleString("en-US")} input tokens (o200k_base)`;
}
