/**
 * The serve-protocol client: spawn `rift --serve`, frame its stdout into JSON
 * lines, dispatch events, send commands. Plain TypeScript with no `vscode`
 * import, so the unit tests drive it against a real rift under node.
 *
 * Forward compatibility (spec, "Versioning"): unknown events go to
 * `onUnknown` listeners only, unknown fields are passed through untouched,
 * non-JSON stdout lines are reported and skipped, and a `protocol_version`
 * other than the one this client was written for produces a warning, not a
 * failure.
 */

import { ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as os from 'node:os';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';

import { EventName, KNOWN_EVENTS, RawEvent, RiftEvent, RiftEventMap } from './events';

export const PROTOCOL_VERSION = 1;

/** Commands every v1 build accepts; newer ones are feature-detected via `ready.commands`. */
export const BASELINE_COMMANDS: readonly string[] = [
  'hello',
  'prompt',
  'answer',
  'edit_decision',
  'cancel',
  'undo',
  'list_sessions',
];

// ------------------------------------------------------------------ framing

/** Splits a byte stream into lines; UTF-8 sequences split across chunks survive. */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';

  push(chunk: Buffer | string): string[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const parts = this.buffer.split('\n');
    this.buffer = parts.pop() ?? '';
    return parts.map(stripCr);
  }

  /** The unterminated rest at end of stream, if any. */
  end(): string[] {
    this.buffer += this.decoder.end();
    const rest = this.buffer;
    this.buffer = '';
    return rest.trim() ? [stripCr(rest)] : [];
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** One stdout line as an event object, or undefined when it is not one. */
export function parseEventLine(line: string): RawEvent | undefined {
  const text = line.trim();
  if (!text) {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return undefined;
  }
  const event = (value as { event?: unknown }).event;
  return typeof event === 'string' ? (value as RawEvent) : undefined;
}

/** A human-readable warning when `ready` speaks another protocol version. */
export function protocolWarning(ready: { protocol_version?: unknown; version?: unknown }): string | undefined {
  const version = ready.protocol_version;
  if (version === PROTOCOL_VERSION) {
    return undefined;
  }
  const shown = version === undefined ? 'none' : JSON.stringify(version);
  return (
    `rift ${String(ready.version ?? '?')} speaks serve protocol ${shown}; this extension ` +
    `was written for protocol ${PROTOCOL_VERSION}. Some features may not work.`
  );
}

// ------------------------------------------------------------------ settings

export interface RiftSettings {
  executablePath: string;
  host: string;
  model: string;
  numCtx: number;
  temperature: number | null;
  maxIterations: number;
  effort: string;
  inlineDiffReview: boolean;
  autoApprove: boolean;
}

export const DEFAULT_SETTINGS: RiftSettings = {
  executablePath: 'rift',
  host: '',
  model: '',
  numCtx: 0,
  temperature: null,
  maxIterations: 0,
  effort: '',
  inlineDiffReview: true,
  autoApprove: false,
};

export interface SessionChoice {
  /** `--continue`: resume the most recent session. */
  continueLast?: boolean;
  /** `--resume FILE`: resume this session file. */
  resume?: string;
}

/** `rift --serve` flags for the settings; empty settings defer to rift's own config. */
export function buildArgs(settings: Partial<RiftSettings>, session: SessionChoice = {}): string[] {
  const args = ['--serve'];
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
  const positive = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0;
  if (text(settings.host)) {
    args.push('--host', text(settings.host));
  }
  if (text(settings.model)) {
    args.push('--model', text(settings.model));
  }
  if (positive(settings.numCtx)) {
    args.push('--num-ctx', String(Math.floor(settings.numCtx as number)));
  }
  if (typeof settings.temperature === 'number' && Number.isFinite(settings.temperature)) {
    args.push('--temp', String(settings.temperature));
  }
  if (positive(settings.maxIterations)) {
    args.push('--max-iterations', String(Math.floor(settings.maxIterations as number)));
  }
  if (text(settings.effort)) {
    args.push('--effort', text(settings.effort));
  }
  if (session.resume) {
    args.push('--resume', session.resume);
  } else if (session.continueLast) {
    args.push('--continue');
  }
  return args;
}

/** The executable to spawn: `~` expanded, empty meaning `rift` on PATH. */
export function resolveExecutable(executablePath: string | undefined): string {
  const value = (executablePath ?? '').trim();
  if (!value) {
    return 'rift';
  }
  if (value === '~' || value.startsWith('~/')) {
    return path.join(os.homedir(), value.slice(1));
  }
  return value;
}

/** The `hello` a consumer sends for these settings: review inline, approval per the toggle. */
export function helloFor(settings: Partial<RiftSettings>): HelloOptions {
  return {
    edit_review: settings.inlineDiffReview ?? true,
    approve: !(settings.autoApprove ?? false),
  };
}

// ------------------------------------------------------------------ start failures

/**
 * What to tell a person when rift could not be spawned at all. ENOENT is by far
 * the common case (rift not installed, or not on the PATH VS Code was started
 * with), so it names the setting that fixes it.
 */
export function startFailureText(command: string, err: NodeJS.ErrnoException | undefined): string {
  const where = path.isAbsolute(command) || command.includes('/') ? `"${command}" does not exist` : `"${command}" is not on PATH`;
  switch (err?.code) {
    case 'ENOENT':
      return `rift was not found: ${where}. Install rift, or set rift.executablePath to its full path.`;
    case 'EACCES':
      return `rift could not be started: "${command}" is not executable. Check rift.executablePath.`;
    default:
      return `rift could not be started (${command}: ${err?.message ?? 'unknown error'}). Check rift.executablePath.`;
  }
}

/** What to tell a person when rift exited before it was ready: its last stderr lines say why. */
export function earlyExitText(info: ExitInfo, stderrTail: readonly string[]): string {
  const how = info.signal ? `was killed (${info.signal})` : `exited (code ${info.code})`;
  const why = stderrTail.filter((l) => l.trim()).slice(-3).join(' ').slice(0, 400);
  return `rift ${how} at start${why ? `: ${why}` : ' without a message'}. Fix that (the full log is in Output › Rift), then send a message to start it again.`;
}

// ------------------------------------------------------------------ client

export interface HelloOptions {
  edit_review: boolean;
  approve?: boolean;
}

export interface ClientOptions {
  command: string;
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Sent at spawn; false sends none (approvals then arrive as plain asks). */
  hello?: HelloOptions | false;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

type Listener<T> = (value: T) => void;

/** One `rift --serve` process. Listeners registered before `start()` see every event. */
export class RiftClient {
  readonly options: ClientOptions;
  proc: ChildProcess | undefined;
  ready: RiftEventMap['ready'] | undefined;
  capabilities: RiftEventMap['capabilities'] | undefined;
  /** Why the process could not be spawned (then `exited` resolves with code null). */
  startError: NodeJS.ErrnoException | undefined;
  /** Resolves when the process has exited (or failed to start). */
  readonly exited: Promise<ExitInfo>;

  private readonly emitter = new EventEmitter();
  private readonly splitter = new LineSplitter();
  private resolveExit!: (info: ExitInfo) => void;
  private exitInfo: ExitInfo | undefined;

  constructor(options: ClientOptions) {
    this.options = options;
    this.emitter.setMaxListeners(0);
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
  }

  // ------------------------------------------------------------ listeners

  /** Typed listener for one known event; returns a disposer. */
  on<K extends EventName>(name: K, listener: Listener<RiftEventMap[K]>): () => void {
    return this.listen(`event:${name}`, listener);
  }

  /** Every known event, in arrival order. */
  onEvent(listener: Listener<RiftEvent>): () => void {
    return this.listen('any', listener);
  }

  /** Events this client does not know (ignored by design; here for logging). */
  onUnknown(listener: Listener<RawEvent>): () => void {
    return this.listen('unknown', listener);
  }

  /** stdout lines that are not JSON event objects. */
  onBadLine(listener: Listener<string>): () => void {
    return this.listen('badline', listener);
  }

  onStderr(listener: Listener<string>): () => void {
    return this.listen('stderr', listener);
  }

  onExit(listener: Listener<ExitInfo>): () => void {
    return this.listen('exit', listener);
  }

  /** Spawn failures, stdin write failures, listener exceptions. */
  onError(listener: Listener<Error>): () => void {
    return this.listen('error', listener);
  }

  /** A protocol_version this client was not written for. */
  onProtocolWarning(listener: Listener<string>): () => void {
    return this.listen('protocolWarning', listener);
  }

  private listen<T>(channel: string, listener: Listener<T>): () => void {
    this.emitter.on(channel, listener);
    return () => this.emitter.off(channel, listener);
  }

  private fire(channel: string, value: unknown): void {
    for (const listener of this.emitter.listeners(channel)) {
      try {
        (listener as Listener<unknown>)(value);
      } catch (err) {
        if (channel !== 'error') {
          this.fire('error', err instanceof Error ? err : new Error(String(err)));
        }
      }
    }
  }

  // ------------------------------------------------------------ lifetime

  get running(): boolean {
    return this.proc !== undefined && this.exitInfo === undefined;
  }

  start(): this {
    if (this.proc) {
      throw new Error('RiftClient already started');
    }
    const proc = spawn(this.options.command, this.options.args ?? ['--serve'], {
      cwd: this.options.cwd,
      env: this.options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.proc = proc;
    proc.on('error', (err) => {
      if (proc.pid === undefined) this.startError = err; // spawn itself failed
      this.fire('error', new Error(`could not start ${this.options.command}: ${err.message}`));
      this.finish({ code: null, signal: null });
    });
    proc.stdin?.on('error', () => {
      /* EPIPE after exit: the exit handler reports it */
    });
    const stderr = new LineSplitter();
    proc.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk).forEach((l) => this.fire('stderr', l)));
    proc.stdout?.on('data', (chunk: Buffer) => this.splitter.push(chunk).forEach((l) => this.handleLine(l)));
    proc.stdout?.on('end', () => this.splitter.end().forEach((l) => this.handleLine(l)));
    proc.on('close', (code, signal) => this.finish({ code, signal }));
    if (this.options.hello !== false && this.options.hello !== undefined) {
      this.hello(this.options.hello);
    }
    return this;
  }

  private finish(info: ExitInfo): void {
    if (this.exitInfo) {
      return;
    }
    this.exitInfo = info;
    this.fire('exit', info);
    this.resolveExit(info);
  }

  /**
   * Close stdin — rift cancels any turn, saves the session and exits — and
   * wait for the exit. Past `timeoutMs` the process is killed.
   */
  async close(timeoutMs = 10_000): Promise<ExitInfo> {
    if (!this.proc) {
      return { code: null, signal: null };
    }
    if (this.proc.stdin && !this.proc.stdin.destroyed) {
      this.proc.stdin.end();
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const result = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') {
      this.kill();
      return this.exited;
    }
    return result;
  }

  kill(): void {
    if (this.proc && this.exitInfo === undefined) {
      this.proc.kill('SIGKILL');
    }
  }

  // ------------------------------------------------------------ dispatch

  /** Handle one stdout line (public so framing can be tested without a process). */
  handleLine(line: string): void {
    if (!line.trim()) {
      return;
    }
    const event = parseEventLine(line);
    if (!event) {
      this.fire('badline', line);
      return;
    }
    if (!KNOWN_EVENTS.has(event.event)) {
      this.fire('unknown', event);
      return;
    }
    const known = event as unknown as RiftEvent;
    if (known.event === 'ready') {
      this.ready = known;
      const warning = protocolWarning(known);
      if (warning) {
        this.fire('protocolWarning', warning);
      }
    } else if (known.event === 'capabilities') {
      this.capabilities = known;
    }
    this.fire('any', known);
    this.fire(`event:${known.event}`, known);
  }

  // ------------------------------------------------------------ commands

  /** Whether this rift accepts `command` (from `ready.commands`; baseline before it). */
  supports(command: string): boolean {
    const commands = this.ready?.commands;
    return Array.isArray(commands) ? commands.includes(command) : BASELINE_COMMANDS.includes(command);
  }

  /** Write one command line; false when the process is gone. */
  send(command: { cmd: string; [field: string]: unknown }): boolean {
    const stdin = this.proc?.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded || this.exitInfo) {
      return false;
    }
    stdin.write(JSON.stringify(command) + '\n');
    return true;
  }

  hello(options: HelloOptions): boolean {
    const cmd: { cmd: string; edit_review: boolean; approve?: boolean } = {
      cmd: 'hello',
      edit_review: options.edit_review,
    };
    if (options.approve !== undefined) {
      cmd.approve = options.approve;
    }
    return this.send(cmd);
  }

  prompt(text: string): boolean {
    return this.send({ cmd: 'prompt', text });
  }

  answer(id: number, text: string): boolean {
    return this.send({ cmd: 'answer', id, text });
  }

  /** apply with `content` writes that text; apply without it writes the proposal verbatim. */
  editDecision(id: number, apply: boolean, content?: string): boolean {
    return this.send(content === undefined || !apply ? { cmd: 'edit_decision', id, apply } : { cmd: 'edit_decision', id, apply, content });
  }

  cancel(): boolean {
    return this.send({ cmd: 'cancel' });
  }

  undo(): boolean {
    return this.send({ cmd: 'undo' });
  }

  listSessions(): boolean {
    return this.send({ cmd: 'list_sessions' });
  }

  listModels(): boolean {
    return this.send({ cmd: 'list_models' });
  }

  setModel(model: string): boolean {
    return this.send({ cmd: 'set_model', model });
  }

  setApproval(approve: boolean): boolean {
    return this.send({ cmd: 'set_approval', approve });
  }

  // ------------------------------------------------------------ helpers

  /** The next `name` event (matching `predicate`) after now; rejects on timeout or exit. */
  waitFor<K extends EventName>(
    name: K,
    predicate: (event: RiftEventMap[K]) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<RiftEventMap[K]> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        offEvent();
        offExit();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no ${name} event within ${timeoutMs} ms`));
      }, timeoutMs);
      const offEvent = this.on(name, (event) => {
        if (predicate(event)) {
          cleanup();
          resolve(event);
        }
      });
      const offExit = this.onExit((info) => {
        cleanup();
        reject(new Error(`rift exited (code ${info.code}) before a ${name} event`));
      });
    });
  }
}
