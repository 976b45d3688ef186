// Finds a Python that can run the AgentV server, starts the LanguageClient, and restarts it cleanly.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
  type ConfigurationParams,
  DidChangeConfigurationNotification,
  type ExecuteCommandSignature,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import {
  BUNDLE_MANIFEST,
  bundleInterpreters,
  describeVersion,
  fitBundle,
  parseManifest,
  parseVersionOutput,
  platformMismatch,
} from "./common/bundle";
import { type Prober, type VersionProber, probeInterpreter, probeVersion } from "./common/probe";
import {
  type Attempt,
  type BundleInputs,
  type LaunchCandidate,
  type Plan,
  type PythonExtensionInfo,
  expandVariables,
  failureMessage,
  failureNotice,
  interpreterFromResolved,
  planCandidates,
} from "./common/python";
import {
  type DocumentFilter,
  SECTION,
  augmentConfiguration,
  documentSelector,
  needsRestart,
  readSettings,
  serverSettings,
} from "./common/settings";
import * as vsc from "./common/vscodeapi";
import type { Disposable, ExtensionContext, LogOutputChannel, Uri } from "./common/vscodeapi";
import { MIGRATED_NOTIFICATION, SERVER_MIGRATION_PROOF } from "./migrated";
import {
  type Pos,
  SERVER_PREVIEW_CASE,
  SERVER_PREVIEW_FILE,
  STATUS_REQUEST,
  parsePreviewTarget,
  previewCaseArgs,
  previewFileArgs,
} from "./preview/model";

export const CLIENT_ID = "agentv";
export const CLIENT_NAME = "AgentV Language Server";
const PYTHON_EXTENSION_ID = "ms-python.python";

export interface ServerHooks {
  /** The server's code lens / an LSP client invoked agentv.previewCase: open the panel. */
  onPreviewCase(target: { uri: string; caseId?: string; position?: Pos } | undefined): void;
  onPreviewFile(uri: string | undefined): void;
  /** Called after every successful (re)start and after a stop. */
  onStateChange(running: boolean): void;
  /** agentv/migrated: the server took in the edit of its migrate action (migrated.ts). */
  onMigrated?(report: unknown): void;
}

/** Builds the launch plan from settings and the environment (vscode access only through vsc). */
export async function resolvePlan(extensionPath: string, resource?: Uri): Promise<Plan> {
  const s = readSettings(vsc.getConfiguration(SECTION, resource));
  const folder = (resource && vsc.getWorkspaceFolder(resource)) ?? vsc.workspaceFolders()[0];
  const vars = { workspaceFolder: folder?.uri.fsPath, home: os.homedir(), env: process.env };
  const found = readBundle(extensionPath);
  const explicit = s.serverCommand.length > 0 || s.pythonPath.trim().length > 0;
  return planCandidates({
    serverCommand: s.serverCommand.map((c) => expandVariables(c, vars)),
    pythonPath: expandVariables(s.pythonPath, vars),
    serverEnv: s.serverEnv,
    // Only ask the Python extension when no explicit setting decides (it may be slow to activate).
    pythonExtension: explicit ? { state: "not-installed" } : await pythonExtensionInfo(resource),
    bundle: typeof found === "string" ? undefined : found,
    bundleProblem: typeof found === "string" ? found : undefined,
    systemPythons: typeof found === "string" ? [] : bundleInterpreters(found.manifest, process.platform),
    trusted: vsc.isWorkspaceTrusted(),
    workspaceFolders: vsc.workspaceFolders().map((f) => f.uri.fsPath),
  });
}

