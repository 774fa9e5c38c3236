'use strict';
/**
 * Images and audio of tool results for the model (src/agent/media.ts, src/runtime/mcp/servers.ts), without a
 * server: which parts an MCP result keeps as media (the 5 MB bound, malformed parts left as notes), where a
 * channel that sees images gets them (after each block of tool results, never between two results of one
 * answer), what a text channel reads instead, and that the messages given are not changed.
 */
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { withMedia, seesImages, IMAGE_NOT_SHOWN, AUDIO_NOT_PLAYED } = require('../dist/agent/media');
const { resultMedia, resultOutput, MEDIA_MAX_BYTES } = require('../dist/runtime/mcp/servers');

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const image = (data = PNG, mimeType = 'image/png') => ({ type: 'image', data, mimeType });

test('an MCP result keeps its images and audio as media up to 5 MB; a part past that, without data or type, or not base64 stays a note only', () => {
  const big = Buffer.alloc(MEDIA_MAX_BYTES - 10).toString('base64');
  const parts = [
    { type: 'text', text: 'hi' },
    image(),
    { type: 'audio', data: Buffer.alloc(30).toString('base64'), mimeType: 'audio/wav' },
    image(big), // past the bound with the two before it
    image('not base64!'),
    { type: 'image', data: PNG },
    { type: 'image', mimeType: 'image/png' },
  ];
  assert.deepEqual(
    resultMedia(parts).map(m => [m.type, m.mimeType, m.data.length]),
    [
      ['image', 'image/png', PNG.length],
      ['audio', 'audio/wav', 40],
    ]
  );
  // the bound counts decoded bytes: the big one alone fits
  assert.equal(resultMedia([image(big)]).length, 1);
  const out = resultOutput('s', { content: parts });
  assert.equal(out.media.length, 2);
  assert.match(out.output, /^hi\n\[image: image\/png, 70 bytes\]\n\[audio: audio\/wav, 30 bytes\]/);
  // a failed call carries no media; a result without image or audio has none
  assert.equal(resultOutput('s', { content: parts, isError: true }).media, undefined);
  assert.equal(resultOutput('s', { content: [{ type: 'text', text: 'x' }] }).media, undefined);
});

test('which channels see images is the package’s capability check', () => {
  assert.equal(seesImages('text'), false);
  assert.equal(seesImages(null), false);
  assert.equal(seesImages('vision'), true);
  assert.equal(seesImages('multimodal'), true);
  assert.equal(seesImages('x-ray'), false, 'a capability the package does not know: text only');
});

test('the images of a block of tool results follow the block; a text channel reads a note; nothing is changed in place', () => {
  const calls = (...ids) => ({
    role: 'assistant',
    content: null,
    tool_calls: ids.map(id => ({ id, type: 'function', function: { name: 'mcp__s__pic', arguments: '{}' } })),
  });
  const messages = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'look' },
    calls('a', 'b'),
    { role: 'tool', tool_call_id: 'a', content: 'first [image: image/png, 70 bytes]' },
    { role: 'tool', tool_call_id: 'b', content: 'second' },
    calls('c'),
    { role: 'tool', tool_call_id: 'c', content: 'third [image: image/jpeg, 70 bytes] [audio: audio/wav, 30 bytes]' },
  ];
  const before = JSON.stringify(messages);
  const media = new Map([
    ['a', [image()]],
    ['c', [image(PNG, 'image/jpeg'), { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }]],
  ]);

  const seen = withMedia(messages, media, 'vision');
  assert.deepEqual(
    seen.map(m => m.role),
    ['system', 'user', 'assistant', 'tool', 'tool', 'user', 'assistant', 'tool', 'user']
  );
  assert.deepEqual(seen[5].content, [
    { type: 'text', text: 'The images returned by the tool calls above:' },
    { type: 'text', text: 'Image 1 of tool call a (image/png):' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
  ]);
  assert.equal(seen[8].content[2].image_url.url, `data:image/jpeg;base64,${PNG}`);
  assert.equal(seen[8].content.length, 3, 'the audio is no image part');
  assert.equal(seen[3].content, messages[3].content, 'a result whose image is shown keeps its text');
  assert.equal(seen[7].content, `${messages[6].content}\n${AUDIO_NOT_PLAYED}`);

  const text = withMedia(messages, media, 'text');
  assert.deepEqual(
    text.map(m => m.role),
    ['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool']
  );
  assert.equal(text[3].content, `${messages[3].content}\n${IMAGE_NOT_SHOWN}`);
  assert.equal(text[6].content, `${messages[6].content}\n${IMAGE_NOT_SHOWN}\n${AUDIO_NOT_PLAYED}`);
  assert.ok(!JSON.stringify(text).includes('image_url'));

  assert.equal(JSON.stringify(messages), before);
  assert.deepEqual(withMedia(messages, new Map(), 'vision'), messages);
});
