// Entry point: wires the server manager, the preview panel and the status item together.
import { SECTION, readSettings } from "./common/settings";
import * as vsc from "./common/vscodeapi";
import type { ExtensionContext } from "./common/vscodeapi";
import { parsePreviewTarget } from "./preview/model";
import { PreviewPanel } from "./preview/panel";
import { SHOW_PROOF, describeMigration, parseMigrationReport, parseProof } from "./migrated";
import { registerPromptDiff } from "./promptDiff";
import { ServerManager } from "./server";
import { StatusItem } from "./status";
import { TestingView } from "./testing/controller";
import { VirtualDocuments } from "./virtualDocs";

const PROOF_SCHEME = "agentv-proof";

let manager: ServerManager | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  const log = vsc.createLogOutputChannel("AgentV");
  context.subscriptions.push(log);
  const settings = () => readSettings(vsc.getConfiguration(SECTION));

  const proofs = new VirtualDocuments(PROOF_SCHEME);
  context.subscriptions.push(vsc.registerTextDocumentContentProvider(PROOF_SCHEME, (uri) => proofs.provide(uri.query)));
  let preview: PreviewPanel | undefined;
  let status: StatusItem | undefined;
  let testing: TestingView | undefined;
  const mgr = new ServerManager(context, log, {
    onPreviewCase: (target) => preview?.showCase(target),
    onPreviewFile: (uri) => preview?.showFile(uri),
    onStateChange: (running) => {
      void vsc.setContext("agentv.serverRunning", running);
      status?.setSelector(mgr.documentSelector);
      if (running) preview?.refreshNow();
      if (running) void testing?.refresh();
    },
    // -- editor (issue 27): after "Migrate this file to AgentV 4" --
    onMigrated: (raw) => {
      const report = parseMigrationReport(raw);
      if (!report) return;
      preview?.followRename(report.oldUri, report.uri);
      void status?.update();
      log.info(describeMigration(report));
      void vsc.showInformationMessage(describeMigration(report), SHOW_PROOF).then(async (pick) => {
        if (pick !== SHOW_PROOF) return;
        const proof = parseProof(await mgr.migrationProof(report.uri));
        // read-only and virtual: never an unsaved "Untitled-1 ●" the user is asked to save
        if (proof) await vsc.showDocumentBeside(proofs.issue([`${proof.title}.md`], proof.markdown));
        else void vsc.showWarningMessage("AgentV: the proof of this migration is no longer available.");
      });
    },
    // -- end editor --
  });
  manager = mgr;
  preview = new PreviewPanel(
    context.extensionUri,
    mgr,
    {
      debounceMs: () => settings().previewDebounceMs,
      followCursor: () => settings().previewFollowCursor,
      isEvalDocument: (doc) => vsc.matchesSelector(mgr.documentSelector, doc),
    },
    log,
  );
  status = new StatusItem(mgr, (line) => log.info(line), () => vsc.isWorkspaceTrusted());
  testing = new TestingView((method, params) => mgr.request(method, params), log);
  const panel = preview;
  context.subscriptions.push(
    mgr,
    panel,
    status,
    testing,
    // [{uri, caseId?, position?}] from a code lens or another extension; nothing from the palette.
    vsc.registerCommand("agentv.showPreview", (...args: unknown[]) => panel.showCase(parsePreviewTarget(args))),
    vsc.registerCommand("agentv.showFilePreview", (arg?: unknown) => panel.showFile(uriArg(arg))),
    vsc.registerCommand("agentv.restartServer", () => mgr.restart("restart command")),
    vsc.registerCommand("agentv.showServerLog", () => log.show()),
    // agentv-lsp diff in the editor: "Compare prompt with HEAD" (code lens and palette)
    ...registerPromptDiff(
      (method, params) => mgr.request(method, params),
      (uri, line) => mgr.previewCase(uri, { position: { line, character: 0 } }),
    ),
  );
  await mgr.start();
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
  manager = undefined;
}

function uriArg(arg: unknown): string | undefined {
  // From an explorer/editor context menu VS Code passes a Uri; other callers may pass {uri}.
  if (arg && typeof arg === "object" && "scheme" in arg) return String(arg);
  return parsePreviewTarget([arg])?.uri;
}
