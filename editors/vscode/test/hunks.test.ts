/**
 * Hunk reassembly: units matching rift's core/hunks.py, then a partial review
 * over the wire where the file on disk must equal the reassembled text.
 */

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { HunkSelection, hunkCount, layout, reassemble, Segment, segmentsOf } from '../src/hunks';
import { FakeServer, Sandbox, sandbox, startFakeServer, startRift, toolCall } from './support';

const same = (...lines: string[]): Segment => ({ same: true, lines });
const change = (old: string[], neu: string[]): Segment => ({ same: false, old, new: neu });

// "one\ntwo\nthree\nfour\nfive\nsix\n" → "one\nTWO\nthree\nfour\nFIVE\nsix\nseven\n"
const SEGMENTS: Segment[] = [
  same('one'),
  change(['two'], ['TWO']),
  same('three', 'four'),
  change(['five'], ['FIVE']),
  same('six'),
  change([], ['seven']),
  same(''),
];
const OLD = 'one\ntwo\nthree\nfour\nfive\nsix\n';
const NEW = 'one\nTWO\nthree\nfour\nFIVE\nsix\nseven\n';

describe('hunk reassembly', () => {
  test('all accepted gives the new text, none the old, byte for byte', () => {
    assert.equal(hunkCount(SEGMENTS), 3);
    assert.equal(reassemble(SEGMENTS, [true, true, true]), NEW);
    assert.equal(reassemble(SEGMENTS, [false, false, false]), OLD);
  });

  test('a partial choice mixes sides per hunk', () => {
    assert.equal(reassemble(SEGMENTS, [true, false, true]), 'one\nTWO\nthree\nfour\nfive\nsix\nseven\n');
    assert.equal(reassemble(SEGMENTS, [false, true, false]), 'one\ntwo\nthree\nfour\nFIVE\nsix\n');
  });

  test('a short mask counts missing entries as rejected', () => {
    assert.equal(reassemble(SEGMENTS, [true]), 'one\nTWO\nthree\nfour\nfive\nsix\n');
    assert.equal(reassemble(SEGMENTS, []), OLD);
  });

  test('creating and emptying a file', () => {
    const create: Segment[] = [change([], ['x', 'y'])];
    assert.equal(reassemble(create, [true]), 'x\ny');
    assert.equal(reassemble(create, [false]), '');
    const wipe: Segment[] = [change(['a', ''], [])];
    assert.equal(reassemble(wipe, [true]), '');
    assert.equal(reassemble(wipe, [false]), 'a\n');
  });

  test('layout places each hunk in the reviewed document', () => {
    const { text, spans } = layout(SEGMENTS, [true, false, true]);
    assert.equal(text, 'one\nTWO\nthree\nfour\nfive\nsix\nseven\n');
    assert.deepEqual(spans, [
      { hunk: 0, start: 1, count: 1, accepted: true },
      { hunk: 1, start: 4, count: 1, accepted: false },
      { hunk: 2, start: 6, count: 1, accepted: true },
    ]);
    const deletion = layout([same('a'), change(['b', 'c'], []), same('d')], [true]);
    assert.deepEqual(deletion.spans, [{ hunk: 0, start: 1, count: 0, accepted: true }]);
    assert.equal(layout(SEGMENTS, [true, true, true], 'old').text, OLD);
  });

  test('HunkSelection toggles and labels', () => {
    const selection = new HunkSelection(SEGMENTS);
    assert.equal(selection.applyLabel(), 'Apply 3/3 hunks');
    selection.toggle(1);
    assert.equal(selection.applyLabel(), 'Apply 2/3 hunks');
    assert.equal(selection.content(), 'one\nTWO\nthree\nfour\nfive\nsix\nseven\n');
    selection.toggle(7); // out of range: no effect
    selection.setAll(false);
    assert.equal(selection.content(), OLD);
    assert.equal(new HunkSelection([change(['a'], ['b'])]).applyLabel(), 'Apply 1/1 hunk');
  });

  test('without segments (older rift) the review is one whole-file hunk', () => {
    const segments = segmentsOf({ old: 'a\nb', new: 'a\nc' });
    assert.deepEqual(segments, [change(['a', 'b'], ['a', 'c'])]);
    assert.deepEqual(segmentsOf({ old: '', new: 'x\n' }), [change([], ['x', ''])]);
    assert.deepEqual(segmentsOf({ old: 'same', new: 'same' }), [same('same')]);
    assert.deepEqual(segmentsOf({ old: 'a', new: 'b', segments: [{ bogus: true }] }), [change(['a'], ['b'])]);
    assert.deepEqual(segmentsOf({ old: OLD, new: NEW, segments: SEGMENTS }), SEGMENTS);
  });
});

describe('edit review against a real rift --serve', () => {
  let box: Sandbox;
  let server: FakeServer;

  before(async () => {
    box = sandbox();
    server = await startFakeServer(
      {
        turns: [
          { match: 'TIDY-NOTES', tool_calls: [toolCall('write', { path: 'notes.txt', content: NEW })] },
          { match: 'TIDY-NOTES', content: 'tidied' },
          { match: 'CANCEL-ME', tool_calls: [toolCall('write', { path: 'other.txt', content: 'x\n' })] },
        ],
      },
      box.root,
    );
  });

  after(async () => {
    await server?.stop();
    box?.cleanup();
  });

  test('a partial hunk selection writes exactly the reassembled text', { timeout: 30_000 }, async () => {
    const file = path.join(box.project, 'notes.txt');
    fs.writeFileSync(file, OLD);
    const { client, log } = startRift(server, box, { hello: { edit_review: true, approve: true } });
    try {
      await log.next('capabilities', (c) => c.edit_review === true);
      client.prompt('please TIDY-NOTES');
      const review = await log.next('edit_review');
      assert.equal(review.tool, 'write');
      assert.equal(review.path, 'notes.txt');
      assert.equal(review.old, OLD);
      assert.equal(review.new, NEW);
      assert.equal(fs.readFileSync(file, 'utf8'), OLD, 'nothing written before the decision');
      const segments = segmentsOf(review);
      const selection = new HunkSelection(segments);
      assert.equal(selection.total, 3);
      // rift's own segments reassemble to both sides
      assert.equal(reassemble(segments, [true, true, true]), review.new);
      assert.equal(reassemble(segments, []), review.old);
      selection.toggle(1); // reject FIVE, keep TWO and seven
      const content = selection.content();
      assert.equal(content, 'one\nTWO\nthree\nfour\nfive\nsix\nseven\n');
      client.editDecision(review.id, true, content);
      const result = await log.next('tool_result');
      assert.equal(result.ok, true, result.preview);
      const diff = await log.next('edit_diff');
      assert.equal(diff.path, 'notes.txt');
      assert.ok(diff.diff.includes('+TWO') && !diff.diff.includes('+FIVE'), diff.diff.join('\n'));
      await log.next('done');
      assert.equal(fs.readFileSync(file, 'utf8'), content);
    } finally {
      await client.close();
    }
  });

  test('cancel closes an undecided review with edit_review_closed', { timeout: 30_000 }, async () => {
    const { client, log } = startRift(server, box);
    try {
      await log.next('capabilities');
      client.prompt('CANCEL-ME');
      const review = await log.next('edit_review');
      client.cancel();
      const closed = await log.next('edit_review_closed');
      assert.equal(closed.id, review.id);
      await log.next('done');
      assert.equal(fs.existsSync(path.join(box.project, 'other.txt')), false);
    } finally {
      await client.close();
    }
  });
});
