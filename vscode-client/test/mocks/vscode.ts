// A small, controllable stand-in for the `vscode` module (esbuild aliases `vscode` to this file when
// bundling the unit tests). Only what src/common/vscodeapi.ts touches is implemented. Tests drive it
// through `mock` (settings, extensions, editors, events) and inspect what the code did.
import * as path from "path";

type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (l: Listener<T>) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  get count(): number {
    return this.listeners.length;
  }
}

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly fsPath: string,
    readonly query = "",
  ) {}
  get path(): string {
    return this.fsPath;
  }
  static file(p: string): Uri {
    return new Uri("file", path.resolve(p));
  }
  static parse(s: string): Uri {
    const virtual = /^([a-z][a-z0-9+.-]*):(\/[^/][^?]*)\?(.*)$/i.exec(s); // scheme:/path?query
    if (virtual) return new Uri(virtual[1], decodeURIComponent(virtual[2]), virtual[3]);
    const m = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(s);
    if (!m) return new Uri("file", s);
    return new Uri(m[1], decodeURIComponent(m[2].replace(/^[^/]*/, "")));
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, path.join(base.fsPath, ...parts));
  }
  toString(): string {
    return `${this.scheme}://${this.fsPath.split("/").map(encodeURIComponent).join("/")}`;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}

export enum LanguageStatusSeverity {
  Information = 0,
  Warning = 1,
  Error = 2,
}

export interface FakeDocument {
  uri: Uri;
  languageId: string;
  fileName: string;
}

export interface FakeEditor {
  document: FakeDocument;
  selection: { active: Position };
}

export class FakeWebviewPanel {
  title: string;
  disposed = false;
  revealed = 0;
  readonly posted: unknown[] = [];
  private readonly received = new EventEmitter<unknown>();
  private readonly disposeEmitter = new EventEmitter<void>();
  readonly webview = {
    html: "",
    cspSource: "https://webview.test",
    options: {} as Record<string, unknown>,
    asWebviewUri: (u: Uri) => Uri.parse(`https://webview.test${u.fsPath}`),
    postMessage: async (m: unknown) => {
      this.posted.push(m);
      return true;
    },
    onDidReceiveMessage: this.received.event,
  };
  constructor(
    readonly viewType: string,
    title: string,
    readonly showOptions: unknown,
    readonly options: Record<string, unknown>,
  ) {
    this.title = title;
  }
  onDidDispose = this.disposeEmitter.event;
  reveal(): void {
    this.revealed++;
  }
  /** Simulates a message from the webview script. */
  receive(m: unknown): void {
    this.received.fire(m);
  }
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.disposeEmitter.fire();
  }
}

export interface FakeStatusItem {
  id: string;
  selector: unknown;
  name?: string;
  text: string;
  detail?: string;
  severity: LanguageStatusSeverity;
  busy: boolean;
  command?: unknown;
  disposed: boolean;
  dispose(): void;
}

/** The knobs and the record of what happened. Reset with `mock.reset()` in each test. */
export const mock = {
  settings: {} as Record<string, unknown>,
  trusted: true,
  folders: [] as { uri: Uri; name: string; index: number }[],
  extensions: {} as Record<string, unknown>,
  activeEditor: undefined as FakeEditor | undefined,
  textDocuments: [] as FakeDocument[],
  clipboard: "",
  messages: [] as { level: string; text: string; items: string[] }[],
  messageAnswer: undefined as string | undefined,
  commands: new Map<string, (...a: unknown[]) => unknown>(),
  executed: [] as { id: string; args: unknown[] }[],
  panels: [] as FakeWebviewPanel[],
  statusItems: [] as FakeStatusItem[],
  shown: [] as string[],
  contentProviders: new Map<string, { provideTextDocumentContent(uri: Uri): unknown }>(),
  events: {
    selection: new EventEmitter<{ textEditor: FakeEditor }>(),
    activeEditor: new EventEmitter<FakeEditor | undefined>(),
    textChange: new EventEmitter<{ document: FakeDocument; contentChanges: unknown[] }>(),
    configuration: new EventEmitter<{ affectsConfiguration(s: string): boolean }>(),
    trust: new EventEmitter<void>(),
    save: new EventEmitter<FakeDocument>(),
  },
  testControllers: [] as FakeTestController[],
  reset(): void {
    this.settings = {};
    this.trusted = true;
    this.folders = [];
    this.extensions = {};
    this.activeEditor = undefined;
    this.textDocuments = [];
    this.clipboard = "";
    this.messages = [];
    this.messageAnswer = undefined;
    this.commands = new Map();
    this.executed = [];
    this.panels = [];
    this.statusItems = [];
    this.shown = [];
    this.contentProviders = new Map();
    this.events = {
      selection: new EventEmitter(),
      activeEditor: new EventEmitter(),
      textChange: new EventEmitter(),
      configuration: new EventEmitter(),
      trust: new EventEmitter(),
      save: new EventEmitter(),
    };
    this.testControllers = [];
  },
  editor(file: string, line = 0, character = 0, languageId = "yaml"): FakeEditor {
    const document = { uri: Uri.file(file), languageId, fileName: file };
    return { document, selection: { active: new Position(line, character) } };
  },
};

