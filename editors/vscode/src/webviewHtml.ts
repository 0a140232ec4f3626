/**
 * The chat webview's HTML. No `vscode` import: the extension passes its
 * webview URIs and CSP source, the browser test passes file:// URLs.
 * Nothing is loaded from a CDN; scripts run only with the per-load nonce.
 */

import { randomBytes } from 'node:crypto';

export interface ChatHtmlOptions {
  /** `webview.cspSource` (or the test page's origin). */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  nonce?: string;
}

export function makeNonce(): string {
  return randomBytes(16).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function chatHtml(options: ChatHtmlOptions): string {
  const nonce = options.nonce ?? makeNonce();
  const csp = [
    "default-src 'none'",
    `img-src ${options.cspSource} data:`,
    `style-src ${options.cspSource}`,
    `font-src ${options.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(options.styleUri)}">
<title>Rift</title>
</head>
<body>
<header id="header">
  <button id="model" class="pill model" title="Switch model">…</button>
  <span id="ctx" class="pill ctx" title="Context window">ctx –</span>
  <span id="running" class="pill running hidden" title="Sub-agents and background tasks running"></span>
  <span class="spacer"></span>
  <button id="approval" class="toggle" title="Approval mode">🔒 approve</button>
  <button id="undo" class="icon" title="Undo the last turn's edits">↶</button>
  <button id="history" class="icon" title="Session history">🕘</button>
  <button id="new" class="icon" title="New session">+</button>
</header>
<main id="transcript" aria-live="polite">
  <div id="empty" class="empty">Ask rift to read, edit or run something. <kbd>/</kbd> for skills, <kbd>@</kbd> for files.</div>
</main>
<section id="plan" class="plan hidden"></section>
<footer id="composer">
  <div id="complete" class="complete hidden" role="listbox"></div>
  <div id="working" class="working hidden" title="rift is working"><span></span><span></span><span></span></div>
  <textarea id="input" rows="3" placeholder="Message rift — Enter to send, Shift+Enter for a newline"></textarea>
  <div class="row">
    <span class="spacer"></span>
    <button id="stop" class="secondary hidden" title="Cancel the turn">Stop</button>
    <button id="send" title="Send (Enter)">Send</button>
  </div>
</footer>
<script nonce="${attr(nonce)}" src="${attr(options.scriptUri)}"></script>
</body>
</html>
`;
}
