/**
 * The extension glue under a stubbed `vscode` module, driving a real rift:
 * the webview handshake starts rift, a prompt flows through, an edit review
 * opens as a diff whose hunks are toggled by command and applied, header
 * actions reach rift, and disposing the view closes rift's stdin.
 */

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { FakeServer, PKG_ROOT, riftCommand, Sandbox, sandbox, startFakeServer, toolCall } from './support';
import { fakeContext, fakeWebviewView, installVscodeStub } from './vscode-stub';

const OLD = 'one\ntwo\nthree\nfour\nfive\nsix\n';
const NEW = 'one\nTWO\nthree\nfour\nFIVE\nsix\nseven\n';

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('extension glue (stubbed vscode, real rift)', () => {
  const stub = installVscodeStub();
  let box: Sandbox;
  let server: FakeServer;
  let ext: { activate(ctx: unknown): void; deactivate(): Promise<void> };
  let webview: ReturnType<typeof fakeWebviewView>;

  const events = (name: string) =>
    webview.posted.filter((m) => m.type === 'event' && m.event.event === name).map((m) => m.event);

  before(async () => {
    box = sandbox();
    server = await startFakeServer(
      {
        turns: [
          { match: 'EXT-REVIEW', tool_calls: [toolCall('write', { path: 'notes.txt', content: NEW })] },
          { match: 'EXT-REVIEW', content: 'tidied the notes' },
        ],
      },
      box.root,
    );
    // the extension spawns rift with process.env: isolate HOME for this test process
    Object.assign(process.env, box.env);
    for (const key of Object.keys(process.env)) if (!(key in box.env)) delete process.env[key];
    const { command, prefix } = riftCommand();
    let executable = command;
    if (prefix.length) {
      executable = path.join(box.root, 'rift-wrapper.sh');
      fs.writeFileSync(executable, `#!/bin/sh\nexec ${[command, ...prefix].map((a) => `'${a}'`).join(' ')} "$@"\n`, { mode: 0o755 });
    }
    stub.workspaceFolder = box.project;
    stub.settings = { executablePath: executable, host: server.url, model: 'fake-model' };
    fs.writeFileSync(path.join(box.project, 'notes.txt'), OLD);
    ext = require('../src/extension');
    ext.activate(fakeContext(PKG_ROOT));
  });

  after(async () => {
    await ext?.deactivate();
    await server?.stop();
    box?.cleanup();
  });

  test('the view loads, rift starts with hello, a reviewed edit applies the chosen hunks', { timeout: 40_000 }, async () => {
    const provider = stub.viewProviders.get('rift.chatView');
    assert.ok(provider, 'webview view provider registered');
    webview = fakeWebviewView();
    provider.resolveWebviewView(webview.view);
    assert.match(webview.view.webview.html, /<script nonce="[A-Za-z0-9]+" src="file:\/\/.*media\/chat\.js"><\/script>/);
    assert.match(webview.view.webview.html, /script-src 'nonce-/);
    assert.doesNotMatch(webview.view.webview.html, /https?:\/\//, 'nothing from a CDN');

    webview.send({ type: 'webviewReady' });
    const ready = await until(() => events('ready')[0], 'ready');
    assert.equal(ready.model, 'fake-model');
    const caps = await until(() => events('capabilities')[0], 'capabilities');
    assert.equal(caps.edit_review, true, 'rift.inlineDiffReview defaults to true');
    assert.equal(caps.approve, true, 'rift.autoApprove defaults to false');

    webview.send({ type: 'prompt', text: 'please EXT-REVIEW' });
    const review = await until(() => events('edit_review')[0], 'edit_review');
    const diff = await until(() => stub.executed.find((e) => e.command === 'vscode.diff'), 'vscode.diff');
    const [oldUri, newUri] = diff.args as { scheme: string; path: string }[];
    assert.equal(oldUri.scheme, 'rift-review');
    const content = stub.contentProviders.get('rift-review');
    assert.equal(content.provideTextDocumentContent(oldUri), OLD);
    assert.equal(content.provideTextDocumentContent(newUri), NEW);

    const lenses = () =>
      stub.codeLensProviders[0]
        .provideCodeLenses({ uri: newUri, lineCount: 8 })
        .map((l: { command: { title: string } }) => l.command.title);
    assert.deepEqual(lenses().slice(0, 2), ['✓ Apply 3/3 hunks', '✗ Reject all']);
    assert.equal(lenses().length, 5, 'one lens per hunk');

    await stub.commands.get('rift.reviewToggle')!(review.id, 1); // reject FIVE
    assert.equal(content.provideTextDocumentContent(newUri), 'one\nTWO\nthree\nfour\nfive\nsix\nseven\n');
    assert.equal(lenses()[0], '✓ Apply 2/3 hunks');
    assert.ok(lenses().includes('✗ hunk 2/3 rejected — accept'));
    assert.ok(webview.posted.some((m) => m.type === 'reviewState' && m.state === 'pending' && m.accepted === 2));

    await stub.commands.get('rift.reviewApply')!(review.id);
    await until(() => events('done')[0], 'done');
    assert.equal(fs.readFileSync(path.join(box.project, 'notes.txt'), 'utf8'), 'one\nTWO\nthree\nfour\nfive\nsix\nseven\n');
    assert.ok(webview.posted.some((m) => m.type === 'reviewState' && m.id === review.id && m.state === 'applied'));
    assert.ok(events('content').some((e) => e.text.includes('tidied')));
  });

  test('header actions reach rift', { timeout: 30_000 }, async () => {
    webview.send({ type: 'toggleApproval', approve: false });
    const changed = await until(() => events('approval_changed')[0], 'approval_changed');
    assert.equal(changed.approve, false);

    stub.pickAnswer = () => undefined;
    webview.send({ type: 'history' });
    const sessionsPick = await until(() => stub.quickPicks[0], 'session quick pick');
    assert.ok((sessionsPick.items as { path: string }[]).every((i) => typeof i.path === 'string'));

    webview.send({ type: 'pickModel' });
    const modelPick = await until(() => stub.quickPicks[1], 'model quick pick');
    const labels = (modelPick.items as { label: string }[]).map((i) => i.label);
    assert.ok(labels.includes('fake-model'), labels.join(', '));

    const notices = () => events('info').length + events('warning').length;
    const before = notices();
    webview.send({ type: 'undo' }); // reverts the reviewed write of the first test
    await until(() => notices() > before || undefined, 'undo answer');
    await until(() => fs.readFileSync(path.join(box.project, 'notes.txt'), 'utf8') === OLD || undefined, 'file restored');
  });

  test('closing the view closes rift stdin and rift exits', { timeout: 20_000 }, async () => {
    webview.dispose();
    await until(() => stub.output.find((l) => /^rift exited \(code 0\)/.test(l)), 'rift exit');
  });
});
