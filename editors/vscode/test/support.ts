/**
 * Test support: the rift under test, the repository's fake model server, an
 * isolated HOME, and an event log that never misses an event.
 *
 * rift: $RIFT_BIN (split on whitespace, like the Python conformance suite),
 * else ../../.venv/bin/rift relative to editors/vscode, else `rift` on PATH.
 * Fake server: ../../.venv/bin/python ../../tests/fakes/fake_server.py (else python3).
 */

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';

import { EventName, RawEvent, RiftEventMap } from '../src/events';
import { buildArgs, RiftClient } from '../src/protocol';

/** editors/vscode (this file runs from out/test/). */
export const PKG_ROOT = path.resolve(__dirname, '..', '..');
export const REPO_ROOT = path.resolve(PKG_ROOT, '..', '..');
/** The scripted fake model server (stdlib only), run as a script. */
export const FAKE_SERVER = path.join(REPO_ROOT, 'tests', 'fakes', 'fake_server.py');

export function riftCommand(): { command: string; prefix: string[] } {
  const custom = process.env.RIFT_BIN?.trim();
  if (custom) {
    const [command, ...prefix] = custom.split(/\s+/);
    return { command, prefix };
  }
  const venv = path.join(REPO_ROOT, '.venv', 'bin', 'rift');
  return { command: fs.existsSync(venv) ? venv : 'rift', prefix: [] };
}

export function pythonCommand(): string {
  const venv = path.join(REPO_ROOT, '.venv', 'bin', 'python');
  return fs.existsSync(venv) ? venv : 'python3';
}

export interface Sandbox {
  root: string;
  project: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** A temp project and HOME/XDG dirs, with no RIFT_* overrides leaking in (RIFT_BIN kept). */
export function sandbox(): Sandbox {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rift-vscode-test-'));
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  for (const dir of [project, path.join(home, '.config'), path.join(home, '.local', 'share'), path.join(home, '.cache')]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('RIFT_') || key === 'RIFT_BIN') env[key] = value;
  }
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
  });
  return { root, project, env, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

export interface FakeServer {
  url: string;
  logPath: string;
  requests(): Record<string, unknown>[];
  stop(): Promise<void>;
}

/** Start `python tests/fakes/fake_server.py` with a script; its first stdout line is the URL. */
export async function startFakeServer(script: object, dir: string): Promise<FakeServer> {
  const scriptPath = path.join(dir, `fake-script-${process.pid}-${Date.now()}.json`);
  const logPath = scriptPath.replace(/\.json$/, '.log.jsonl');
  fs.writeFileSync(scriptPath, JSON.stringify(script));
  const proc = spawn(pythonCommand(), [FAKE_SERVER, '--script', scriptPath, '--log', logPath], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => proc.on('close', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fake server did not start: ${stderr}`)), 15_000);
    const lines = readline.createInterface({ input: proc.stdout });
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line.trim());
    });
    proc.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    proc.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`fake server exited (${code}): ${stderr}`));
    });
  });
  return {
    url,
    logPath,
    requests: () =>
      fs.existsSync(logPath)
        ? fs
            .readFileSync(logPath, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [],
    stop: async () => {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** Every event a client sees (known and unknown), read in order with a cursor. */
export class EventLog {
  readonly events: RawEvent[] = [];
  readonly unknown: RawEvent[] = [];
  readonly badLines: string[] = [];
  readonly stderr: string[] = [];
  private cursor = 0;
  private wake: (() => void) | undefined;
  private exited = false;

  constructor(client: RiftClient) {
    client.onEvent((e) => this.push(e as unknown as RawEvent));
    client.onUnknown((e) => {
      this.unknown.push(e);
      this.push(e);
    });
    client.onBadLine((l) => this.badLines.push(l));
    client.onStderr((l) => this.stderr.push(l));
    client.onExit(() => {
      this.exited = true;
      this.wake?.();
    });
  }

  private push(event: RawEvent): void {
    this.events.push(event);
    this.wake?.();
  }

  /** The next `name` event after the cursor (skipping others); moves the cursor past it. */
  async next<K extends EventName>(
    name: K,
    predicate: (e: RiftEventMap[K]) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<RiftEventMap[K]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.cursor < this.events.length) {
        const event = this.events[this.cursor++];
        if (event.event === name && predicate(event as unknown as RiftEventMap[K])) {
          return event as unknown as RiftEventMap[K];
        }
      }
      const left = deadline - Date.now();
      if (left <= 0 || this.exited) {
        const seen = this.events.map((e) => JSON.stringify(e).slice(0, 200)).join('\n');
        throw new Error(
          `no ${name} event ${this.exited ? 'before rift exited' : `within ${timeoutMs} ms`}\n` +
            `events:\n${seen}\nstderr:\n${this.stderr.slice(-20).join('\n')}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve();
        };
      });
    }
  }

  /** Events from index `from` up to now. */
  since(from: number): RawEvent[] {
    return this.events.slice(from);
  }

  get position(): number {
    return this.cursor;
  }
}

export interface RiftRun {
  client: RiftClient;
  log: EventLog;
}

/** A started `rift --serve` against `server`, in `box.project`, with hello sent at spawn. */
export function startRift(
  server: FakeServer,
  box: Sandbox,
  options: { hello?: { edit_review: boolean; approve?: boolean } | false; wrap?: (cmd: string, args: string[]) => [string, string[]] } = {},
): RiftRun {
  const { command, prefix } = riftCommand();
  let cmd = command;
  let args = [...prefix, ...buildArgs({ host: server.url, model: 'fake-model' })];
  if (options.wrap) {
    [cmd, args] = options.wrap(cmd, args);
  }
  const client = new RiftClient({
    command: cmd,
    args,
    cwd: box.project,
    env: box.env,
    hello: options.hello === undefined ? { edit_review: true, approve: true } : options.hello,
  });
  const log = new EventLog(client);
  client.start();
  return { client, log };
}

/** One scripted tool call for a fake-server turn. */
export function toolCall(name: string, args: Record<string, unknown>): { name: string; arguments: Record<string, unknown> } {
  return { name, arguments: args };
}
