/**
 * Records the event stream the browser test replays (test/fixtures/events.jsonl):
 * a real `rift --serve` session against the fake model server, plus a few
 * hand-written events at the end for things the fake model cannot easily
 * drive (sub-agent and background-task cards, a pending edit review, an
 * event from the future).
 *
 *   npm run compile && node out/test/record.js > test/fixtures/events.jsonl
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

import { RawEvent } from '../src/events';
import { sandbox, startFakeServer, startRift, toolCall } from './support';

const FINAL = [
  '## Done',
  '',
  'I added `add()` to **calc.py** and checked it:',
  '',
  '```python',
  'def add(a, b):',
  '    """Sum two numbers."""',
  '    return a + b  # simple',
  '```',
  '',
  '| step | result |',
  '|---|---|',
  '| write | ok |',
  '| run | 3 |',
  '',
  '- tests pass',
  '- nothing else changed',
].join('\n');

async function main(): Promise<void> {
  const box = sandbox();
  fs.writeFileSync(path.join(box.project, 'calc.py'), 'def sub(a, b):\n    return a - b\n');
  const server = await startFakeServer(
    {
      turns: [
        {
          content: ["I'll plan this, ", 'then write the function.'],
          tool_calls: [
            toolCall('plan', { set: ['Read calc.py', 'Add add()', 'Run it'] }),
            toolCall('read', { path: 'calc.py' }),
          ],
        },
        {
          tool_calls: [
            toolCall('write', {
              path: 'calc.py',
              content: 'def sub(a, b):\n    return a - b\n\n\ndef add(a, b):\n    """Sum two numbers."""\n    return a + b\n',
            }),
            toolCall('plan', { done: 1 }),
            toolCall('plan', { done: 2 }),
          ],
        },
        { content: FINAL.match(/[\s\S]{1,40}/g) ?? [FINAL] },
      ],
    },
    box.root,
  );
  const { client, log } = startRift(server, box, { hello: { edit_review: false, approve: true } });
  try {
    await log.next('capabilities');
    client.prompt('Add an add() function to calc.py');
    const ask = await log.next('ask');
    const allow = ask.choices.find((c) => /allow once/i.test(c)) ?? ask.choices[0];
    // the fixture keeps this ask unanswered-looking for the page; answer it for rift
    client.answer(ask.id, allow);
    await log.next('done');
  } finally {
    await client.close();
    await server.stop();
    box.cleanup();
  }
  const recorded: RawEvent[] = log.events.filter((e) => e.event !== 'capabilities');
  const synthetic: RawEvent[] = [
    { event: 'subagent_started', tag: 'explore-1', model: 'fake-model', label: 'find the callers of sub()' },
    { event: 'subagent', tag: 'explore-1', text: 'grep "sub(" → 2 matches', warn: false },
    { event: 'subagent', tag: 'explore-1', text: 'read main.py', warn: false },
    { event: 'task_started', id: 1, label: 'pytest -q' },
    { event: 'task_finished', id: 1, label: 'pytest -q', ok: true, preview: '3 passed in 0.02s' },
    { event: 'from_the_future', anything: true },
    {
      event: 'edit_review',
      id: 99,
      tool: 'edit',
      path: 'main.py',
      old: 'print(sub(1, 2))\n',
      new: 'print(add(1, 2))\n',
      segments: [
        { same: false, old: ['print(sub(1, 2))'], new: ['print(add(1, 2))'] },
        { same: true, lines: [''] },
      ],
    },
  ];
  for (const event of [...recorded, ...synthetic]) {
    // temp paths would change on every recording
    process.stdout.write(JSON.stringify(event).split(box.root).join('/home/dev') + '\n');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
