// The rift chat webview: renders serve-protocol events posted by the extension
// ({type: 'event', event}) and posts the user's actions back. No framework, no
// network: Markdown and highlighting are done here. Unknown events and fields
// are ignored (serve protocol v1, "Versioning").
(function () {
  'use strict';

  const vscode = acquireVsCodeApi();
  const $ = (id) => document.getElementById(id);
  const transcript = $('transcript');
  const input = $('input');
  const completeBox = $('complete');
  const planBox = $('plan');

  // ------------------------------------------------------------------ helpers

  function esc(text) {
    return String(text)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;');
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function str(value) {
    return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  }

  function arr(value) {
    return Array.isArray(value) ? value : [];
  }

  function num(value) {
    return typeof value === 'number' && Number.isFinite(value) ? value : 0;
  }

  function nearBottom() {
    return transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 80;
  }

  let stick = true;
  transcript.addEventListener('scroll', () => {
    stick = nearBottom();
  });

  function scrollDown() {
    if (stick) transcript.scrollTop = transcript.scrollHeight;
  }

  function append(node) {
    const empty = $('empty');
    if (empty) empty.remove();
    transcript.appendChild(node);
    scrollDown();
    return node;
  }

  // -------------------------------------------------------------- highlighting

  const KEYWORDS = new Set(
    (
      'abstract and as assert async await auto bool boolean break case catch char class const constexpr continue ' +
      'crate def default defer del delete do done double dyn elif else enum esac except export extends extern ' +
      'false fi final finally float fn for foreach from func function global go goto if impl implements import in ' +
      'instanceof int interface is let long loop match mod module mut namespace new nil none None not null ' +
      'nullptr of or package pass private protected pub public raise readonly ref return self Self short static ' +
      'struct super switch template then this throw throws trait true True False try type typedef typeof union ' +
      'unsafe unsigned use using var void volatile where while with yield string number any unknown never ' +
      'echo local function select chan map range lambda nonlocal val fun object when'
    ).split(' ')
  );
  const HASH_COMMENT = /^(py|python|sh|bash|zsh|shell|console|rb|ruby|yaml|yml|toml|r|perl|pl|make|makefile|dockerfile|ini|conf|cmake|nim|elixir|ex|exs)$/i;
  const DASH_COMMENT = /^(sql|lua|haskell|hs|ada)$/i;
  const NO_HIGHLIGHT = /^(text|txt|plain|plaintext|md|markdown|diff|patch|output|log)$/i;

  function highlight(code, lang) {
    lang = str(lang).toLowerCase();
    if (lang === 'diff' || lang === 'patch') return highlightDiff(code);
    if (NO_HIGHLIGHT.test(lang)) return esc(code);
    const comment = HASH_COMMENT.test(lang)
      ? '#[^\\n]*'
      : DASH_COMMENT.test(lang)
        ? '--[^\\n]*'
        : lang === 'json'
          ? '(?!)'
          : '\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?(?:\\*\\/|$)';
    const pattern = new RegExp(
      '(' + comment + ')' +
        '|("""[\\s\\S]*?(?:"""|$)|\'\'\'[\\s\\S]*?(?:\'\'\'|$)|"(?:\\\\.|[^"\\\\\\n])*"?|\'(?:\\\\.|[^\'\\\\\\n])*\'?|`(?:\\\\.|[^`\\\\])*`?)' +
        '|(\\b(?:0x[0-9a-fA-F_]+|\\d[\\d_]*(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)\\b)' +
        '|([A-Za-z_$][\\w$]*)(?=\\s*\\()' +
        '|([A-Za-z_$][\\w$]*)',
      'g'
    );
    let out = '';
    let last = 0;
    let match;
    while ((match = pattern.exec(code)) !== null) {
      if (match[0] === '') {
        pattern.lastIndex++;
        continue;
      }
      out += esc(code.slice(last, match.index));
      last = match.index + match[0].length;
      const token = esc(match[0]);
      if (match[1]) out += '<span class="tok-com">' + token + '</span>';
      else if (match[2]) out += '<span class="tok-str">' + token + '</span>';
      else if (match[3]) out += '<span class="tok-num">' + token + '</span>';
      else if (KEYWORDS.has(match[0])) out += '<span class="tok-kw">' + token + '</span>';
      else if (match[4]) out += '<span class="tok-fn">' + token + '</span>';
      else out += token;
    }
    return out + esc(code.slice(last));
  }

  function diffClass(line) {
    if (line.startsWith('@@')) return 'hunk';
    if (line.startsWith('+')) return 'add';
    if (line.startsWith('-')) return 'del';
    return 'ctx';
  }

  function highlightDiff(code) {
    return code
      .split('\n')
      .map((line) => '<span class="d-' + diffClass(line) + '">' + esc(line) + '</span>')
      .join('\n');
  }

  function diffBlock(lines, className) {
    const pre = el('pre', 'diff ' + (className || ''));
    for (const line of arr(lines)) {
      const text = str(line);
      pre.appendChild(el('div', 'd-' + diffClass(text), text || ' '));
    }
    return pre;
  }

  // ------------------------------------------------------------------ markdown

  function inline(text) {
    const codes = [];
    let s = String(text).replace(/`([^`\n]+)`/g, (_, code) => {
      codes.push('<code>' + esc(code) + '</code>');
      return '\u0000' + (codes.length - 1) + '\u0000';
    });
    s = esc(s);
    s = s.replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, (_, label, url) => '<a href="' + url + '">' + label + '</a>');
    s = s.replace(/\*\*([^*\n]+)\*\*/g, '<strong>$1</strong>');
    s = s.replace(/__([^_\n]+)__/g, '<strong>$1</strong>');
    s = s.replace(/(^|[^*\w])\*([^*\n]+)\*(?!\w)/g, '$1<em>$2</em>');
    s = s.replace(/(^|[^_\w])_([^_\n]+)_(?!\w)/g, '$1<em>$2</em>');
    s = s.replace(/~~([^~\n]+)~~/g, '<del>$1</del>');
    return s.replace(/\u0000(\d+)\u0000/g, (_, i) => codes[Number(i)]);
  }

  function codeBlock(code, lang) {
    return (
      '<div class="code"><div class="code-head"><span class="lang">' +
      esc(lang || 'text') +
      '</span><span class="spacer"></span><button class="code-btn" data-action="copy" title="Copy">Copy</button>' +
      '<button class="code-btn" data-action="insert" title="Insert at cursor">Insert</button></div>' +
      '<pre><code class="language-' +
      esc(lang || 'text') +
      '">' +
      highlight(code, lang) +
      '</code></pre></div>'
    );
  }

  function splitRow(line) {
    let s = line.trim();
    if (s.startsWith('|')) s = s.slice(1);
    if (s.endsWith('|')) s = s.slice(0, -1);
    return s.split('|').map((c) => c.trim());
  }

  const TABLE_SEP = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
  const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
  const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;

  function renderMarkdown(src) {
    const lines = String(src).replace(/\r\n/g, '\n').split('\n');
    const out = [];
    let para = [];
    const flush = () => {
      if (para.length) {
        out.push('<p>' + para.map(inline).join('<br>') + '</p>');
        para = [];
      }
    };
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      const fence = /^\s*(```+|~~~+)\s*([\w+#.-]*)/.exec(line);
      if (fence) {
        flush();
        const marker = fence[1];
        const body = [];
        i++;
        while (i < lines.length && !lines[i].trim().startsWith(marker)) body.push(lines[i++]);
        i++; // closing fence (or past the end while it streams)
        if (body.join('').trim()) out.push(codeBlock(body.join('\n'), fence[2]));
        continue;
      }
      if (!line.trim()) {
        flush();
        i++;
        continue;
      }
      if (RULE.test(line)) {
        flush();
        if (out[out.length - 1] !== '<hr>') out.push('<hr>');
        while (i < lines.length && (RULE.test(lines[i]) || !lines[i].trim())) i++;
        continue;
      }
      const heading = /^(#{1,6})\s+(.*)$/.exec(line);
      if (heading) {
        flush();
        const level = heading[1].length;
        out.push('<h' + level + '>' + inline(heading[2].replace(/\s+#+\s*$/, '')) + '</h' + level + '>');
        i++;
        continue;
      }
      if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1])) {
        flush();
        const head = splitRow(line);
        i += 2;
        let html = '<table><thead><tr>' + head.map((c) => '<th>' + inline(c) + '</th>').join('') + '</tr></thead><tbody>';
        while (i < lines.length && lines[i].includes('|') && lines[i].trim()) {
          html += '<tr>' + splitRow(lines[i]).map((c) => '<td>' + inline(c) + '</td>').join('') + '</tr>';
          i++;
        }
        out.push(html + '</tbody></table>');
        continue;
      }
      if (/^\s*>/.test(line)) {
        flush();
        const quoted = [];
        while (i < lines.length && /^\s*>/.test(lines[i])) quoted.push(lines[i++].replace(/^\s*>\s?/, ''));
        out.push('<blockquote>' + renderMarkdown(quoted.join('\n')) + '</blockquote>');
        continue;
      }
      if (LIST_ITEM.test(line)) {
        flush();
        const ordered = /^\s*\d/.test(line);
        let html = ordered ? '<ol>' : '<ul>';
        while (i < lines.length && LIST_ITEM.test(lines[i])) {
          const m = LIST_ITEM.exec(lines[i]);
          const depth = Math.min(4, Math.floor(m[1].replace(/\t/g, '  ').length / 2));
          let body = m[3];
          let cls = depth ? 'depth-' + depth : '';
          const task = /^\[([ xX])\]\s+(.*)$/.exec(body);
          if (task) {
            body = (task[1] === ' ' ? '☐ ' : '☑ ') + task[2];
            cls += ' task';
          }
          html += '<li' + (cls ? ' class="' + cls.trim() + '"' : '') + '>' + inline(body) + '</li>';
          i++;
          // continuation lines of the item
          while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !LIST_ITEM.test(lines[i])) {
            html = html.replace(/<\/li>$/, '<br>' + inline(lines[i].trim()) + '</li>');
            i++;
          }
        }
        out.push(html + (ordered ? '</ol>' : '</ul>'));
        continue;
      }
      para.push(line);
      i++;
    }
    flush();
    return out.join('');
  }

  // --------------------------------------------------------------------- state

  let working = false;
  let turnStarted = false;
  let current = null; // {kind: 'content'|'thinking', el, text}
  let toolGroup = null;
  let pendingTools = [];
  let skills = [];
  let approve = true;
  const agents = new Map();
  const tasks = new Map();
  const reviews = new Map();
  const asks = new Map();
  let renderQueued = false;
  const dirty = new Set();

  function setWorking(on) {
    working = on;
    $('working').classList.toggle('hidden', !on);
    $('stop').classList.toggle('hidden', !on);
    $('send').disabled = on;
    document.body.classList.toggle('busy', on);
  }

  function endSegments() {
    if (current && current.kind === 'thinking') {
      current.el.classList.remove('live');
      const summary = current.el.querySelector('summary');
      if (summary) summary.textContent = 'Thought';
    }
    current = null;
  }

  function breakToolGroup() {
    toolGroup = null;
  }

  function queueRender(entry) {
    dirty.add(entry);
    if (renderQueued) return;
    renderQueued = true;
    const run = () => {
      renderQueued = false;
      for (const item of dirty) renderEntry(item);
      dirty.clear();
      scrollDown();
    };
    if (document.hidden) setTimeout(run, 16);
    else requestAnimationFrame(run);
  }

  function renderEntry(entry) {
    if (entry.kind === 'content') {
      entry.body.innerHTML = renderMarkdown(entry.text);
    } else {
      entry.body.textContent = entry.text;
      entry.body.scrollTop = entry.body.scrollHeight;
    }
  }

  function streamText(kind, text) {
    if (!text) return;
    if (!current || current.kind !== kind) {
      endSegments();
      breakToolGroup();
      if (kind === 'thinking') {
        const details = el('details', 'thinking live');
        details.appendChild(el('summary', '', 'Thinking…'));
        const body = el('div', 'thinking-body');
        details.appendChild(body);
        append(details);
        current = { kind, el: details, body, text: '' };
      } else {
        const msg = el('div', 'msg assistant');
        const body = el('div', 'md');
        msg.appendChild(body);
        append(msg);
        current = { kind, el: msg, body, text: '' };
      }
    }
    current.text += text;
    // whitespace-only fragments are kept in the text but not rendered alone
    if (current.text.trim()) queueRender(current);
  }

  function userMessage(text) {
    endSegments();
    breakToolGroup();
    const msg = el('div', 'msg user');
    msg.appendChild(el('div', 'text', text));
    append(msg);
  }

  function notice(text, kind) {
    endSegments();
    breakToolGroup();
    append(el('div', 'notice ' + (kind || 'info'), text));
  }

  // ------------------------------------------------------------------- tools

  function argSummary(args) {
    if (!args || typeof args !== 'object') return str(args);
    const parts = [];
    for (const [key, value] of Object.entries(args)) {
      let shown = typeof value === 'string' ? value : JSON.stringify(value);
      shown = str(shown).replace(/\s+/g, ' ');
      if (shown.length > 60) shown = shown.slice(0, 57) + '…';
      parts.push(key + '=' + shown);
      if (parts.join(' ').length > 120) break;
    }
    return parts.join(' ');
  }

  function firstLine(text) {
    const line = str(text).split('\n').find((l) => l.trim()) || '';
    return line.length > 80 ? line.slice(0, 77) + '…' : line;
  }

  function toolStart(ev) {
    endSegments();
    if (!toolGroup || toolGroup !== transcript.lastElementChild) {
      toolGroup = append(el('div', 'tool-group'));
    }
    const row = el('details', 'tool running');
    const summary = el('summary');
    summary.appendChild(el('span', 'status', '⋯'));
    summary.appendChild(el('span', 'tool-name', str(ev.name)));
    summary.appendChild(el('span', 'tool-args', argSummary(ev.args)));
    summary.appendChild(el('span', 'tool-res'));
    row.appendChild(summary);
    const body = el('div', 'tool-body');
    body.appendChild(el('div', 'label', 'arguments'));
    body.appendChild(el('pre', 'tool-argjson', JSON.stringify(ev.args, null, 2)));
    row.appendChild(body);
    toolGroup.appendChild(row);
    toolGroup.scrollTop = toolGroup.scrollHeight;
    pendingTools.push({ name: str(ev.name), row });
    scrollDown();
  }

  function toolResult(ev) {
    endSegments();
    let index = pendingTools.findIndex((p) => p.name === str(ev.name));
    if (index < 0 && pendingTools.length) index = 0;
    let row;
    if (index >= 0) {
      row = pendingTools.splice(index, 1)[0].row;
    } else {
      // a result without a start: show it on its own
      toolStart({ name: ev.name, args: {} });
      row = pendingTools.pop().row;
    }
    const ok = ev.ok === true;
    row.classList.remove('running');
    row.classList.add(ok ? 'ok' : 'err');
    row.querySelector('.status').textContent = ok ? '✓' : '✗';
    const preview = str(ev.preview);
    row.querySelector('.tool-res').textContent = preview.trim() ? '→ ' + firstLine(preview) : '';
    const body = row.querySelector('.tool-body');
    body.appendChild(el('div', 'label', 'output'));
    body.appendChild(el('pre', 'tool-output', preview));
    scrollDown();
  }

  function editDiff(ev) {
    endSegments();
    breakToolGroup();
    const card = el('details', 'card edit-diff');
    card.open = true;
    const summary = el('summary');
    summary.appendChild(el('span', 'icon', '✎'));
    summary.appendChild(el('span', 'path', str(ev.path)));
    summary.appendChild(el('span', 'added', '+' + num(ev.added)));
    summary.appendChild(el('span', 'removed', '−' + num(ev.removed)));
    card.appendChild(summary);
    card.appendChild(diffBlock(ev.diff));
    append(card);
  }

  // ------------------------------------------------------------ interaction

  function askCard(ev) {
    endSegments();
    breakToolGroup();
    const card = el('div', 'card ask');
    card.dataset.id = String(ev.id);
    card.appendChild(el('div', 'question', str(ev.question)));
    const detail = arr(ev.detail);
    if (detail.length) card.appendChild(diffBlock(detail, 'detail'));
    const buttons = el('div', 'choices');
    const choices = arr(ev.choices).map(str);
    const answer = (text, button) => {
      if (card.classList.contains('answered')) return;
      vscode.postMessage({ type: 'answer', id: ev.id, text });
      card.classList.add('answered');
      for (const b of card.querySelectorAll('button, input')) b.disabled = true;
      if (button) button.classList.add('chosen');
      card.appendChild(el('div', 'answer', '→ ' + (text || '(empty)')));
    };
    if (choices.length) {
      choices.forEach((choice, i) => {
        const button = el('button', 'choice' + (i === 0 ? '' : ' secondary'), choice);
        button.addEventListener('click', () => answer(choice, button));
        buttons.appendChild(button);
      });
    } else {
      const field = el('input', 'free');
      field.type = 'text';
      field.placeholder = 'Type an answer…';
      const button = el('button', 'choice', 'Answer');
      button.addEventListener('click', () => answer(field.value, button));
      field.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') answer(field.value, button);
      });
      buttons.appendChild(field);
      buttons.appendChild(button);
    }
    card.appendChild(buttons);
    asks.set(ev.id, card);
    append(card);
  }

  function reviewCard(ev) {
    endSegments();
    breakToolGroup();
    const hunks = arr(ev.segments).filter((s) => s && s.same === false).length || 1;
    const card = el('div', 'card review pending');
    card.dataset.id = String(ev.id);
    const head = el('div', 'review-head');
    head.appendChild(el('span', 'icon', '±'));
    head.appendChild(el('span', 'path', str(ev.path)));
    head.appendChild(el('span', 'meta', str(ev.tool) + ' · ' + hunks + ' hunk' + (hunks === 1 ? '' : 's')));
    card.appendChild(head);
    const state = el('div', 'review-state', 'Review the diff: accept or reject each hunk.');
    card.appendChild(state);
    const buttons = el('div', 'choices');
    for (const [action, label, cls] of [
      ['apply', 'Apply', 'choice'],
      ['open', 'Open diff', 'choice secondary'],
      ['reject', 'Reject', 'choice secondary'],
    ]) {
      const button = el('button', cls, label);
      button.dataset.action = action;
      button.addEventListener('click', () => vscode.postMessage({ type: 'review', id: ev.id, action }));
      buttons.appendChild(button);
    }
    card.appendChild(buttons);
    reviews.set(ev.id, { card, state, total: hunks });
    append(card);
  }

  function reviewState(id, stateName, accepted, total) {
    const review = reviews.get(id);
    if (!review) return;
    const { card, state } = review;
    if (!card.classList.contains('pending')) return;
    const t = total || review.total;
    if (stateName === 'pending') {
      state.textContent = 'Apply ' + accepted + '/' + t + ' hunks';
      return;
    }
    card.classList.remove('pending');
    card.classList.add(stateName);
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    state.textContent =
      stateName === 'applied'
        ? '✓ applied ' + accepted + '/' + t + ' hunks'
        : stateName === 'rejected'
          ? '✗ rejected'
          : 'cancelled — the turn ended before a decision';
  }

  // ----------------------------------------------------------- plan, status

  function renderPlan(items) {
    items = arr(items);
    planBox.innerHTML = '';
    planBox.classList.toggle('hidden', items.length === 0);
    if (!items.length) return;
    const done = items.filter((i) => i && i.done).length;
    const head = el('div', 'plan-head');
    head.appendChild(el('span', '', 'Plan'));
    head.appendChild(el('span', 'progress', done + '/' + items.length));
    planBox.appendChild(head);
    const list = el('ul', 'checklist');
    for (const item of items) {
      const li = el('li', item && item.done ? 'done' : '');
      li.appendChild(el('span', 'box', item && item.done ? '☑' : '☐'));
      li.appendChild(el('span', 'text', str(item && item.text)));
      list.appendChild(li);
    }
    planBox.appendChild(list);
  }

  function renderContext(used, limit) {
    const pill = $('ctx');
    const ratio = limit > 0 ? used / limit : 0;
    const pct = Math.round(ratio * 100);
    pill.textContent = 'ctx ' + pct + '%';
    pill.title = used.toLocaleString() + ' / ' + limit.toLocaleString() + ' tokens';
    pill.classList.remove('ctx-green', 'ctx-amber', 'ctx-red');
    pill.classList.add(ratio < 0.6 ? 'ctx-green' : ratio < 0.85 ? 'ctx-amber' : 'ctx-red');
  }

  function renderApproval(on) {
    approve = on !== false;
    const button = $('approval');
    button.textContent = approve ? '🔒 approve' : '⚡ auto';
    button.classList.toggle('auto', !approve);
    button.title = approve
      ? 'Approval mode: rift asks before writes, edits and commands. Click for auto.'
      : 'Auto mode: writes, edits and commands apply without asking. Click to require approval.';
  }

  function updateRunning() {
    let n = 0;
    for (const a of agents.values()) if (a.running) n++;
    for (const t of tasks.values()) if (t.running) n++;
    const pill = $('running');
    pill.textContent = '↻ ' + n + ' running';
    pill.classList.toggle('hidden', n === 0);
  }

  function agentCard(tag) {
    let agent = agents.get(tag);
    if (!agent) {
      endSegments();
      breakToolGroup();
      const card = el('div', 'card agent running');
      const head = el('div', 'agent-head');
      head.appendChild(el('span', 'dot'));
      head.appendChild(el('span', 'tag', tag));
      const model = el('span', 'model');
      head.appendChild(model);
      card.appendChild(head);
      const label = el('div', 'label');
      card.appendChild(label);
      const feed = el('div', 'feed');
      card.appendChild(feed);
      const status = el('div', 'agent-status', 'running…');
      card.appendChild(status);
      agent = { card, model, label, feed, status, running: true };
      agents.set(tag, agent);
      append(card);
    }
    return agent;
  }

  function taskCard(ev) {
    const id = String(ev.id);
    let task = tasks.get(id);
    if (!task) {
      endSegments();
      breakToolGroup();
      const card = el('div', 'card task running');
      const head = el('div', 'agent-head');
      head.appendChild(el('span', 'dot'));
      head.appendChild(el('span', 'tag', 'task #' + id));
      const label = el('span', 'label', str(ev.label));
      head.appendChild(label);
      card.appendChild(head);
      const status = el('div', 'agent-status', 'running in the background…');
      card.appendChild(status);
      task = { card, label, status, running: true };
      tasks.set(id, task);
      append(card);
    }
    return task;
  }

  // ---------------------------------------------------------------- dispatch

  const handlers = {
    ready(ev) {
      $('model').textContent = str(ev.model) || 'model';
      $('model').title = 'Model ' + str(ev.model) + ' — click to switch' + (ev.version ? ' (rift ' + str(ev.version) + ')' : '');
      skills = arr(ev.skills).filter((s) => s && typeof s.name === 'string');
      if (typeof ev.approve === 'boolean') renderApproval(ev.approve);
    },
    capabilities(ev) {
      if (typeof ev.approve === 'boolean') renderApproval(ev.approve);
    },
    context(ev) {
      renderContext(num(ev.used), num(ev.limit));
    },
    history(ev) {
      for (const m of arr(ev.messages)) {
        if (!m) continue;
        if (m.role === 'user') userMessage(str(m.text));
        else {
          streamText('content', str(m.text));
          endSegments();
        }
      }
      notice('— resumed session —', 'info');
    },
    iteration() {
      turnStarted = true;
    },
    thinking(ev) {
      turnStarted = true;
      streamText('thinking', str(ev.text));
    },
    content(ev) {
      turnStarted = true;
      streamText('content', str(ev.text));
    },
    tool_start(ev) {
      turnStarted = true;
      toolStart(ev);
    },
    tool_result: toolResult,
    edit_diff: editDiff,
    plan(ev) {
      renderPlan(ev.items);
    },
    ask: askCard,
    edit_review: reviewCard,
    edit_review_closed(ev) {
      reviewState(ev.id, 'cancelled', 0, 0);
    },
    done(ev) {
      endSegments();
      breakToolGroup();
      for (const pending of pendingTools) {
        pending.row.classList.remove('running');
        pending.row.querySelector('.status').textContent = '·';
      }
      pendingTools = [];
      const s = ev.stats || {};
      const parts = [];
      if (num(s.iterations)) parts.push(num(s.iterations) + ' step' + (num(s.iterations) === 1 ? '' : 's'));
      if (num(s.duration_ms)) parts.push((num(s.duration_ms) / 1000).toFixed(1) + ' s');
      if (num(s.output_tokens)) parts.push(num(s.output_tokens) + ' tokens');
      if (num(s.tokens_per_sec)) parts.push(num(s.tokens_per_sec).toFixed(1) + ' tok/s');
      if (parts.length) append(el('div', 'stats', parts.join(' · ')));
      setWorking(false);
      turnStarted = false;
    },
    model_changed(ev) {
      $('model').textContent = str(ev.model);
      notice('Model switched to ' + str(ev.model) + (ev.note ? ' — ' + str(ev.note) : ''), 'info');
    },
    approval_changed(ev) {
      renderApproval(ev.approve);
      notice(
        ev.approve === false
          ? '⚡ auto: edits and commands now apply without asking'
          : '🔒 approve: rift asks before writes, edits and commands',
        ev.approve === false ? 'warn' : 'info'
      );
    },
    info(ev) {
      notice(str(ev.text), 'info');
    },
    warning(ev) {
      notice(str(ev.text), 'warn');
      // a prompt that never became a turn (e.g. an unknown skill) gets no done
      if (working && !turnStarted) setWorking(false);
    },
    subagent_started(ev) {
      const agent = agentCard(str(ev.tag));
      agent.model.textContent = str(ev.model);
      agent.label.textContent = str(ev.label);
      updateRunning();
    },
    subagent(ev) {
      const agent = agentCard(str(ev.tag));
      const line = el('div', ev.warn ? 'line warn' : 'line', str(ev.text));
      agent.feed.appendChild(line);
      while (agent.feed.childElementCount > 200) agent.feed.firstElementChild.remove();
      agent.feed.scrollTop = agent.feed.scrollHeight;
    },
    subagent_finished(ev) {
      const agent = agentCard(str(ev.tag));
      agent.running = false;
      agent.card.classList.remove('running');
      agent.card.classList.add('finished');
      agent.status.textContent = '✓ finished in ' + num(ev.steps) + ' step' + (num(ev.steps) === 1 ? '' : 's');
      updateRunning();
    },
    task_started(ev) {
      taskCard(ev);
      updateRunning();
    },
    task_finished(ev) {
      const task = taskCard(ev);
      task.running = false;
      task.card.classList.remove('running');
      task.card.classList.add(ev.ok ? 'finished' : 'failed');
      task.status.textContent = (ev.ok ? '✓ finished' : '✗ failed') + (ev.preview ? ':' : '');
      if (ev.preview) task.card.appendChild(el('pre', 'tool-output', str(ev.preview)));
      updateRunning();
    },
  };

  function handleEvent(ev) {
    if (!ev || typeof ev !== 'object' || typeof ev.event !== 'string') return;
    const handler = Object.prototype.hasOwnProperty.call(handlers, ev.event) ? handlers[ev.event] : null;
    if (!handler) return; // unknown events are ignored (protocol v1)
    try {
      handler(ev);
    } catch (err) {
      console.error('rift webview: failed to render', ev.event, err);
    }
  }

  function reset() {
    transcript.innerHTML = '';
    const empty = el('div', 'empty');
    empty.id = 'empty';
    empty.textContent = 'Ask rift to read, edit or run something. / for skills, @ for files.';
    transcript.appendChild(empty);
    current = null;
    toolGroup = null;
    pendingTools = [];
    agents.clear();
    tasks.clear();
    reviews.clear();
    asks.clear();
    renderPlan([]);
    updateRunning();
    setWorking(false);
    turnStarted = false;
  }

  window.addEventListener('message', (e) => {
    const msg = e.data;
    if (!msg || typeof msg !== 'object') return;
    switch (msg.type) {
      case 'event':
        handleEvent(msg.event);
        break;
      case 'events':
        for (const ev of arr(msg.events)) handleEvent(ev);
        break;
      case 'reset':
        reset();
        break;
      case 'user':
        userMessage(str(msg.text));
        break;
      case 'working':
        setWorking(msg.on === true);
        if (msg.on) turnStarted = false;
        break;
      case 'status': {
        const level = msg.level === 'warn' || msg.level === 'error' ? msg.level : 'info';
        notice(str(msg.text), level);
        if (msg.settings) {
          // rift could not start: the fix is almost always a setting
          const open = el('button', 'secondary', 'Open Settings');
          open.addEventListener('click', () => vscode.postMessage({ type: 'openSettings' }));
          transcript.lastElementChild.appendChild(open);
        }
        if (level !== 'info') setWorking(false);
        break;
      }
      case 'reviewState':
        reviewState(msg.id, str(msg.state), num(msg.accepted), num(msg.total));
        break;
      case 'insertText':
        insertAtCaret(str(msg.text));
        input.focus();
        break;
      case 'mentionResult':
        if (msg.path) insertAtCaret(str(msg.path) + ' ');
        input.focus();
        break;
      case 'focus':
        input.focus();
        break;
    }
  });

  // ---------------------------------------------------------------- composer

  function insertAtCaret(text) {
    const start = input.selectionStart ?? input.value.length;
    const end = input.selectionEnd ?? start;
    const before = input.value.slice(0, start);
    const pad = before && !/\s$/.test(before) && text.startsWith('@') ? ' ' : '';
    input.value = before + pad + text + input.value.slice(end);
    const caret = start + pad.length + text.length;
    input.setSelectionRange(caret, caret);
  }

  function send() {
    const text = input.value.trim();
    if (!text || working) return;
    closeCompletion();
    userMessage(text);
    setWorking(true);
    turnStarted = false;
    vscode.postMessage({ type: 'prompt', text });
    input.value = '';
    stick = true;
    scrollDown();
  }

  let completion = { open: false, items: [], index: 0 };

  function closeCompletion() {
    completion = { open: false, items: [], index: 0 };
    completeBox.classList.add('hidden');
    completeBox.innerHTML = '';
  }

  function slashWord() {
    const value = input.value;
    const caret = input.selectionStart ?? value.length;
    if (!value.startsWith('/')) return null;
    const end = value.search(/\s/);
    const wordEnd = end < 0 ? value.length : end;
    if (caret > wordEnd) return null;
    return value.slice(0, wordEnd);
  }

  function updateCompletion() {
    const word = slashWord();
    if (word === null || !skills.length) return closeCompletion();
    const typed = word.replace(/^\/(skill:)?/, '').toLowerCase();
    const items = skills.filter((s) => s.name.toLowerCase().startsWith(typed) || s.name.toLowerCase().includes(typed));
    if (!items.length) return closeCompletion();
    completion = { open: true, items, index: Math.min(completion.index, items.length - 1) };
    completeBox.innerHTML = '';
    items.forEach((skill, i) => {
      const row = el('div', 'item' + (i === completion.index ? ' active' : ''));
      row.setAttribute('role', 'option');
      row.appendChild(el('span', 'name', '/skill:' + skill.name));
      row.appendChild(el('span', 'desc', str(skill.description)));
      row.addEventListener('mousedown', (e) => {
        e.preventDefault();
        completion.index = i;
        acceptCompletion();
      });
      completeBox.appendChild(row);
    });
    completeBox.classList.remove('hidden');
  }

  function acceptCompletion() {
    const skill = completion.items[completion.index];
    if (!skill) return;
    const value = input.value;
    const end = value.search(/\s/);
    const rest = end < 0 ? '' : value.slice(end).replace(/^\s+/, '');
    input.value = '/skill:' + skill.name + ' ' + rest;
    const caret = ('/skill:' + skill.name + ' ').length;
    input.setSelectionRange(caret, caret);
    closeCompletion();
  }

  input.addEventListener('keydown', (e) => {
    if (completion.open) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const n = completion.items.length;
        completion.index = (completion.index + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
        updateCompletion();
        return;
      }
      if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey)) {
        e.preventDefault();
        acceptCompletion();
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        closeCompletion();
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  });

  input.addEventListener('input', (e) => {
    updateCompletion();
    if (e.inputType === 'insertText' && e.data === '@') {
      const caret = input.selectionStart ?? 0;
      const before = input.value.slice(0, caret - 1);
      if (!before || /\s$/.test(before)) vscode.postMessage({ type: 'mention' });
    }
  });
  input.addEventListener('blur', () => setTimeout(closeCompletion, 100));

  $('send').addEventListener('click', send);
  $('stop').addEventListener('click', () => vscode.postMessage({ type: 'cancel' }));
  $('approval').addEventListener('click', () => vscode.postMessage({ type: 'toggleApproval', approve: !approve }));
  $('model').addEventListener('click', () => vscode.postMessage({ type: 'pickModel' }));
  $('undo').addEventListener('click', () => vscode.postMessage({ type: 'undo' }));
  $('history').addEventListener('click', () => vscode.postMessage({ type: 'history' }));
  $('new').addEventListener('click', () => vscode.postMessage({ type: 'newSession' }));

  // copy / insert buttons on code blocks
  transcript.addEventListener('click', (e) => {
    const button = e.target instanceof Element ? e.target.closest('.code-btn') : null;
    if (!button) return;
    const code = button.closest('.code').querySelector('code');
    const text = code ? code.textContent : '';
    const action = button.dataset.action;
    vscode.postMessage({ type: action === 'insert' ? 'insert' : 'copy', text });
    const label = button.textContent;
    button.textContent = action === 'insert' ? 'Inserted' : 'Copied';
    setTimeout(() => (button.textContent = label), 1200);
  });

  // exposed for the browser test and for debugging in the webview devtools
  window.riftChat = { renderMarkdown, highlight, handleEvent };

  renderApproval(true);
  vscode.postMessage({ type: 'webviewReady' });
})();