/** The bundled server (`<extension>/bundled/libs` and its manifest), or why it cannot be used. */
export function readBundle(extensionPath: string, platform: string = process.platform, arch: string = process.arch): BundleInputs | string {
  const libs = path.join(extensionPath, "bundled", "libs");
  let text: string;
  try {
    text = fs.readFileSync(path.join(libs, BUNDLE_MANIFEST), "utf8");
  } catch {
    return "this build of the extension has no bundled/libs";
  }
  const manifest = parseManifest(text);
  if (typeof manifest === "string") return `${path.join(libs, BUNDLE_MANIFEST)}: ${manifest}`;
  if (!fs.existsSync(path.join(libs, manifest.common, "agentv_lsp", "__init__.py"))) {
    return `${path.join(libs, manifest.common)} has no agentv_lsp (rebuild it: npm run bundle-python)`;
  }
  const mismatch = platformMismatch(manifest, platform, arch);
  return mismatch ? `not usable here: ${mismatch}` : { libs, manifest };
}

export async function pythonExtensionInfo(resource?: Uri): Promise<PythonExtensionInfo> {
  const ext = vsc.getExtension(PYTHON_EXTENSION_ID);
  if (!ext) return { state: "not-installed" };
  try {
    if (!ext.isActive) await ext.activate();
    const envs = ext.exports?.environments;
    if (!envs?.getActiveEnvironmentPath) return { state: "no-interpreter", detail: "the extension has no environments API" };
    const active = envs.getActiveEnvironmentPath(resource);
    const resolved = await envs.resolveEnvironment(active);
    const interpreter = interpreterFromResolved(resolved) ?? (typeof active?.path === "string" ? active.path : undefined);
    return interpreter ? { state: "ok", interpreter } : { state: "no-interpreter" };
  } catch (err) {
    return { state: "no-interpreter", detail: String(err) };
  }
}

/**
 * Probes the candidates in order; the first that imports agentv_lsp wins. A bundled candidate is
 * first asked its version: only a CPython minor the bundle has compiled parts for is tried, with
 * PYTHONPATH set to the bundle's common part and that minor's part.
 */
export async function chooseCandidate(
  plan: Plan,
  probe: Prober,
  cwd: string | undefined,
  log?: (msg: string) => void,
  versionProbe: VersionProber = probeVersion,
): Promise<{ chosen?: LaunchCandidate; attempts: Attempt[] }> {
  const attempts: Attempt[] = [];
  // A program that does not exist is reported once, not again for each way of running it.
  const missing = new Set<string>();
  const notFound = (c: LaunchCandidate, output: string) => {
    if (output === `${c.command}: not found`) missing.add(c.command);
  };
  for (const planned of plan.candidates) {
    if (!planned.probe) return { chosen: planned, attempts };
    if (missing.has(planned.command)) continue;
    let c = planned;
    if (c.bundle) {
      const v = await versionProbe(c.command, c.env, cwd, c.interpreterArgs);
      if (!v.ok) notFound(c, v.output);
      const version = v.ok ? parseVersionOutput(v.output) : undefined;
      log?.(`version ${c.label}: ${version ? describeVersion(version) : v.output}`);
      if (!version) {
        attempts.push({ label: c.label, error: v.ok ? `unexpected answer to the version query: ${v.output}` : v.output });
        continue;
      }
      const fit = fitBundle(c.bundle.manifest, c.bundle.libs, version);
      if (!fit.ok) {
        attempts.push({ label: c.label, error: fit.reason });
        continue;
      }
      c = { ...c, label: `${c.label} (Python ${fit.minor})`, env: { ...c.env, PYTHONPATH: fit.pythonPath } };
    }
    const r = await probe(c.command, c.env, cwd, c.interpreterArgs);
    log?.(`probe ${c.label}: ${r.ok ? "ok" : "failed"}: ${r.output}`);
    if (r.ok) return { chosen: c, attempts };
    notFound(c, r.output);
    attempts.push({ label: c.label, error: r.output });
  }
  return { attempts };
}

export class ServerManager implements Disposable {
  private client: LanguageClient | undefined;
  private candidate: LaunchCandidate | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly disposables: Disposable[] = [];
  private pythonEnvListener: Disposable | undefined;
  private selector: DocumentFilter[] = documentSelector(readSettings(vsc.getConfiguration(SECTION)).evalGlobs);

