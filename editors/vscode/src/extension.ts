/**
 * The VS Code glue: settings → `rift --serve`, the chat webview, native diff
 * review, quick picks for history and models. The protocol itself lives in
 * `protocol.ts` and the hunk arithmetic in `hunks.ts` (both vscode-free).
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';

import { RawEvent, RiftEvent, RiftEventMap } from './events';
import {
  buildArgs,
  DEFAULT_SETTINGS,
  earlyExitText,
  helloFor,
  resolveExecutable,
  RiftClient,
  RiftSettings,
  SessionChoice,
  startFailureText,
} from './protocol';
import { REVIEW_SCHEME, ReviewManager } from './review';
import { chatHtml } from './webviewHtml';

const VIEW_ID = 'rift.chatView';
const LAST_SESSION_KEY = 'rift.lastSession';
const BACKLOG_LIMIT = 20_000;

type ToWebview = { type: string; [field: string]: unknown };

let controller: RiftController | undefined;

export function activate(context: vscode.ExtensionContext): void {
  controller = new RiftController(context);
  context.subscriptions.push(controller);
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
}

function readSettings(): RiftSettings {
  const config = vscode.workspace.getConfiguration('rift');
  const get = <K extends keyof RiftSettings>(key: K): RiftSettings[K] =>
    config.get<RiftSettings[K]>(key, DEFAULT_SETTINGS[key]) ?? DEFAULT_SETTINGS[key];
  return {
    executablePath: get('executablePath'),
    host: get('host'),
    model: get('model'),
    numCtx: get('numCtx'),
    temperature: get('temperature'),
    maxIterations: get('maxIterations'),
    effort: get('effort'),
    inlineDiffReview: get('inlineDiffReview'),
    autoApprove: get('autoApprove'),
  };
}

function relativeTime(unixSeconds: number): string {
  const seconds = Math.max(0, Date.now() / 1000 - unixSeconds);
  if (seconds < 90) return 'just now';
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 129600) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} d ago`;
}

class RiftController implements vscode.WebviewViewProvider, vscode.Disposable {
  private client: RiftClient | undefined;
  private view: vscode.WebviewView | undefined;
  private webviewLoaded = false;
  private backlog: ToWebview[] = [];
  private readonly reviews: ReviewManager;
  private readonly output = vscode.window.createOutputChannel('Rift');
  private readonly statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  private readonly disposables: vscode.Disposable[] = [];
  private approve = true;
  private modelOverride: string | undefined;
  /** The approval mode chosen live (header toggle); like the model, it outlives a restart. */
  private approvalOverride: boolean | undefined;
  private pendingModelPick = false;
  private pendingSessionPick = false;
  private stderrTail: string[] = [];
  private starting: Promise<void> | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.reviews = new ReviewManager({
      decide: (id, apply, content) => this.client?.editDecision(id, apply, content) ?? false,
      changed: (id, state, accepted, total) => this.post({ type: 'reviewState', id, state, accepted, total }),
    });
    const command = (name: string, fn: (...args: any[]) => unknown) =>
      this.disposables.push(vscode.commands.registerCommand(name, fn));
    this.disposables.push(
      this.output,
      this.statusItem,
      this.reviews,
      vscode.window.registerWebviewViewProvider(VIEW_ID, this, { webviewOptions: { retainContextWhenHidden: true } }),
      vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, this.reviews),
      vscode.languages.registerCodeLensProvider({ scheme: REVIEW_SCHEME }, this.reviews),
      vscode.workspace.onDidChangeConfiguration((e) => this.settingsChanged(e)),
    );
    command('rift.openChat', () => this.reveal());
    command('rift.open', () => this.openTerminal());
    command('rift.newSession', () => this.restart({}));
    command('rift.continueSession', () => this.restart({ continueLast: true }));
    command('rift.history', () => this.history());
    command('rift.undo', () => this.withClient((c) => c.undo()));
    command('rift.cancel', () => this.withClient((c) => c.cancel()));
    command('rift.pickModel', () => this.pickModel());
    command('rift.toggleApproval', () => this.toggleApproval());
    command('rift.addFileToPrompt', (uri?: vscode.Uri) => this.addFile(uri));
    command('rift.addSelectionToPrompt', () => this.addSelection());
    command('rift.reviewApply', (id?: unknown) => this.reviewCommand(id, (n) => this.reviews.apply(n)));
    command('rift.reviewReject', (id?: unknown) => this.reviewCommand(id, (n) => this.reviews.reject(n)));
    command('rift.reviewToggle', (id?: unknown, hunk?: unknown) => {
      if (typeof id === 'number' && typeof hunk === 'number') this.reviews.toggle(id, hunk);
    });
    this.statusItem.command = 'rift.openChat';
    this.renderStatus();
    this.statusItem.show();
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) d.dispose();
  }

  // ------------------------------------------------------------ the view

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.webviewLoaded = false;
    const media = vscode.Uri.joinPath(this.context.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = chatHtml({
      cspSource: view.webview.cspSource,
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css')).toString(),
    });
    view.webview.onDidReceiveMessage((msg) => this.onMessage(msg), undefined, this.disposables);
    view.onDidDispose(() => {
      // closing the view closes rift's stdin: rift saves the session and exits
      this.view = undefined;
      this.webviewLoaded = false;
      void this.stop();
    });
  }

  private async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
  }

  /** Send to the webview, and keep it for a reload of the view. */
  private post(msg: ToWebview): void {
    this.record(msg);
    if (this.view && this.webviewLoaded) {
      void this.view.webview.postMessage(msg);
    }
  }

  /** Keep a message for replay only (the webview already shows it). */
  private record(msg: ToWebview): void {
    const last = this.backlog[this.backlog.length - 1];
    const event = msg.type === 'event' ? (msg.event as RawEvent) : undefined;
    const lastEvent = last?.type === 'event' ? (last.event as RawEvent) : undefined;
    if (event && lastEvent && (event.event === 'content' || event.event === 'thinking') && event.event === lastEvent.event) {
      // coalesce streamed deltas so the backlog stays small
      const text = String(lastEvent.text ?? '') + String(event.text ?? '');
      this.backlog[this.backlog.length - 1] = { type: 'event', event: { ...lastEvent, text } };
      return;
    }
    this.backlog.push(msg);
    if (this.backlog.length > BACKLOG_LIMIT) {
      this.backlog.splice(0, this.backlog.length - BACKLOG_LIMIT);
    }
  }

  private onMessage(msg: { type?: string; [field: string]: any }): void {
    switch (msg?.type) {
      case 'webviewReady':
        this.webviewLoaded = true;
        void this.view?.webview.postMessage({ type: 'reset' });
        for (const item of this.backlog) void this.view?.webview.postMessage(item);
        if (!this.client) void this.start(this.initialChoice());
        break;
      case 'prompt':
        void this.prompt(String(msg.text ?? ''));
        break;
      case 'answer':
        if (typeof msg.id === 'number') this.client?.answer(msg.id, String(msg.text ?? ''));
        break;
      case 'review':
        if (typeof msg.id === 'number') {
          if (msg.action === 'apply') this.reviews.apply(msg.id);
          else if (msg.action === 'reject') this.reviews.reject(msg.id);
          else void this.reviews.show(msg.id);
        }
        break;
      case 'cancel':
        this.client?.cancel();
        break;
      case 'undo':
        this.withClient((c) => c.undo());
        break;
      case 'history':
        void this.history();
        break;
      case 'newSession':
        void this.restart({});
        break;
      case 'pickModel':
        void this.pickModel();
        break;
      case 'toggleApproval':
        void this.toggleApproval(typeof msg.approve === 'boolean' ? msg.approve : undefined);
        break;
      case 'openSettings':
        void vscode.commands.executeCommand('workbench.action.openSettings', 'rift.');
        break;
      case 'copy':
        void vscode.env.clipboard.writeText(String(msg.text ?? ''));
        break;
      case 'insert':
        void this.insertCode(String(msg.text ?? ''));
        break;
      case 'mention':
        void this.mention();
        break;
    }
  }

  // ------------------------------------------------------------ process

  private initialChoice(): SessionChoice {
    const last = this.context.workspaceState.get<string>(LAST_SESSION_KEY);
    return last && fs.existsSync(last) ? { resume: last } : {};
  }

  private cwd(): string {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
  }

  private start(choice: SessionChoice): Promise<void> {
    const run = async () => {
      await this.stop();
      this.reviews.newProcess();
      this.backlog = [];
      this.stderrTail = [];
      this.post({ type: 'reset' });
      const settings = readSettings();
      if (this.modelOverride) settings.model = this.modelOverride;
      if (this.approvalOverride !== undefined) settings.autoApprove = !this.approvalOverride;
      const command = resolveExecutable(settings.executablePath);
      const args = buildArgs(settings, choice);
      this.output.appendLine(`$ ${command} ${args.join(' ')}   (cwd ${this.cwd()})`);
      const client = new RiftClient({ command, args, cwd: this.cwd(), hello: helloFor(settings) });
      this.approve = !settings.autoApprove;
      this.client = client;
      client.onEvent((event) => this.onEvent(client, event));
      client.onUnknown((event) => this.output.appendLine(`(ignored unknown event "${event.event}")`));
      client.onBadLine((line) => this.output.appendLine(`(ignored non-event stdout line) ${line.slice(0, 200)}`));
      client.onStderr((line) => {
        this.output.appendLine(line);
        this.stderrTail = [...this.stderrTail.slice(-19), line];
      });
      client.onProtocolWarning((text) => void vscode.window.showWarningMessage(`Rift: ${text}`));
      client.onError((err) => {
        this.output.appendLine(`error: ${err.message}`);
        // a failed spawn is reported once, clearly, when the exit follows
        if (this.client === client && !client.startError) this.offerSettings(`Rift: ${err.message}`);
      });
      client.onExit((info) => {
        this.output.appendLine(`rift exited (code ${info.code}${info.signal ? `, ${info.signal}` : ''})`);
        if (this.client !== client) return; // a deliberate stop
        this.client = undefined;
        this.reviews.closeAll();
        if (client.startError || !client.ready) {
          // never got going: say why in the panel itself, with the setting that fixes it
          const text = client.startError ? startFailureText(command, client.startError) : earlyExitText(info, this.stderrTail);
          this.post({ type: 'status', level: 'error', text, settings: true });
          this.offerSettings(`Rift: ${text}`);
        } else {
          const tail = info.code ? `: ${this.stderrTail.slice(-3).join(' ').slice(0, 300)}` : '';
          this.post({
            type: 'status',
            level: 'warn',
            text: `rift exited (code ${info.code})${tail}. Send a message to start it again.`,
          });
        }
        this.renderStatus();
      });
      client.start();
      this.renderStatus();
    };
    this.starting = (this.starting ?? Promise.resolve()).then(run, run);
    return this.starting;
  }

  private offerSettings(message: string): void {
    void vscode.window
      .showErrorMessage(message, 'Open Settings')
      .then((choice) => choice && vscode.commands.executeCommand('workbench.action.openSettings', 'rift.'));
  }

  private async restart(choice: SessionChoice): Promise<void> {
    await this.reveal();
    await this.start(choice);
  }

  /** Close rift's stdin (it saves and exits) and wait for it. */
  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.reviews.closeAll();
    if (client?.running) {
      await client.close(5000);
    }
  }

  private withClient(fn: (client: RiftClient) => unknown): void {
    if (this.client?.running) {
      fn(this.client);
    } else {
      void vscode.window.showInformationMessage('Rift is not running — open the Rift chat to start it.');
    }
  }

  private async prompt(text: string): Promise<void> {
    if (!text.trim()) return;
    if (this.client?.running) {
      // the webview already shows the message; keep it for a reload of the view
      this.record({ type: 'user', text });
      this.record({ type: 'working', on: true });
    } else {
      // rift is gone (exited or never started): start it on the last session
      await this.start(this.initialChoice());
      this.post({ type: 'user', text });
      // a rift that failed at once has already said so; no working indicator after that
      if (this.client?.running) this.post({ type: 'working', on: true });
    }
    this.client?.prompt(text);
  }

  private onEvent(client: RiftClient, event: RiftEvent): void {
    if (client !== this.client) return;
    this.post({ type: 'event', event });
    switch (event.event) {
      case 'ready':
        if (event.session) void this.context.workspaceState.update(LAST_SESSION_KEY, event.session);
        if (typeof event.approve === 'boolean') this.approve = event.approve;
        break;
      case 'capabilities':
        if (typeof event.approve === 'boolean') this.approve = event.approve;
        break;
      case 'approval_changed':
        if (typeof event.approve === 'boolean') this.approve = this.approvalOverride = event.approve;
        break;
      case 'model_changed':
        this.modelOverride = event.model;
        break;
      case 'edit_review':
        void this.reviews.open(event, true);
        break;
      case 'edit_review_closed':
        this.reviews.closed(event.id);
        break;
      case 'sessions':
        if (this.pendingSessionPick) {
          this.pendingSessionPick = false;
          void this.pickSession(event);
        }
        break;
      case 'models':
        if (this.pendingModelPick) {
          this.pendingModelPick = false;
          void this.pickFromModels(event);
        }
        break;
      case 'ask':
        if (this.view && !this.view.visible) {
          void vscode.window.showInformationMessage(`Rift asks: ${event.question}`, 'Show').then((c) => c && this.reveal());
        }
        break;
    }
    this.renderStatus();
  }

  private renderStatus(): void {
    const running = this.client?.running ?? false;
    this.statusItem.text = `${running ? '$(hubot)' : '$(circle-slash)'} rift ${this.approve ? '🔒' : '⚡'}`;
    this.statusItem.tooltip = running
      ? `rift ${this.client?.ready?.model ?? ''} — ${this.approve ? 'approval mode' : 'auto-approve'}`
      : 'rift is not running — click to open the chat';
  }

  private settingsChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('rift') || !this.client) return;
    if (e.affectsConfiguration('rift.model')) this.modelOverride = undefined;
    if (e.affectsConfiguration('rift.autoApprove')) this.approvalOverride = undefined;
    void vscode.window
      .showInformationMessage('Rift settings changed. Restart rift (the conversation continues)?', 'Restart')
      .then((choice) => choice && this.start(this.client?.ready?.session ? { resume: this.client.ready.session } : { continueLast: true }));
  }

  // ------------------------------------------------------------ header actions

  private async history(): Promise<void> {
    if (!this.client?.running) {
      await this.start(this.initialChoice());
    }
    this.pendingSessionPick = true;
    this.client?.listSessions();
  }

  private async pickSession(event: RiftEventMap['sessions']): Promise<void> {
    const items = (Array.isArray(event.items) ? event.items : []).map((s) => ({
      label: s.title || '(untitled)',
      description: `${s.model ?? ''} · ${s.turns ?? 0} turn${s.turns === 1 ? '' : 's'} · ${relativeTime(Number(s.saved_at) || 0)}`,
      detail: s.cwd,
      path: s.path,
    }));
    if (!items.length) {
      void vscode.window.showInformationMessage('Rift: no saved sessions yet.');
      return;
    }
    const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Reopen a rift session', matchOnDetail: true });
    if (pick) {
      await this.restart({ resume: pick.path });
    }
  }

  private async pickModel(): Promise<void> {
    const client = this.client;
    if (!client?.running) {
      void vscode.window.showInformationMessage('Rift is not running — open the Rift chat to start it.');
      return;
    }
    if (client.supports('list_models')) {
      this.pendingModelPick = true;
      client.listModels();
      vscode.window.setStatusBarMessage('Rift: looking for models…', 3000);
      return;
    }
    const model = await vscode.window.showInputBox({ prompt: 'Model for rift', value: client.ready?.model ?? '' });
    if (model?.trim()) {
      await this.switchModel(model.trim());
    }
  }

  private async pickFromModels(event: RiftEventMap['models']): Promise<void> {
    const models = Array.isArray(event.models) ? event.models : [];
    const items = models.map((m) => ({ label: m, description: m === event.current ? 'current' : undefined }));
    const pick = await vscode.window.showQuickPick(items, {
      placeHolder: models.length ? `Current: ${event.current}` : 'No models reachable',
    });
    if (pick && pick.label !== event.current) {
      await this.switchModel(pick.label);
    }
  }

  private async switchModel(model: string): Promise<void> {
    const client = this.client;
    if (client?.running && client.supports('set_model')) {
      client.setModel(model);
      return;
    }
    // older binaries: restart on the same conversation with the new model
    this.modelOverride = model;
    await this.start({ continueLast: true });
  }

  private async toggleApproval(target?: boolean): Promise<void> {
    const next = target ?? !this.approve;
    const client = this.client;
    if (client?.running && client.supports('set_approval')) {
      client.setApproval(next);
      return;
    }
    void vscode.window.showWarningMessage(
      'This rift build cannot switch approval mode live; set "rift.autoApprove" and restart instead.',
    );
  }

  private reviewCommand(id: unknown, fn: (id: number) => void): void {
    const target =
      typeof id === 'number' ? id : this.reviews.idFor(vscode.window.activeTextEditor?.document.uri) ?? this.activeDiffReview();
    if (target !== undefined) fn(target);
  }

  private activeDiffReview(): number | undefined {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    return input instanceof vscode.TabInputTextDiff ? this.reviews.idFor(input.modified) : undefined;
  }

  // ------------------------------------------------------------ prompt helpers

  private async insertIntoPrompt(text: string): Promise<void> {
    await this.reveal();
    this.post({ type: 'insertText', text });
  }

  private async addFile(uri?: vscode.Uri): Promise<void> {
    const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
    if (target) {
      await this.insertIntoPrompt(`@${vscode.workspace.asRelativePath(target, false)} `);
    }
  }

  private async addSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return;
    const rel = vscode.workspace.asRelativePath(editor.document.uri, false);
    const { start, end } = editor.selection;
    const last = end.character === 0 && end.line > start.line ? end.line : end.line + 1;
    const range = start.line + 1 === last ? `line ${last}` : `lines ${start.line + 1}-${last}`;
    await this.insertIntoPrompt(`@${rel} (${range}) `);
  }

  private async mention(): Promise<void> {
    const files = await vscode.workspace.findFiles('**/*', '{**/node_modules/**,**/.git/**,**/.venv/**,**/out/**}', 5000);
    const items = files.map((f) => vscode.workspace.asRelativePath(f, false)).sort();
    const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Mention a file' });
    this.post({ type: 'mentionResult', path: pick ?? '' });
  }

  private async insertCode(text: string): Promise<void> {
    const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
    if (!editor) {
      void vscode.window.showInformationMessage('Rift: open an editor to insert the code into.');
      return;
    }
    await editor.edit((edit) => {
      for (const selection of editor.selections) edit.replace(selection, text);
    });
  }

  private openTerminal(): void {
    const settings = readSettings();
    const args = buildArgs(settings).filter((a) => a !== '--serve');
    const terminal = vscode.window.createTerminal({
      name: 'rift',
      shellPath: resolveExecutable(settings.executablePath),
      shellArgs: args,
      cwd: this.cwd(),
    });
    terminal.show();
  }
}
