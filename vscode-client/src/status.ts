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

export interface StatusDescription {
  text: string;
  detail: string;
  severity: "info" | "warning" | "error";
  /** A second item under the first: the files in use (one short line each, so the hover fits). */
  files?: { text: string; detail: string };
}

/** Pure: text, detail and severity of the item. */
export function describeStatus(
  running: boolean,
  info: StatusInfo | null,
  launchedWith: string | undefined,
  configDisplay: (p: string) => string = (p) => p,
): StatusDescription {
  if (!running) return { text: "AgentV: server not running", detail: "Click to restart", severity: "error" };
  if (!info) return { text: "AgentV", detail: launchedWith ? `server: ${launchedWith}` : "server running", severity: "info" };
  if (!info.kind && !info.schema) return { text: "AgentV", detail: "not an AgentV file", severity: "info" };
  const schema = info.schema ?? "no $schema";
  const parts = [info.config ? `config: ${configDisplay(info.config)}` : "no .agentv/config.yaml (defaults)"];
  if (info.targets) parts.push(`targets: ${configDisplay(info.targets)}`);
  if (typeof info.cases === "number") parts.push(`${info.cases} case${info.cases === 1 ? "" : "s"}`);
  const severity = info.schema ? "info" : "warning";
  // which runtime judges the file, and why (project's agentv package, the file's format, the setting);
  // the files in use then go to a second item: one long line was cut at the window's edge
  if (info.runtime) {
    const [config, ...rest] = parts;
    return {
      text: `AgentV ${schema}`,
      detail: `judged as AgentV ${info.runtime.version}: ${info.runtime.reason}`,
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

  constructor(private readonly source: StatusSource) {
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
    const d = describeStatus(this.source.running, info, this.source.launchedWith?.label, (p) =>
      folder && path.isAbsolute(p) ? path.relative(folder.uri.fsPath, p) || p : p,
    );
    item.text = d.text;
    item.detail = d.detail;
    if (this.filesItem) {
      this.filesItem.text = d.files?.text ?? "";
      this.filesItem.detail = d.files?.detail ?? "";
    }
    item.severity =
      d.severity === "error" ? vsc.LanguageStatusSeverity.Error : d.severity === "warning" ? vsc.LanguageStatusSeverity.Warning : vsc.LanguageStatusSeverity.Information;
    item.command = this.source.running
      ? { title: "Show Log", command: "agentv.showServerLog" }
      : { title: "Restart", command: "agentv.restartServer" };
  }

  dispose(): void {
    this.item?.dispose();
    this.filesItem?.dispose();
    this.disposables.forEach((d) => d.dispose());
  }
}
