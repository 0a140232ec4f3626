/**
 * The chat webview in headless Chromium: the page the extension builds
 * (chatHtml + media/chat.js + media/chat.css) replays a recorded event stream
 * (test/fixtures/events.jsonl, see test/record.ts) and the DOM is checked.
 * `acquireVsCodeApi` is provided by the test page and records what the
 * webview posts. A screenshot goes to test/output/chat.png (gitignored).
 *
 * Skips when no Chromium is installed (Debian: apt-get install -y chromium;
 * or point CHROMIUM_PATH at one).
 */

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';

import type { Browser, Page } from 'playwright-core';

import { chatHtml } from '../src/webviewHtml';
import { PKG_ROOT } from './support';

const CANDIDATES = [process.env.CHROMIUM_PATH ?? '', '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const CHROMIUM = CANDIDATES.find((p) => p && fs.existsSync(p));
const SKIP = CHROMIUM ? false : 'chromium not found (apt-get install -y chromium, or set CHROMIUM_PATH)';

const OUTPUT = path.join(PKG_ROOT, 'test', 'output');
const EVENTS: Record<string, unknown>[] = fs
  .readFileSync(path.join(PKG_ROOT, 'test', 'fixtures', 'events.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));

type Posted = { type: string; [k: string]: unknown };

// page-side globals used inside page.evaluate callbacks (the DOM lib is not in tsconfig)
declare const window: any;
declare function requestAnimationFrame(callback: () => void): number;

describe('chat webview in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  const posted = (): Promise<Posted[]> => page.evaluate(() => (window as unknown as { __posted: Posted[] }).__posted);
  const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 20))));
  // window.postMessage delivers asynchronously: wait until the page has handled the events.
  const send = async (events: unknown[]) => {
    await page.evaluate((list) => {
      for (const event of list) window.postMessage({ type: 'event', event }, '*');
    }, events);
    await settle();
  };

  before(async () => {
    if (SKIP) return;
    const { chromium } = await import('playwright-core');
    fs.mkdirSync(OUTPUT, { recursive: true });
    const media = path.join(PKG_ROOT, 'media');
    const html = chatHtml({
      cspSource: 'file:',
      scriptUri: pathToFileURL(path.join(media, 'chat.js')).href,
      styleUri: pathToFileURL(path.join(media, 'chat.css')).href,
    });
    const pagePath = path.join(OUTPUT, 'chat.html');
    fs.writeFileSync(pagePath, html);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    page = await browser.newPage({ viewport: { width: 460, height: 1500 } });
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(msg.text());
    });
    // the test page's acquireVsCodeApi: record what the webview posts
    await page.addInitScript(() => {
      const w = window as unknown as { __posted: unknown[]; acquireVsCodeApi: () => unknown };
      w.__posted = [];
      let state: unknown;
      w.acquireVsCodeApi = () => ({
        postMessage: (msg: unknown) => w.__posted.push(msg),
        getState: () => state,
        setState: (s: unknown) => (state = s),
      });
    });
    await page.goto(pathToFileURL(pagePath).href);
    await page.waitForFunction(() =>
      (window as unknown as { __posted: Posted[] }).__posted.some((m) => m.type === 'webviewReady'),
    );
  });

  after(async () => {
    await browser?.close();
  });

  test('renders the recorded turn: content, tools, edit_diff, ask, plan, context', { skip: SKIP, timeout: 30_000 }, async () => {
    const [ready, context, ...rest] = EVENTS;
    await send([ready, context]);
    // the user sends the prompt: bubble + working indicator from Enter until done
    await page.fill('#input', 'Add an add() function to calc.py');
    await page.press('#input', 'Enter');
    assert.deepEqual((await posted()).filter((m) => m.type === 'prompt'), [
      { type: 'prompt', text: 'Add an add() function to calc.py' },
    ]);
    assert.equal(await page.isVisible('#working'), true);
    const doneAt = rest.findIndex((e) => e.event === 'done');
    await send(rest.slice(0, doneAt + 1));
    await settle();
    assert.equal(await page.isVisible('#working'), false, 'done stops the working indicator');

    // header
    assert.equal(await page.textContent('#model'), 'fake-model');
    assert.match((await page.getAttribute('#ctx', 'class')) ?? '', /\bctx-green\b/);

    // streamed Markdown with a highlighted code block and copy/insert buttons
    const assistant = await page.locator('.msg.assistant').allTextContents();
    assert.ok(assistant.some((t) => t.includes("I'll plan this, then write the function.")), assistant.join('|'));
    assert.equal(await page.textContent('.msg.assistant h2'), 'Done');
    assert.equal(await page.textContent('.code .lang'), 'python');
    assert.equal(await page.locator('.code .tok-kw', { hasText: 'def' }).count() > 0, true);
    assert.match((await page.textContent('.code code')) ?? '', /return a \+ b/);
    assert.equal(await page.locator('.code .code-btn').count(), 2);
    assert.equal(await page.locator('.msg.assistant table td').count(), 4);

    // tool rows fold tool_start + tool_result, output on expand
    const rows = page.locator('details.tool');
    assert.ok((await rows.count()) >= 5);
    const read = page.locator('details.tool', { has: page.locator('.tool-name', { hasText: /^read$/ }) });
    assert.match((await read.getAttribute('class')) ?? '', /\bok\b/);
    assert.match((await read.locator('.tool-args').textContent()) ?? '', /path=calc\.py/);
    assert.match((await read.locator('.tool-res').textContent()) ?? '', /def sub/);
    assert.equal(await read.locator('.tool-output').isVisible(), false);
    await read.locator('summary').click();
    assert.equal(await read.locator('.tool-output').isVisible(), true);
    assert.match((await read.locator('.tool-output').textContent()) ?? '', /return a - b/);

    // edit_diff card with +N −M
    const diff = page.locator('.card.edit-diff');
    assert.equal(await diff.count(), 1);
    assert.equal(await diff.locator('.path').textContent(), 'calc.py');
    assert.equal(await diff.locator('.added').textContent(), '+5');
    assert.equal(await diff.locator('.removed').textContent(), '−0');
    assert.ok((await diff.locator('.d-add').count()) >= 3);

    // ask card with one button per choice; a click answers by id
    const askEvent = EVENTS.find((e) => e.event === 'ask') as { id: number; question: string; choices: string[] };
    const ask = page.locator('.card.ask');
    assert.equal(await ask.locator('.question').textContent(), askEvent.question);
    assert.deepEqual(await ask.locator('button.choice').allTextContents(), askEvent.choices);
    await ask.locator('button.choice').first().click();
    assert.deepEqual(
      (await posted()).filter((m) => m.type === 'answer'),
      [{ type: 'answer', id: askEvent.id, text: askEvent.choices[0] }],
    );
    assert.equal(await ask.locator('button.choice').first().isDisabled(), true);

    // plan checklist (the last plan replaces earlier ones)
    assert.equal(await page.isVisible('#plan'), true);
    assert.equal(await page.locator('#plan li').count(), 3);
    assert.equal(await page.locator('#plan li.done').count(), 2);
    assert.equal(await page.textContent('#plan .progress'), '2/3');

    // stats line after done
    assert.match((await page.locator('.stats').last().textContent()) ?? '', /3 steps/);
  });

  test('context pill turns amber and red', { skip: SKIP }, async () => {
    await send([{ event: 'context', used: 22000, limit: 32768 }]);
    assert.match((await page.getAttribute('#ctx', 'class')) ?? '', /\bctx-amber\b/);
    await send([{ event: 'context', used: 31000, limit: 32768 }]);
    assert.match((await page.getAttribute('#ctx', 'class')) ?? '', /\bctx-red\b/);
    assert.equal(await page.textContent('#ctx'), 'ctx 95%');
  });

  test('sub-agent and task cards, edit review card, unknown events ignored', { skip: SKIP }, async () => {
    const doneAt = EVENTS.findIndex((e) => e.event === 'done');
    await send(EVENTS.slice(doneAt + 1));
    await settle();
    const agent = page.locator('.card.agent');
    assert.match((await agent.getAttribute('class')) ?? '', /\brunning\b/);
    assert.equal(await agent.locator('.feed .line').count(), 2);
    assert.equal(await page.textContent('#running'), '↻ 1 running');
    const task = page.locator('.card.task');
    assert.match((await task.getAttribute('class')) ?? '', /\bfinished\b/);
    assert.match((await task.textContent()) ?? '', /3 passed/);

    const review = page.locator('.card.review');
    assert.match((await review.getAttribute('class')) ?? '', /\bpending\b/);
    assert.match((await review.textContent()) ?? '', /main\.py.*1 hunk/);
    assert.deepEqual(await review.locator('button').allTextContents(), ['Apply', 'Open diff', 'Reject']);
    await review.locator('button', { hasText: 'Open diff' }).click();
    assert.deepEqual((await posted()).filter((m) => m.type === 'review'), [{ type: 'review', id: 99, action: 'open' }]);
    await page.screenshot({ path: path.join(OUTPUT, 'chat.png') });

    await send([
      { event: 'subagent_finished', tag: 'explore-1', steps: 4 },
      { event: 'edit_review_closed', id: 99 },
    ]);
    assert.match((await review.getAttribute('class')) ?? '', /\bcancelled\b/);
    assert.match((await review.textContent()) ?? '', /cancelled/);
    assert.equal(await page.isVisible('#running'), false);
    assert.deepEqual(pageErrors, [], 'no script errors (the unknown event was ignored)');
  });

  test('approval toggle, / completion of skills', { skip: SKIP }, async () => {
    await page.click('#approval');
    assert.deepEqual((await posted()).filter((m) => m.type === 'toggleApproval'), [{ type: 'toggleApproval', approve: false }]);
    await send([{ event: 'approval_changed', approve: false }]);
    assert.equal(await page.textContent('#approval'), '⚡ auto');
    assert.match((await page.getAttribute('#approval', 'class')) ?? '', /\bauto\b/);
    await send([{ event: 'approval_changed', approve: true }]);
    assert.equal(await page.textContent('#approval'), '🔒 approve');

    const ready = { ...EVENTS[0], skills: [{ name: 'review', description: 'Review the staged diff' }, { name: 'release', description: 'Cut a release' }] };
    await send([ready]);
    await page.fill('#input', '');
    await page.type('#input', '/rev');
    assert.equal(await page.isVisible('#complete'), true);
    assert.deepEqual(await page.locator('#complete .name').allTextContents(), ['/skill:review']);
    await page.press('#input', 'Tab');
    assert.equal(await page.inputValue('#input'), '/skill:review ');
    assert.equal(await page.isVisible('#complete'), false);
    assert.deepEqual(pageErrors, []);
  });
});
