// Language status item ("{} AgentV" in the status bar for eval files): the runtime that judges the
// file and why, the schema and the .agentv/config.yaml in use, from the server's agentv/status request.
import * as path from "path";
import * as vsc from "./common/vscodeapi";
import type { Disposable, LanguageStatusItem } from "./common/vscodeapi";
import type { DocumentFilter } from "./common/settings";
import { normalizeStatus, type StatusInfo } from "./preview/model";

export interface StatusSource {
  running: boolean;
  status(uri: string): Promise<unknown>;
  launchedWith?: { label: string };
}

/** Where the status goes besides the item: one log line each time it changes. */
export type StatusLog = (line: string) => void;

export interface StatusDescription {
  text: string;
  /** One short line (the popup is narrow: a long one was cut at the window's edge, hiding "Show Log"). */
  detail: string;
  /** Everything, on the item's link (and in the log when it changes). */
  tooltip?: string;
  severity: "info" | "warning" | "error";
  /** A second item under the first: the files in use (one short line each, so the hover fits). */
  files?: { text: string; detail: string };
}

export const RESTRICTED_TEXT = "Restricted Mode";
export const RESTRICTED_DETAIL =
  "Restricted Mode: the server reads only files inside the workspace folders, and the workspace cannot choose the server command or interpreter.";

/** Why a runtime judges the file, in a few words (the whole reason goes to the tooltip and the log). */
export function shortReason(reason: string): string {
  if (reason.startsWith("installed ")) return "installed in the project";
  if (/package\.json/.test(reason) || reason.startsWith("declared")) return "declared in package.json";
  if (reason.startsWith("no AgentV installed or declared")) return "no AgentV in the project";
  if (reason.startsWith("the file uses the v2 format") || reason.startsWith("the file declares")) return "the file's v2 format";
  if (reason.startsWith("asked for AgentV")) return "the agentv.runtime setting";
  if (reason.startsWith("an eval file judged")) return "the eval file using it";
  return reason.length > 40 ? `${reason.slice(0, 39)}…` : reason;
}

/** Pure: text, detail and severity of the item. `trusted`: false in Restricted Mode. */
export function describeStatus(
  running: boolean,
  info: StatusInfo | null,
  launchedWith: string | undefined,
  configDisplay: (p: string) => string = (p) => p,
  trusted = true,
): StatusDescription {
  const described = describeTrusted(running, info, launchedWith, configDisplay);
  if (trusted) return described;
  // the trust state, visible on the item itself (VS Code explains Restricted Mode only on its own page)
  return {
    ...described,
    text: `${described.text} · ${RESTRICTED_TEXT}`,
    tooltip: [described.tooltip ?? described.detail, RESTRICTED_DETAIL].join("\n"),
    severity: described.severity === "info" ? "warning" : described.severity,
  };
}

function describeTrusted(
  running: boolean,
  info: StatusInfo | null,
  launchedWith: string | undefined,
  configDisplay: (p: string) => string,
): StatusDescription {
  if (!running) return { text: "AgentV: server not running", detail: "Click to restart", severity: "error" };
  if (!info) return { text: "AgentV", detail: launchedWith ? `server: ${launchedWith}` : "server running", severity: "info" };
  if (!info.kind && !info.schema) return { text: "AgentV", detail: "not an AgentV file", severity: "info" };
  const schema = info.schema ?? "no $schema";
  const parts = [info.config ? `config: ${configDisplay(info.config)}` : "no .agentv/config.yaml (defaults)"];
  if (info.targets) parts.push(`targets: ${configDisplay(info.targets)}`);
  if (typeof info.cases === "number") parts.push(`${info.cases} case${info.cases === 1 ? "" : "s"}`);
  const severity = info.schema ? "info" : "warning";
  // which runtime judges the file, and why (project's agentv package, the file's format, the setting):
  // a short line, the whole reason in the tooltip; the files in use go to a second item
  if (info.runtime) {
    const [config, ...rest] = parts;
    const text = `AgentV ${schema}`;
    const why = shortReason(info.runtime.reason);
    return {
      text,
      // the version once: a 4.x file's text already names it
      detail: schema === info.runtime.version ? why : `AgentV ${info.runtime.version} · ${why}`,
      tooltip: `Judged as AgentV ${info.runtime.version}: ${info.runtime.reason}`,
      severity,
      files: { text: config, detail: rest.join(" · ") },
    };
  }
  return { text: `AgentV ${schema}`, detail: parts.join(" · "), severity };
}

export class StatusItem implements Disposable {
  private item: LanguageStatusItem | undefined;
  private filesItem: LanguageStatusItem | undefined;
  private readonly disposables: Disposable[] = [];
  private seq = 0;
  private logged = "";

  constructor(
    private readonly source: StatusSource,
    private readonly log: StatusLog = () => undefined,
    private readonly trusted: () => boolean = () => true,
  ) {
    this.disposables.push(vsc.onDidChangeActiveTextEditor(() => void this.update()));
  }

  /** (Re)creates the item for a document selector (it changes with agentv.evalGlobs). */
  setSelector(selector: DocumentFilter[]): void {
    this.item?.dispose();
    this.filesItem?.dispose();
    this.item = vsc.createLanguageStatusItem("agentv.status", selector);
    this.item.name = "AgentV";
    this.filesItem = vsc.createLanguageStatusItem("agentv.files", selector);
    this.filesItem.name = "AgentV files";
    this.filesItem.text = "";
    void this.update();
  }

  async update(): Promise<void> {
    const item = this.item;
    if (!item) return;
    const mine = ++this.seq;
    const uri = vsc.activeTextEditor()?.document.uri;
    let info: StatusInfo | null = null;
    if (this.source.running && uri) {
      item.busy = true;
      info = normalizeStatus(await this.source.status(uri.toString()));
      item.busy = false;
    }
    if (mine !== this.seq) return;
    const folder = uri ? vsc.getWorkspaceFolder(uri) : undefined;
    const d = describeStatus(
      this.source.running,
      info,
      this.source.launchedWith?.label,
      (p) => (folder && path.isAbsolute(p) ? path.relative(folder.uri.fsPath, p) || p : p),
      this.trusted(),
    );
    item.text = d.text;
    item.detail = d.detail;
    const line = `status: ${d.text}: ${(d.tooltip ?? d.detail).replace(/\n/g, " ")}`;
    if (line !== this.logged && uri) {
      this.logged = line;
      this.log(`${line} (${path.basename(uri.fsPath)})`);
    }
    if (this.filesItem) {
      this.filesItem.text = d.files?.text ?? "";
      this.filesItem.detail = d.files?.detail ?? "";
    }
    item.severity =
      d.severity === "error" ? vsc.LanguageStatusSeverity.Error : d.severity === "warning" ? vsc.LanguageStatusSeverity.Warning : vsc.LanguageStatusSeverity.Information;
    item.command = this.source.running
      ? { title: "Show Log", command: "agentv.showServerLog", tooltip: d.tooltip ?? d.detail }
      : { title: "Restart", command: "agentv.restartServer", tooltip: d.tooltip ?? d.detail };
  }

  dispose(): void {
    this.item?.dispose();
    this.filesItem?.dispose();
    this.disposables.forEach((d) => d.dispose());
  }
}
