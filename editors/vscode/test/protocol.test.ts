/**
 * The protocol client: framing and dispatch units, then a real `rift --serve`
 * against the package's fake model server.
 */

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  buildArgs,
  earlyExitText,
  helloFor,
  LineSplitter,
  parseEventLine,
  protocolWarning,
  resolveExecutable,
  RiftClient,
  startFailureText,
} from '../src/protocol';
import { FakeServer, Sandbox, sandbox, startFakeServer, startRift, toolCall } from './support';

describe('framing and dispatch (no process)', () => {
  test('LineSplitter joins chunks, keeps split UTF-8 and strips CR', () => {
    const splitter = new LineSplitter();
    const bytes = Buffer.from('{"event":"content","text":"héllo ✓"}\r\n{"event":"do', 'utf8');
    const cut = bytes.indexOf(Buffer.from('✓')) + 1; // inside the 3-byte check mark
    assert.deepEqual(splitter.push(bytes.subarray(0, cut)), []);
    assert.deepEqual(splitter.push(bytes.subarray(cut)), ['{"event":"content","text":"héllo ✓"}']);
    assert.deepEqual(splitter.push('ne"}\n'), ['{"event":"done"}']);
    assert.deepEqual(splitter.push('{"event":"x"}'), []);
    assert.deepEqual(splitter.end(), ['{"event":"x"}']);
  });

  test('parseEventLine accepts event objects only', () => {
    assert.deepEqual(parseEventLine('{"event":"info","text":"x"}'), { event: 'info', text: 'x' });
    for (const bad of ['', '   ', 'not json', '[1,2]', '"s"', '{"text":"no event"}', '{"event":3}', 'null']) {
      assert.equal(parseEventLine(bad), undefined, bad);
    }
  });

  test('unknown events and fields are ignored, known events dispatched with extra fields intact', () => {
    const client = new RiftClient({ command: 'unused' });
    const known: unknown[] = [];
    const unknown: unknown[] = [];
    const bad: string[] = [];
    const infos: unknown[] = [];
    client.onEvent((e) => known.push(e));
    client.onUnknown((e) => unknown.push(e));
    client.onBadLine((l) => bad.push(l));
    client.on('info', (e) => infos.push(e));
    client.handleLine('{"event":"hologram","frames":3}');
    client.handleLine('garbage');
    client.handleLine('{"event":"info","text":"hi","added_in_v9":{"x":1}}');
    assert.deepEqual(unknown, [{ event: 'hologram', frames: 3 }]);
    assert.deepEqual(bad, ['garbage']);
    assert.deepEqual(known, [{ event: 'info', text: 'hi', added_in_v9: { x: 1 } }]);
    assert.deepEqual(infos, known);
  });

  test('a listener that throws does not stop dispatch', () => {
    const client = new RiftClient({ command: 'unused' });
    const errors: Error[] = [];
    const seen: string[] = [];
    client.onError((e) => errors.push(e));
    client.on('content', () => {
      throw new Error('boom');
    });
    client.on('content', (e) => seen.push(e.text));
    client.handleLine('{"event":"content","text":"a"}');
    assert.deepEqual(seen, ['a']);
    assert.equal(errors[0]?.message, 'boom');
  });

  test('protocol_version other than 1 warns; ready.commands gates features', () => {
    assert.equal(protocolWarning({ protocol_version: 1 }), undefined);
    assert.match(protocolWarning({ protocol_version: 2, version: '9.0' }) ?? '', /protocol 2.*protocol 1/);
    assert.match(protocolWarning({}) ?? '', /protocol none/);
    const client = new RiftClient({ command: 'unused' });
    const warnings: string[] = [];
    client.onProtocolWarning((w) => warnings.push(w));
    assert.equal(client.supports('set_model'), false, 'before ready: baseline only');
    assert.equal(client.supports('prompt'), true);
    client.handleLine(JSON.stringify({ event: 'ready', protocol_version: 2, version: 'x', commands: ['prompt', 'set_model'] }));
    assert.equal(warnings.length, 1);
    assert.equal(client.supports('set_model'), true);
    assert.equal(client.supports('undo'), false);
  });

  test('settings map to flags; empty settings defer to rift', () => {
    assert.deepEqual(buildArgs({}), ['--serve']);
    assert.deepEqual(buildArgs({ host: ' ', model: '', numCtx: 0, temperature: null, maxIterations: 0, effort: '' }), ['--serve']);
    assert.deepEqual(
      buildArgs(
        { host: 'http://gpu:8000/v1', model: 'qwen', numCtx: 16384, temperature: 0, maxIterations: 12, effort: 'high' },
        { resume: '/s/1.json' },
      ),
      ['--serve', '--host', 'http://gpu:8000/v1', '--model', 'qwen', '--num-ctx', '16384', '--temp', '0', '--max-iterations', '12', '--effort', 'high', '--resume', '/s/1.json'],
    );
    assert.deepEqual(buildArgs({}, { continueLast: true }), ['--serve', '--continue']);
    assert.deepEqual(helloFor({}), { edit_review: true, approve: true });
    assert.deepEqual(helloFor({ inlineDiffReview: false, autoApprove: true }), { edit_review: false, approve: false });
    assert.equal(resolveExecutable(''), 'rift');
    assert.ok(resolveExecutable('~/bin/rift').endsWith(path.join('bin', 'rift')));
    assert.ok(!resolveExecutable('~/bin/rift').startsWith('~'));
  });

  test('a missing executable is an error event, not a throw', async () => {
    const client = new RiftClient({ command: '/nonexistent/rift-binary', hello: { edit_review: true } });
    const errors: Error[] = [];
    client.onError((e) => errors.push(e));
    client.start();
    const info = await client.exited;
    assert.equal(info.code, null);
    assert.match(errors[0]?.message ?? '', /could not start/);
    assert.equal(client.startError?.code, 'ENOENT');
    assert.equal(client.prompt('x'), false);
  });

  test('start failures read as one clear sentence naming the fix', () => {
    const enoent = Object.assign(new Error('spawn rift ENOENT'), { code: 'ENOENT' });
    assert.equal(
      startFailureText('rift', enoent),
      'rift was not found: "rift" is not on PATH. Install rift, or set rift.executablePath to its full path.',
    );
    assert.match(startFailureText('/opt/rift/bin/rift', enoent), /"\/opt\/rift\/bin\/rift" does not exist/);
    assert.match(startFailureText('/x/rift', Object.assign(new Error('x'), { code: 'EACCES' })), /is not executable/);
    assert.equal(
      earlyExitText({ code: 2, signal: null }, ['', 'rift: error: bad config', '']),
      'rift exited (code 2) at start: rift: error: bad config. Fix that (the full log is in Output › Rift), then send a message to start it again.',
    );
    assert.match(earlyExitText({ code: null, signal: 'SIGKILL' }, []), /^rift was killed \(SIGKILL\) at start without a message\./);
  });
});

