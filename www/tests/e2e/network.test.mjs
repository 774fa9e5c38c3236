// The sandbox network in the chat (docs/runtime.md "Network"): a connection an `ask` rule covers waits
// while the page shows its approval card — the host, the rule that asked with its level — and goes on
// once allowed (the reply quotes what the test's server answered); a connection a `deny` rule refuses is
// named on its call's card, host and rule, in a sentence of the page's language, and again when the
// session is reopened (the refusals are kept with the call). The test's server
// listens on 127.0.0.1 (an address the ask rule names: an IP literal is reached only through such a
// rule); the denied name is refused before it is ever resolved. Nothing here reaches an outside address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { apiData, forFile, launch, notesWorkspace, open, scriptedChannel, uniqueName } from './helpers.mjs';
import { NET_PREFIX, NOTES } from './model-script.mjs';

forFile(scriptedChannel);
const browser = forFile(launch);
const workspace = forFile(() => notesWorkspace(NOTES));

let server;
let port;
const seen = [];
before(async () => {
  server = createServer((req, res) => {
    seen.push(req.url);
    res.end(`hello from the e2e server ${req.url}\n`);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  port = server.address().port;
});
after(() => {
  server.close();
  server.closeAllConnections();
});

const TITLE = { 'zh-CN': /网络连接在等待你的批准/, en: /A network connection waits for your approval/ };
const LEVEL = { 'zh-CN': 'Agent', en: 'agent' };
const REFUSED = {
  'zh-CN': (target, rule) => `网络：到 ${target} 的连接被规则 ${rule}（Agent规则）拒绝`,
  en: (target, rule) => `Network: the connection to ${target} was refused by the rule ${rule} (agent rules)`,
};

async function startChat(lang, message) {
  const agent = await apiData('POST', '/admin/netaclaw/agent/add', {
    name: uniqueName('net'),
    toolsets: ['base'],
    rules: { ask: [`net(127.0.0.1:${port})`], deny: ['net(denied.test)'] },
  });
  const page = await open(browser.context, `/agent/chat?agent=${agent.id}`, { lang });
  await page.getByTestId('chat-channel').waitFor();
  const form = page.getByTestId('chat-fields');
  await form.getByTestId('field-cwd').fill(workspace.path);
  await form.getByTestId('field-shell').click();
  await page.getByTestId('chat-input').fill(message);
  await page.getByTestId('chat-send').click();
  return page;
}

for (const lang of ['zh-CN', 'en']) {
  test(`${lang}: an asked connection shows its approval card while it waits; allowed, the request goes on`, async () => {
    const path = `/asked-${lang}`;
    const page = await startChat(lang, `${NET_PREFIX}http://127.0.0.1:${port}${path}`);
    const card = page.getByTestId('chat-approval');
    await card.waitFor({ timeout: 60_000 });
    assert.equal(await card.getAttribute('data-kind'), 'net');
    assert.match(await card.getByTestId('chat-approval-title').innerText(), TITLE[lang]);
    assert.equal(await card.getByTestId('chat-approval-subject').innerText(), `127.0.0.1:${port}`);
    const rule = await card.getByTestId('chat-approval-rule').innerText();
    assert.ok(rule.includes(`net(127.0.0.1:${port})`) && rule.includes(LEVEL[lang]), rule);
    // the turn runs on while the connection waits; nothing reached the server yet
    await page.getByTestId('chat-answering').waitFor();
    assert.ok(!seen.includes(path), seen.join(' '));
    await card.getByTestId('chat-approval-once').click();
    const reply = page.getByTestId('chat-transcript').getByTestId('msg-assistant').filter({ hasText: 'The fetch answered:' });
    await reply.waitFor({ timeout: 60_000 });
    assert.match(await reply.innerText(), new RegExp(`hello from the e2e server ${path}`));
    assert.ok(seen.includes(path));
    await page.getByTestId('chat-answering').waitFor({ state: 'detached' });
    assert.equal(await card.count(), 0, 'the approval is answered');
    await page.close();
  });

  test(`${lang}: a refused connection is named on its call's card, host and rule, live and reopened`, async () => {
    const page = await startChat(lang, `${NET_PREFIX}http://denied.test/e2e`);
    const reply = page.getByTestId('chat-transcript').getByTestId('msg-assistant').filter({ hasText: 'The fetch answered:' });
    await reply.waitFor({ timeout: 60_000 });
    const refusal = page.getByTestId('tool-card').getByTestId('tool-card-net-refusal');
    await refusal.waitFor();
    assert.equal(await refusal.getAttribute('data-host'), 'denied.test');
    assert.equal(await refusal.getAttribute('data-rule'), 'net(denied.test)');
    assert.equal((await refusal.innerText()).trim(), REFUSED[lang]('denied.test:80', 'net(denied.test)'));
    // the model read the refusal: the 403 the client got
    assert.match(await reply.innerText(), /netaclaw proxy: denied\.test:80 is refused: net\(denied\.test\)/);
    // reopened, the session's card names the refusal as the live one did (kept with the call)
    await page.waitForURL(/session=\d+/);
    const sessionId = Number(new URL(page.url().replace('#/', '')).searchParams.get('session'));
    const again = await open(browser.context, `/agent/chat?session=${sessionId}`, { lang });
    const kept = again.getByTestId('tool-card').getByTestId('tool-card-net-refusal');
    await kept.waitFor();
    assert.deepEqual(
      [await kept.getAttribute('data-host'), await kept.getAttribute('data-rule'), (await kept.innerText()).trim()],
      ['denied.test', 'net(denied.test)', REFUSED[lang]('denied.test:80', 'net(denied.test)')],
    );
    await again.close();
    await page.close();
  });
}