  constructor(
    private readonly context: ExtensionContext,
    readonly log: LogOutputChannel,
    private readonly hooks: ServerHooks,
    private readonly probe: Prober = probeInterpreter,
    private readonly versionProbe: VersionProber = probeVersion,
  ) {
    this.disposables.push(
      vsc.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration(SECTION)) return;
        if (needsRestart((s) => e.affectsConfiguration(s))) {
          void this.restart("settings changed");
        } else {
          this.pushConfiguration();
        }
      }),
      vsc.onDidGrantWorkspaceTrust(() => void this.restart("workspace trusted")),
    );
  }

  get documentSelector(): DocumentFilter[] {
    return this.selector;
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  get launchedWith(): LaunchCandidate | undefined {
    return this.candidate;
  }

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  restart(reason: string): Promise<void> {
    return this.enqueue(async () => {
      this.log.info(`restarting the server: ${reason}`);
      await this.doStop();
      await this.doStart();
    });
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  async previewCase(uri: string, target: { caseId?: string; position?: Pos }): Promise<unknown> {
    return this.executeOnServer(SERVER_PREVIEW_CASE, previewCaseArgs(uri, target));
  }

  async previewFile(uri: string): Promise<unknown> {
    return this.executeOnServer(SERVER_PREVIEW_FILE, previewFileArgs(uri));
  }

  /** The per-test proof of a migration the server took in (`{title, markdown}`). */
  async migrationProof(uri: string): Promise<unknown> {
    return this.executeOnServer(SERVER_MIGRATION_PROOF, [{ uri }]);
  }

  /** agentv/status for the language status item; undefined when the server does not implement it. */
  async status(uri: string): Promise<unknown> {
    const c = this.client;
    if (!c || c.state !== State.Running) return undefined;
    try {
      return await c.sendRequest(STATUS_REQUEST, { uri });
    } catch (err) {
      this.log.debug(`${STATUS_REQUEST} unavailable: ${String(err)}`);
      return undefined;
    }
  }

  /** A custom request of the server (agentv/renderedPrompt for "Compare prompt with HEAD"). */
  async request(method: string, params: unknown): Promise<unknown> {
    const c = this.client;
    if (!c || c.state !== State.Running) throw new Error("the AgentV language server is not running (see AgentV: Show Language Server Log)");
    return c.sendRequest(method, params);
  }

  private async executeOnServer(command: string, args: unknown[]): Promise<unknown> {
    const c = this.client;
    if (!c || c.state !== State.Running) throw new Error("the AgentV language server is not running (see AgentV: Show Language Server Log)");
    return c.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private trusted(): boolean {
    return vsc.isWorkspaceTrusted();
  }

  private rawSettings(): unknown {
    return vsc.getConfiguration().get(SECTION) ?? {};
  }

  private pushConfiguration(): void {
    const c = this.client;
    if (!c || c.state !== State.Running) return;
    void c
      .sendNotification(DidChangeConfigurationNotification.type, {
        settings: { [SECTION]: serverSettings(this.rawSettings(), this.trusted()) },
      })
      .catch((e) => this.log.warn(`didChangeConfiguration failed: ${String(e)}`));
  }

  private async doStart(): Promise<void> {
    const settings = readSettings(vsc.getConfiguration(SECTION));
    this.selector = documentSelector(settings.evalGlobs);
    const extensionPath = this.context.extensionUri.fsPath;
    const plan = await resolvePlan(extensionPath);
    this.log.info(`server lookup: ${plan.skipped.join("; ") || "explicit setting"}`);
    this.watchPythonExtension();
    const { chosen, attempts } = await chooseCandidate(
      plan,
      this.probe,
      extensionPath,
      (m) => this.log.info(m),
      this.versionProbe,
    );
    if (!chosen) {
      this.log.error(failureMessage(plan, attempts));
      this.hooks.onStateChange(false);
      void vsc.showErrorMessage(failureNotice(plan, attempts), "Open Settings", "Show Log").then((pick) => {
        if (pick === "Open Settings") void vsc.openSettings("agentv.server");
        if (pick === "Show Log") this.log.show();
      });
      return;
    }
    this.candidate = chosen;
    const folder = vsc.workspaceFolders()[0]?.uri.fsPath;
    // Never run `python -m` from the workspace folder: a workspace could shadow the agentv_lsp module.
    const cwd = chosen.source === "setting-command" && this.trusted() && folder ? folder : extensionPath;
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...chosen.env };
    const serverOptions: ServerOptions = {
      command: chosen.command,
      args: chosen.args,
      transport: TransportKind.stdio,
      options: { cwd, env },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: this.selector,
      outputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // the hover's "Open in the preview panel" link; no other command runs from the server's Markdown
      markdown: { isTrusted: { enabledCommands: ["agentv.showPreview"] }, supportHtml: false },
      initializationOptions: { settings: serverSettings(this.rawSettings(), this.trusted()) },
      middleware: this.middleware(),
    };
    const bundlePath = chosen.bundle ? ` with PYTHONPATH=${chosen.env.PYTHONPATH}` : "";
    this.log.info(`starting ${chosen.label}: ${[chosen.command, ...chosen.args].join(" ")}${bundlePath} (cwd ${cwd})`);
    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    this.client = client;
    const t0 = Date.now();
    try {
      await client.start();
      this.log.info(`server started in ${Date.now() - t0} ms`);
      client.onNotification(MIGRATED_NOTIFICATION, (report: unknown) => this.hooks.onMigrated?.(report));
      this.hooks.onStateChange(true);
      client.onDidChangeState((e) => this.hooks.onStateChange(e.newState === State.Running));
    } catch (err) {
      this.log.error(`server failed to start: ${String(err)}`);
      this.hooks.onStateChange(false);
      void vsc
        .showErrorMessage(
          `AgentV: the language server (${chosen.label}) failed to start: ${String(err)}`,
          "Show Log",
          "Open Settings",
        )
        .then((pick) => {
          if (pick === "Show Log") this.log.show();
          if (pick === "Open Settings") void vsc.openSettings("agentv.server");
        });
    }
  }

  private middleware(): Middleware {
    return {
      executeCommand: async (command: string, args: unknown[], next: ExecuteCommandSignature) => {
        // The server's "Preview" code lens runs the LSP command agentv.previewCase; vscode-languageclient
        // registered it as a VS Code command that lands here. Open the panel, and still answer the caller.
        if (command === SERVER_PREVIEW_CASE) {
          this.hooks.onPreviewCase(parsePreviewTarget(args));
        } else if (command === SERVER_PREVIEW_FILE) {
          this.hooks.onPreviewFile(parsePreviewTarget(args)?.uri);
        }
        return next(command, args);
      },
      provideCodeLenses: (document, token, next) => {
        const enabled = readSettings(vsc.getConfiguration(SECTION, document.uri)).codeLensEnabled;
        return enabled ? next(document, token) : [];
      },
      workspace: {
        configuration: async (params: ConfigurationParams, token, next) => {
          const results = await next(params, token);
          if (!Array.isArray(results)) return results;
          return augmentConfiguration(params.items, results, this.trusted());
        },
      },
    };
  }

  private watchPythonExtension(): void {
    if (this.pythonEnvListener) return;
    const ext = vsc.getExtension(PYTHON_EXTENSION_ID);
    const event = ext?.isActive ? ext.exports?.environments?.onDidChangeActiveEnvironmentPath : undefined;
    if (typeof event !== "function") return;
    const listener: Disposable = event(() => {
      const src = this.candidate?.source;
      if (src === "python-extension" || src === "bundled" || !this.running) void this.restart("Python interpreter changed");
    });
    this.pythonEnvListener = listener;
    this.disposables.push(listener);
  }

  private async doStop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (!c) return;
    try {
      if (c.state !== State.Stopped) await c.stop(5000);
    } catch (err) {
      this.log.warn(`stopping the server: ${String(err)}`);
    }
    try {
      await c.dispose(2000);
    } catch {
      /* already stopped */
    }
    this.hooks.onStateChange(false);
  }

  async dispose(): Promise<void> {
    this.disposables.forEach((d) => d.dispose());
    await this.stop();
  }
}