describe('against a real rift --serve', () => {
  let box: Sandbox;
  let server: FakeServer;

  before(async () => {
    box = sandbox();
    server = await startFakeServer(
      {
        turns: [
          { match: 'STREAM-ME', content: ['Hello', ', ', 'world', '!'] },
          { match: 'ASK-ME', tool_calls: [toolCall('bash', { command: 'echo from-bash' })] },
          { match: 'ASK-ME', content: 'ran it' },
          { match: 'FUTURE-ME', content: 'still fine' },
          { match: 'CLOSE-ME', content: 'bye' },
        ],
      },
      box.root,
    );
  });

  after(async () => {
    await server?.stop();
    box?.cleanup();
  });

  test('spawn → ready, hello → capabilities, features from ready.commands', { timeout: 30_000 }, async () => {
    const { client, log } = startRift(server, box, { hello: { edit_review: true, approve: true } });
    try {
      const ready = await log.next('ready');
      assert.equal(ready.protocol_version, 1);
      assert.equal(ready.model, 'fake-model');
      assert.equal(typeof ready.session, 'string');
      assert.ok(Array.isArray(ready.commands) && ready.commands.includes('hello'));
      assert.equal(client.ready, ready);
      assert.equal(client.supports('set_approval'), ready.commands.includes('set_approval'));
      const ctx = await log.next('context');
      assert.ok(ctx.limit > 0);
      const caps = await log.next('capabilities');
      assert.equal(caps.protocol_version, 1);
      assert.equal(caps.edit_review, true);
      assert.equal(caps.approve, true);
      assert.equal(client.capabilities, caps);
      // the header actions' commands are answered
      client.setApproval(false);
      assert.equal((await log.next('approval_changed')).approve, false);
      client.listSessions();
      assert.ok(Array.isArray((await log.next('sessions')).items));
      client.listModels();
      assert.ok((await log.next('models')).models.includes('fake-model'));
      assert.deepEqual(log.badLines, []);
    } finally {
      await client.close();
    }
  });

  test('a prompt streams content and ends with done', { timeout: 30_000 }, async () => {
    const { client, log } = startRift(server, box);
    try {
      await log.next('capabilities');
      const from = log.position;
      assert.equal(client.prompt('please STREAM-ME'), true);
      const done = await log.next('done');
      const turn = log.since(from);
      const text = turn.filter((e) => e.event === 'content').map((e) => e.text).join('');
      assert.equal(text, 'Hello, world!');
      // done ends the turn; a `context` may already have arrived after it (same write).
      const end = turn.indexOf(done as unknown as (typeof turn)[number]);
      assert.ok(end >= 0);
      assert.deepEqual(turn.slice(end + 1).map((e) => e.event).filter((e) => e !== 'context'), []);
      assert.ok(turn.some((e) => e.event === 'iteration'));
      assert.equal(typeof done.stats.iterations, 'number');
      assert.equal(typeof done.stats.output_tokens, 'number');
    } finally {
      await client.close();
    }
  });

  test('an ask is answered and the turn continues', { timeout: 30_000 }, async () => {
    const { client, log } = startRift(server, box, { hello: { edit_review: true, approve: true } });
    try {
      await log.next('capabilities');
      client.prompt('run something ASK-ME');
      const start = await log.next('tool_start');
      assert.equal(start.name, 'bash');
      assert.deepEqual(start.args, { command: 'echo from-bash' }, 'args is an object');
      const ask = await log.next('ask');
      assert.equal(typeof ask.id, 'number');
      assert.ok(ask.choices.length > 1, 'an approval offers choices');
      const allow = ask.choices.find((c) => /allow once/i.test(c)) ?? ask.choices[0];
      client.answer(ask.id, allow);
      const result = await log.next('tool_result');
      assert.equal(result.ok, true, result.preview);
      assert.match(result.preview, /from-bash/);
      await log.next('content', (e) => e.text.includes('ran it'));
      await log.next('done');
    } finally {
      await client.close();
    }
  });

  test('unknown events, unknown fields and stray lines are ignored', { timeout: 30_000 }, async () => {
    // A wrapper prints what a future rift might, then execs the real one.
    const inject = [
      '{"event":"from_the_future","payload":{"x":1}}',
      'this line is not JSON',
      '{"event":"info","text":"injected","new_field":[1,2]}',
    ];
    const wrap = (cmd: string, args: string[]): [string, string[]] => [
      '/bin/sh',
      ['-c', `printf '%s\\n' ${inject.map((l) => `'${l}'`).join(' ')}; exec "$0" "$@"`, cmd, ...args],
    ];
    const { client, log } = startRift(server, box, { wrap });
    const errors: Error[] = [];
    client.onError((e) => errors.push(e));
    try {
      const info = await log.next('info', (e) => e.text === 'injected');
      assert.deepEqual((info as unknown as { new_field: number[] }).new_field, [1, 2]);
      await log.next('ready');
      assert.deepEqual(log.unknown, [{ event: 'from_the_future', payload: { x: 1 } }]);
      assert.deepEqual(log.badLines, ['this line is not JSON']);
      client.prompt('FUTURE-ME');
      await log.next('content', (e) => e.text === 'still fine');
      await log.next('done');
      assert.deepEqual(errors, []);
    } finally {
      await client.close();
    }
  });

  test('closing stdin makes rift save the session and exit', { timeout: 30_000 }, async () => {
    const { client, log } = startRift(server, box);
    const ready = await log.next('ready');
    client.prompt('CLOSE-ME');
    await log.next('done');
    assert.equal(client.running, true);
    const started = Date.now();
    const info = await client.close(10_000);
    assert.equal(info.code, 0);
    assert.equal(client.running, false);
    assert.ok(Date.now() - started < 10_000);
    assert.ok(fs.existsSync(ready.session), `session saved at ${ready.session}`);
    assert.equal(client.prompt('too late'), false);
  });
});
