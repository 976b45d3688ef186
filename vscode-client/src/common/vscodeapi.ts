// Every call into the `vscode` module goes through here, so unit tests can replace one module.
// (Pattern from microsoft/vscode-python-tools-extension-template, src/common/vscodeapi.ts.)
// Types may be imported from "vscode" elsewhere (`import type`), values may not.
import * as vscode from "vscode";

export type {
  CancellationToken,
  ConfigurationChangeEvent,
  Disposable,
  Event,
  ExtensionContext,
  LanguageStatusItem,
  LogOutputChannel,
  Position,
  TextDocument,
  TextDocumentChangeEvent,
  TextEditor,
  TextEditorSelectionChangeEvent,
  TestController,
  TestItem,
  TestRun,
  TestRunRequest,
  Uri,
  Webview,
  WebviewPanel,
  WorkspaceConfiguration,
  WorkspaceFolder,
} from "vscode";

// ---- window ----
export function createLogOutputChannel(name: string): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel(name, { log: true });
}

export function showErrorMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined> {
  return vscode.window.showErrorMessage(message, ...items);
}

export function showWarningMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined> {
  return vscode.window.showWarningMessage(message, ...items);
}

export function showInformationMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined> {
  return vscode.window.showInformationMessage(message, ...items);
}

export function activeTextEditor(): vscode.TextEditor | undefined {
  return vscode.window.activeTextEditor;
}

export function visibleTextEditors(): readonly vscode.TextEditor[] {
  return vscode.window.visibleTextEditors;
}

export function onDidChangeActiveTextEditor(
  listener: (e: vscode.TextEditor | undefined) => unknown,
): vscode.Disposable {
  return vscode.window.onDidChangeActiveTextEditor(listener);
}

export function onDidChangeTextEditorSelection(
  listener: (e: vscode.TextEditorSelectionChangeEvent) => unknown,
): vscode.Disposable {
  return vscode.window.onDidChangeTextEditorSelection(listener);
}

export function createPreviewPanel(viewType: string, title: string, localResourceRoots: vscode.Uri[]): vscode.WebviewPanel {
  return vscode.window.createWebviewPanel(
    viewType,
    title,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    { enableScripts: true, enableCommandUris: false, localResourceRoots, retainContextWhenHidden: false },
  );
}

export function revealPanel(panel: vscode.WebviewPanel): void {
  panel.reveal(vscode.ViewColumn.Beside, true);
}

// ---- workspace ----
export function getConfiguration(section?: string, scope?: vscode.Uri): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(section, scope);
}

export function onDidChangeConfiguration(listener: (e: vscode.ConfigurationChangeEvent) => unknown): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration(listener);
}

export function onDidChangeTextDocument(listener: (e: vscode.TextDocumentChangeEvent) => unknown): vscode.Disposable {
  return vscode.workspace.onDidChangeTextDocument(listener);
}

export function onDidGrantWorkspaceTrust(listener: () => unknown): vscode.Disposable {
  return vscode.workspace.onDidGrantWorkspaceTrust(listener);
}

export function isWorkspaceTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

export function workspaceFolders(): readonly vscode.WorkspaceFolder[] {
  return vscode.workspace.workspaceFolders ?? [];
}

export function getWorkspaceFolder(uri: vscode.Uri): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.getWorkspaceFolder(uri);
}

export function findTextDocument(uri: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
}

// ---- commands ----
export function registerCommand(id: string, callback: (...args: any[]) => unknown): vscode.Disposable {
  return vscode.commands.registerCommand(id, callback);
}

export function executeCommand<T = unknown>(id: string, ...args: unknown[]): Thenable<T> {
  return vscode.commands.executeCommand<T>(id, ...args);
}

export function setContext(key: string, value: unknown): Thenable<unknown> {
  return vscode.commands.executeCommand("setContext", key, value);
}

export function openSettings(query: string): Thenable<unknown> {
  return vscode.commands.executeCommand("workbench.action.openSettings", query);
}

// ---- env ----
export function writeClipboard(text: string): Thenable<void> {
  return vscode.env.clipboard.writeText(text);
}

// ---- extensions ----
export function getExtension<T = any>(id: string): vscode.Extension<T> | undefined {
  return vscode.extensions.getExtension<T>(id);
}

// ---- languages ----
export function createLanguageStatusItem(
  id: string,
  selector: vscode.DocumentSelector,
): vscode.LanguageStatusItem {
  return vscode.languages.createLanguageStatusItem(id, selector);
}

export function matchesSelector(selector: vscode.DocumentSelector, doc: vscode.TextDocument): boolean {
  return vscode.languages.match(selector, doc) > 0;
}

export const LanguageStatusSeverity = {
  Information: 0 as vscode.LanguageStatusSeverity,
  Warning: 1 as vscode.LanguageStatusSeverity,
  Error: 2 as vscode.LanguageStatusSeverity,
};

// ---- uri / misc ----
export function uriFile(fsPath: string): vscode.Uri {
  return vscode.Uri.file(fsPath);
}

export function uriParse(value: string): vscode.Uri {
  return vscode.Uri.parse(value);
}

export function joinPath(base: vscode.Uri, ...parts: string[]): vscode.Uri {
  return vscode.Uri.joinPath(base, ...parts);
}

export function disposableFrom(...items: { dispose(): unknown }[]): vscode.Disposable {
  return vscode.Disposable.from(...items);
}

export function newPosition(line: number, character: number): vscode.Position {
  return new vscode.Position(line, character);
}

export async function showTextDocument(uri: vscode.Uri): Promise<void> {
  await vscode.window.showTextDocument(uri, { preview: true });
}

// ---- agentv-lsp diff: read-only documents of rendered prompts ("Compare prompt with HEAD") ----
export function registerTextDocumentContentProvider(
  scheme: string,
  provide: (uri: vscode.Uri) => string | Promise<string>,
): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(scheme, { provideTextDocumentContent: provide });
}

// ---- testing (the Testing view: src/testing) ----
export function createTestController(id: string, label: string): vscode.TestController {
  return vscode.tests.createTestController(id, label);
}

export const TestRunProfileKind = { Run: 1 as vscode.TestRunProfileKind };

export function newRange(line: number, character: number, endLine: number, endCharacter: number): vscode.Range {
  return new vscode.Range(line, character, endLine, endCharacter);
}

export function testMessage(text: string, expected?: string, actual?: string): vscode.TestMessage {
  return expected !== undefined && actual !== undefined
    ? vscode.TestMessage.diff(text, expected, actual)
    : new vscode.TestMessage(text);
}

export function onDidSaveTextDocument(listener: (doc: vscode.TextDocument) => unknown): vscode.Disposable {
  return vscode.workspace.onDidSaveTextDocument(listener);
}

export function showModalWarning<T extends string>(message: string, detail: string, ...items: T[]): Thenable<T | undefined> {
  return vscode.window.showWarningMessage(message, { modal: true, detail }, ...items);
}

/** A (read-only, virtual) document shown beside the editor, e.g. a migration's proof. */
export async function showDocumentBeside(address: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(address));
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}