/** Nested object view of the flat `mock.settings` ("agentv.server.pythonPath" → {agentv: {server: …}}). */
function tree(): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(mock.settings)) {
    const parts = k.split(".");
    let node = root;
    for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
    node[parts[parts.length - 1]] = v;
  }
  return root;
}

function lookup(obj: unknown, dotted: string): unknown {
  let node = obj;
  for (const p of dotted.split(".")) {
    if (!node || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[p];
  }
  return node;
}

const message =
  (level: string) =>
  async (text: string, ...items: string[]) => {
    mock.messages.push({ level, text, items });
    return mock.messageAnswer;
  };

export const window = {
  createOutputChannel: (name: string) => {
    const lines: string[] = [];
    const log = (lvl: string) => (m: string) => lines.push(`[${lvl}] ${m}`);
    return {
      name,
      lines,
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
      debug: log("debug"),
      trace: log("trace"),
      appendLine: log("line"),
      append: log("raw"),
      show: () => mock.shown.push(name),
      dispose: () => undefined,
    };
  },
  showErrorMessage: message("error"),
  showWarningMessage: message("warning"),
  showInformationMessage: message("info"),
  get activeTextEditor() {
    return mock.activeEditor;
  },
  get visibleTextEditors() {
    return mock.activeEditor ? [mock.activeEditor] : [];
  },
  onDidChangeActiveTextEditor: (l: Listener<FakeEditor | undefined>) => mock.events.activeEditor.event(l),
  onDidChangeTextEditorSelection: (l: Listener<{ textEditor: FakeEditor }>) => mock.events.selection.event(l),
  createWebviewPanel: (viewType: string, title: string, show: unknown, options: Record<string, unknown>) => {
    const p = new FakeWebviewPanel(viewType, title, show, options);
    mock.panels.push(p);
    return p;
  },
  showTextDocument: async (uri: Uri) => {
    mock.executed.push({ id: "showTextDocument", args: [uri.fsPath] });
  },
};

export const workspace = {
  onDidSaveTextDocument: (l: Listener<FakeDocument>) => mock.events.save.event(l),
  getConfiguration: (section?: string) => {
    const base = section ? lookup(tree(), section) : tree();
    return {
      get: <T>(key: string, dflt?: T) => {
        const v = lookup(base, key);
        return (v === undefined ? dflt : v) as T;
      },
      has: (key: string) => lookup(base, key) !== undefined,
      toJSON: () => base,
    };
  },
  onDidChangeConfiguration: (l: Listener<{ affectsConfiguration(s: string): boolean }>) => mock.events.configuration.event(l),
  onDidChangeTextDocument: (l: Listener<{ document: FakeDocument; contentChanges: unknown[] }>) => mock.events.textChange.event(l),
  onDidGrantWorkspaceTrust: (l: Listener<void>) => mock.events.trust.event(l),
  get isTrusted() {
    return mock.trusted;
  },
  get workspaceFolders() {
    return mock.folders.length ? mock.folders : undefined;
  },
  getWorkspaceFolder: (uri: Uri) => mock.folders.find((f) => uri.fsPath.startsWith(f.uri.fsPath + path.sep)),
  get textDocuments() {
    return mock.textDocuments;
  },
  registerTextDocumentContentProvider: (scheme: string, provider: { provideTextDocumentContent(uri: Uri): unknown }) => {
    mock.contentProviders.set(scheme, provider);
    return new Disposable(() => mock.contentProviders.delete(scheme));
  },
};

export const commands = {
  registerCommand: (id: string, cb: (...a: unknown[]) => unknown) => {
    mock.commands.set(id, cb);
    return new Disposable(() => mock.commands.delete(id));
  },
  executeCommand: async (id: string, ...args: unknown[]) => {
    mock.executed.push({ id, args });
    const cb = mock.commands.get(id);
    return cb ? cb(...args) : undefined;
  },
};

export const env = {
  clipboard: {
    writeText: async (t: string) => {
      mock.clipboard = t;
    },
  },
};

export const extensions = {
  getExtension: (id: string) => mock.extensions[id],
};

export const languages = {
  createLanguageStatusItem: (id: string, selector: unknown): FakeStatusItem => {
    const item: FakeStatusItem = {
      id,
      selector,
      text: "",
      severity: LanguageStatusSeverity.Information,
      busy: false,
      disposed: false,
      dispose() {
        this.disposed = true;
      },
    };
    mock.statusItems.push(item);
    return item;
  },
  match: (selector: { language?: string; pattern?: string }[], doc: FakeDocument) =>
    selector.some((f) => !f.language || f.language === doc.languageId) ? 10 : 0,
};

// Base classes vscode-languageclient extends at load time.
class Plain {
  constructor(..._args: unknown[]) {}
}
export class CallHierarchyItem extends Plain {}
export class CodeLens extends Plain {}
export class CompletionItem extends Plain {}
export class DocumentLink extends Plain {}
export class InlayHint extends Plain {}
export class SymbolInformation extends Plain {}
export class TypeHierarchyItem extends Plain {}
export class CodeAction extends Plain {}
export class Diagnostic extends Plain {}
export class CancellationError extends Error {}

// ---- testing: a controller that records what a run reported ----
export class Range {
  constructor(
    readonly startLine: number,
    readonly startCharacter: number,
    readonly endLine: number,
    readonly endCharacter: number,
  ) {}
}

export class TestMessage {
  expectedOutput?: string;
  actualOutput?: string;
  constructor(readonly message: string) {}
  static diff(message: string, expected: string, actual: string): TestMessage {
    const m = new TestMessage(message);
    m.expectedOutput = expected;
    m.actualOutput = actual;
    return m;
  }
}

export class FakeTestItems {
  private readonly byId = new Map<string, FakeTestItem>();
  add(item: FakeTestItem): void {
    this.byId.set(item.id, item);
  }
  replace(items: FakeTestItem[]): void {
    this.byId.clear();
    for (const i of items) this.byId.set(i.id, i);
  }
  forEach(cb: (item: FakeTestItem) => void): void {
    for (const i of [...this.byId.values()]) cb(i);
  }
  get(id: string): FakeTestItem | undefined {
    return this.byId.get(id);
  }
  get size(): number {
    return this.byId.size;
  }
}

export class FakeTestItem {
  readonly children = new FakeTestItems();
  range?: Range;
  error?: string;
  constructor(
    readonly id: string,
    readonly label: string,
    readonly uri?: Uri,
  ) {}
}

export interface FakeTestRun {
  events: [string, string, TestMessage?][];
  output: string;
  ended: boolean;
}

export class FakeTestController {
  readonly items = new FakeTestItems();
  readonly profiles: { label: string; isDefault: boolean; handler: (...a: any[]) => Promise<void>; disposed: boolean }[] = [];
  readonly runs: FakeTestRun[] = [];
  refreshHandler?: () => unknown;
  constructor(
    readonly id: string,
    readonly label: string,
  ) {}
  createTestItem(id: string, label: string, uri?: Uri): FakeTestItem {
    return new FakeTestItem(id, label, uri);
  }
  createRunProfile(label: string, _kind: number, handler: (...a: any[]) => Promise<void>, isDefault = false) {
    const profile = { label, isDefault, handler, disposed: false, dispose: () => (profile.disposed = true) };
    this.profiles.push(profile);
    return profile;
  }
  createTestRun(_request: unknown) {
    const record: FakeTestRun = { events: [], output: "", ended: false };
    this.runs.push(record);
    const note = (kind: string) => (item: FakeTestItem, message?: TestMessage) => record.events.push([kind, item.id, message]);
    return {
      started: note("started"),
      passed: note("passed"),
      failed: note("failed"),
      errored: note("errored"),
      skipped: note("skipped"),
      appendOutput: (text: string) => (record.output += text),
      end: () => (record.ended = true),
    };
  }
  dispose(): void {}
}

export const tests = {
  createTestController: (id: string, label: string) => {
    const controller = new FakeTestController(id, label);
    mock.testControllers.push(controller);
    return controller;
  },
};

export enum TestRunProfileKind {
  Run = 1,
}
