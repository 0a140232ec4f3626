/**
 * A minimal stand-in for the `vscode` module, enough to activate the
 * extension under node and drive its glue (webview messages, commands, the
 * review providers) against a real rift. Everything the extension asks of
 * VS Code is recorded on `stub` for the test to inspect.
 */

import Module from 'node:module';
import * as path from 'node:path';

type Fn = (...args: any[]) => any;

class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  dispose(): void {
    this.fn();
  }
}

class EventEmitter<T> {
  private listeners: ((value: T) => void)[] = [];
  readonly event = (listener: (value: T) => void) => {
    this.listeners.push(listener);
    return new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== listener)));
  };
  fire(value: T): void {
    for (const l of [...this.listeners]) l(value);
  }
  dispose(): void {
    this.listeners = [];
  }
}

class Uri {
  constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  get fsPath(): string {
    return this.path;
  }
  static from(parts: { scheme: string; path: string }): Uri {
    return new Uri(parts.scheme, parts.path);
  }
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, path.posix.join(base.path, ...segments));
  }
  toString(): string {
    return `${this.scheme}://${this.path}`;
  }
}

class Range {
  constructor(
    readonly startLine: number,
    readonly startCharacter: number,
    readonly endLine: number,
    readonly endCharacter: number,
  ) {}
}

class CodeLens {
  constructor(
    readonly range: Range,
    readonly command?: { title: string; command: string; arguments?: unknown[]; tooltip?: string },
  ) {}
}

class TabInputText {
  constructor(readonly uri: Uri) {}
}

class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}

export const stub = {
  settings: {} as Record<string, unknown>,
  commands: new Map<string, Fn>(),
  executed: [] as { command: string; args: unknown[] }[],
  messages: [] as { level: string; text: string }[],
  quickPicks: [] as { items: unknown[]; options: unknown }[],
  /** What showQuickPick answers; default: dismissed. */
  pickAnswer: (_items: any[]): any => undefined,
  output: [] as string[],
  viewProviders: new Map<string, any>(),
  contentProviders: new Map<string, any>(),
  codeLensProviders: [] as any[],
  workspaceFolder: '/',
};

const vscode = {
  Disposable,
  EventEmitter,
  Uri,
  Range,
  CodeLens,
  TabInputText,
  TabInputTextDiff,
  StatusBarAlignment: { Left: 1, Right: 2 },
  window: {
    createOutputChannel: () => ({ appendLine: (l: string) => stub.output.push(l), dispose: () => undefined }),
    createStatusBarItem: () => ({ text: '', tooltip: '', command: '', show: () => undefined, dispose: () => undefined }),
    registerWebviewViewProvider: (id: string, provider: unknown) => {
      stub.viewProviders.set(id, provider);
      return new Disposable();
    },
    showInformationMessage: async (text: string) => void stub.messages.push({ level: 'info', text }),
    showWarningMessage: async (text: string) => void stub.messages.push({ level: 'warning', text }),
    showErrorMessage: async (text: string) => void stub.messages.push({ level: 'error', text }),
    showQuickPick: async (items: any[], options: unknown) => {
      stub.quickPicks.push({ items, options });
      return stub.pickAnswer(items);
    },
    showInputBox: async () => undefined,
    setStatusBarMessage: () => new Disposable(),
    createTerminal: () => ({ show: () => undefined }),
    tabGroups: { all: [], close: async () => true, activeTabGroup: { activeTab: undefined } },
    activeTextEditor: undefined,
    visibleTextEditors: [],
  },
  workspace: {
    getConfiguration: () => ({
      get: (key: string, fallback: unknown) => (key in stub.settings ? stub.settings[key] : fallback),
    }),
    registerTextDocumentContentProvider: (scheme: string, provider: unknown) => {
      stub.contentProviders.set(scheme, provider);
      return new Disposable();
    },
    onDidChangeConfiguration: () => new Disposable(),
    get workspaceFolders() {
      return [{ uri: Uri.file(stub.workspaceFolder) }];
    },
    findFiles: async () => [],
    asRelativePath: (uri: Uri) => path.relative(stub.workspaceFolder, uri.fsPath),
  },
  languages: {
    registerCodeLensProvider: (_selector: unknown, provider: unknown) => {
      stub.codeLensProviders.push(provider);
      return new Disposable();
    },
  },
  commands: {
    registerCommand: (name: string, fn: Fn) => {
      stub.commands.set(name, fn);
      return new Disposable(() => stub.commands.delete(name));
    },
    executeCommand: async (command: string, ...args: unknown[]) => {
      stub.executed.push({ command, args });
      return stub.commands.get(command)?.(...args);
    },
  },
  env: { clipboard: { writeText: async () => undefined } },
};

/** Make `require('vscode')` return the stub. */
export function installVscodeStub(): typeof stub {
  const mod = Module as unknown as { _load: Fn };
  const original = mod._load;
  mod._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? vscode : original.call(this, request, ...rest);
  };
  return stub;
}

/** A fake WebviewView: records posted messages and lets the test send messages in. */
export function fakeWebviewView() {
  const posted: any[] = [];
  let receive: Fn = () => undefined;
  let disposed: Fn = () => undefined;
  const view = {
    visible: true,
    webview: {
      options: {},
      html: '',
      cspSource: 'vscode-webview:',
      asWebviewUri: (uri: Uri) => uri,
      postMessage: async (msg: unknown) => {
        posted.push(msg);
        return true;
      },
      onDidReceiveMessage: (fn: Fn) => {
        receive = fn;
        return new Disposable();
      },
    },
    onDidDispose: (fn: Fn) => {
      disposed = fn;
      return new Disposable();
    },
  };
  return {
    view,
    posted,
    send: (msg: unknown) => receive(msg),
    dispose: () => disposed(),
  };
}

export function fakeContext(extensionPath: string) {
  const state = new Map<string, unknown>();
  return {
    subscriptions: [] as { dispose(): void }[],
    extensionUri: Uri.file(extensionPath),
    workspaceState: {
      get: (key: string) => state.get(key),
      update: async (key: string, value: unknown) => void state.set(key, value),
    },
  };
}
