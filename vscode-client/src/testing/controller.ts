// VS Code's Testing view for AgentV 4.x: folder -> eval file -> test, from the server's `agentv/tests`;
// a run profile per target of the project; each run is the project's own `agentv eval run FILE
// --test-id ... [--target T]`, its output streamed, cancel ending its process tree, and each test's
// outcome read back from the results AgentV wrote (`agentv/testResults`). Nothing runs in an
// untrusted workspace.
import { type ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import { SECTION } from "../common/settings";
import * as vsc from "../common/vscodeapi";
import type {
  CancellationToken,
  Disposable,
  LogOutputChannel,
  TestController,
  TestItem,
  TestRun,
  TestRunRequest,
} from "../common/vscodeapi";
import {
  type ListedFile,
  type TestResult,
  RESULTS_REQUEST,
  RUN_PLAN_REQUEST,
  TESTS_REQUEST,
  agentvCommand,
  describeTokens,
  needsConfirmation,
  outcomeOf,
  parseListedFiles,
  runArguments,
  terminalText,
} from "./plan";

type Requester = (method: string, params: unknown) => Promise<unknown>;

export const UNTRUSTED_REASON =
  "AgentV tests do not run in Restricted Mode: this workspace is not trusted, and a run executes the " +
  "project's own AgentV and its graders. Trust the workspace to run them.";
const DEFAULT_PROFILE = "(the eval file's target)";

export class TestingView implements Disposable {
  readonly controller: TestController;
  private readonly disposables: Disposable[] = [];
  private readonly profiles = new Map<string, Disposable>();
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly request: Requester,
    private readonly log: LogOutputChannel,
  ) {
    this.controller = vsc.createTestController("agentv", "AgentV");
    this.controller.refreshHandler = () => this.refresh();
    this.addProfile(DEFAULT_PROFILE, undefined, true);
    this.disposables.push(
      this.controller,
      vsc.onDidSaveTextDocument((doc) => {
        if (doc.languageId === "yaml") this.refreshSoon();
      }),
      vsc.onDidChangeTextDocument((e) => {
        if (e.document.languageId === "yaml" && e.contentChanges.length > 0) this.refreshSoon();
      }),
      vsc.onDidGrantWorkspaceTrust(() => void this.refresh()),
    );
  }

  dispose(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    for (const p of this.profiles.values()) p.dispose();
    for (const d of this.disposables) d.dispose();
  }

  refreshSoon(delayMs = 800): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => void this.refresh(), delayMs);
  }

  /** Lists every test again (the tree mirrors `agentv/tests`). */
  async refresh(): Promise<void> {
    let files: ListedFile[];
    try {
      files = parseListedFiles(await this.request(TESTS_REQUEST, {}));
    } catch (err) {
      this.log.warn(`AgentV tests could not be listed: ${String(err)}`);
      return;
    }
    const folders = new Map<string, TestItem>();
    for (const file of files) {
      const folderKey = file.folder ?? "";
      let folder = folders.get(folderKey);
      if (!folder) {
        const label = file.folder ? vsc.uriParse(file.folder).path.split("/").pop() || file.folder : "AgentV";
        folder = this.controller.createTestItem(`folder:${folderKey}`, label, file.folder ? vsc.uriParse(file.folder) : undefined);
        folders.set(folderKey, folder);
      }
      const uri = vsc.uriParse(file.uri);
      const fileItem = this.controller.createTestItem(`file:${file.uri}`, uri.path.split("/").pop() || file.uri, uri);
      for (const test of file.tests) {
        const item = this.controller.createTestItem(`test:${file.uri}#${test.id}`, test.id, vsc.uriParse(test.uri));
        item.range = vsc.newRange(test.line, 0, test.line, 0);
        fileItem.children.add(item);
      }
      folder.children.add(fileItem);
    }
    const untrusted = !vsc.isWorkspaceTrusted();
    for (const folder of folders.values()) folder.error = untrusted ? UNTRUSTED_REASON : undefined;
    this.controller.items.replace([...folders.values()]);
    void this.updateProfiles(files);
  }

  private async updateProfiles(files: ListedFile[]): Promise<void> {
    const names = new Set<string>();
    for (const file of files.slice(0, 50)) {
      try {
        const plan = (await this.request(RUN_PLAN_REQUEST, { uri: file.uri, testIds: [] })) as { targets?: unknown };
        for (const t of Array.isArray(plan?.targets) ? plan.targets : []) if (typeof t === "string") names.add(t);
      } catch {
        // a file that no longer loads: its targets are not offered
      }
    }
    for (const [name, profile] of this.profiles) {
      if (name !== DEFAULT_PROFILE && !names.has(name)) {
        profile.dispose();
        this.profiles.delete(name);
      }
    }
    for (const name of names) if (!this.profiles.has(name)) this.addProfile(`Target: ${name}`, name, false, name);
  }

  private addProfile(label: string, target: string | undefined, isDefault: boolean, key = label): void {
    const profile = this.controller.createRunProfile(
      label,
      vsc.TestRunProfileKind.Run,
      (request, token) => this.run(request, token, target),
      isDefault,
    );
    this.profiles.set(key, profile);
  }

  /** The tests a request names, grouped by the eval file that loads them. */
  private selected(request: TestRunRequest): Map<string, TestItem[]> {
    const excluded = new Set((request.exclude ?? []).map((t) => t.id));
    const groups = new Map<string, TestItem[]>();
    const visit = (item: TestItem): void => {
      if (excluded.has(item.id)) return;
      if (item.id.startsWith("test:")) {
        const fileUri = item.id.slice(5, item.id.indexOf("#"));
        const list = groups.get(fileUri) ?? [];
        list.push(item);
        groups.set(fileUri, list);
        return;
      }
      item.children.forEach(visit);
    };
    if (request.include) request.include.forEach(visit);
    else this.controller.items.forEach(visit);
    return groups;
  }

  async run(request: TestRunRequest, token: CancellationToken, target: string | undefined): Promise<void> {
    const run = this.controller.createTestRun(request);
    const groups = this.selected(request);
    try {
      if (!vsc.isWorkspaceTrusted()) {
        run.appendOutput(terminalText(`${UNTRUSTED_REASON}\n`));
        for (const tests of groups.values()) for (const t of tests) run.skipped(t);
        return;
      }
      for (const [fileUri, tests] of groups) {
        if (token.isCancellationRequested) {
          tests.forEach((t) => run.skipped(t));
          continue;
        }
        await this.runFile(run, fileUri, tests, token, target);
      }
    } finally {
      run.end();
    }
  }

  private async runFile(
    run: TestRun,
    fileUri: string,
    tests: TestItem[],
    token: CancellationToken,
    target: string | undefined,
  ): Promise<void> {
    const ids = tests.map((t) => t.id.slice(t.id.indexOf("#") + 1));
    const plan = (await this.request(RUN_PLAN_REQUEST, { uri: fileUri, testIds: ids })) as {
      total_tokens?: number;
      error?: string;
    };
    const total = typeof plan?.total_tokens === "number" ? plan.total_tokens : 0;
    const threshold = vsc.getConfiguration(SECTION).get<number>("testing.confirmTokens") ?? 50000;
    const summary = describeTokens(total, ids.length);
    run.appendOutput(terminalText(`AgentV: ${summary}\n`));
    if (needsConfirmation(total, threshold)) {
      const go = await vsc.showModalWarning(`Run ${summary}?`, "agentv.testing.confirmTokens sets this limit.", "Run");
      if (go !== "Run") {
        tests.forEach((t) => run.skipped(t));
        return;
      }
    }
    const file = vsc.uriParse(fileUri);
    const folder = vsc.getWorkspaceFolder(file);
    const cwd = folder?.uri.fsPath ?? file.fsPath.replace(/[/\\][^/\\]*$/, "");
    const configured = vsc.getConfiguration(SECTION, file).get<string[]>("testing.command") ?? [];
    const command = agentvCommand(file.fsPath, cwd, Array.isArray(configured) ? configured : [], isFile);
    if ("error" in command) {
      for (const t of tests) run.errored(t, vsc.testMessage(command.error));
      return;
    }
    const args = [...command.args, ...runArguments(file.fsPath, ids, target)];
    run.appendOutput(terminalText(`$ ${[command.command, ...args].join(" ")}\n`));
    tests.forEach((t) => run.started(t));
    const startedAt = Date.now();
    const exitCode = await runProcess(command.command, args, cwd, token, (text) =>
      run.appendOutput(terminalText(text)),
    );
    const answer = (await this.request(RESULTS_REQUEST, { uri: fileUri })) as { tests?: TestResult[] };
    const byId = new Map((answer?.tests ?? []).map((t) => [t.id, t]));
    for (const [i, item] of tests.entries()) {
      if (token.isCancellationRequested) {
        run.skipped(item);
        continue;
      }
      const outcome = outcomeOf(byId.get(ids[i]), startedAt, exitCode);
      const duration = Date.now() - startedAt;
      if (outcome.kind === "passed") run.passed(item, duration);
      else if (outcome.kind === "failed")
        run.failed(item, vsc.testMessage(outcome.message ?? "", outcome.expected, outcome.actual), duration);
      else run.errored(item, vsc.testMessage(outcome.message ?? ""), duration);
    }
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Runs the command, streaming its output; cancelling ends its whole process group. */
function runProcess(
  command: string,
  args: string[],
  cwd: string,
  token: CancellationToken,
  output: (text: string) => void,
): Promise<number | null> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd,
        detached: process.platform !== "win32",
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, FORCE_COLOR: "0" },
      });
    } catch (err) {
      output(`could not start ${command}: ${String(err)}\n`);
      resolve(null);
      return;
    }
    const stop = token.onCancellationRequested(() => {
      output("\nCancelled: stopping AgentV.\n");
      try {
        if (child.pid !== undefined && process.platform !== "win32") process.kill(-child.pid, "SIGTERM");
        else child.kill();
      } catch {
        // already gone
      }
    });
    child.stdout?.setEncoding("utf8").on("data", output);
    child.stderr?.setEncoding("utf8").on("data", output);
    child.on("error", (err) => output(`could not start ${command}: ${err.message}\n`));
    child.on("close", (code) => {
      stop.dispose();
      resolve(code);
    });
  });
}
