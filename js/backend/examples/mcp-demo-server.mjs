// A small MCP server over stdio, built on the official SDK: the demo seeds it (scripts/demo/mcp-servers.json)
// and the backend tests use it:
// - `echo` (read-only): answers "echo: <text>"; the text "__exit__" makes the process exit (code 3)
//   in the middle of the call, as a crashing server would, and "__hang__" makes it never answer;
// - `note` (no read-only hint, so a writing tool): takes a `path` and `content` and only says what it
//   was given (the test checks it is never reached when writes are not permitted);
// - `whoami`: the process's uid, its pid namespace and the network interfaces it sees.
// Over stdio by default; with `--http <port>` it serves the streamable HTTP transport on 127.0.0.1 (stateless:
// one server per request) and prints `listening on <url>`.
import { readFileSync, readlinkSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer } from 'node:http';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const TOOLS = [
  {
    name: 'echo',
    description: 'Echo a text back.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'note',
    description: 'Write a note to a file.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false },
  },
  { name: 'whoami', description: 'Who runs this server.', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
];

const text = t => ({ content: [{ type: 'text', text: t }] });

function makeServer() {
  const server = new Server({ name: 'fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async req => {
    const args = req.params.arguments ?? {};
    switch (req.params.name) {
      case 'echo':
        if (args.text === '__exit__') {
          process.stderr.write('fixture: exiting as asked\n');
          process.exit(3);
        }
        // never answers: the client's time limit is what ends the call
        if (args.text === '__hang__') return new Promise(() => {});
        return text(`echo: ${args.text}`);
      case 'note':
        return text(`note for ${args.path}: ${String(args.content).length} characters`);
      case 'whoami': {
        const interfaces = readFileSync('/proc/net/dev', 'utf8')
          .split('\n')
          .slice(2)
          .map(l => l.split(':')[0].trim())
          .filter(Boolean);
        return text(JSON.stringify({ uid: process.getuid(), pidns: readlinkSync('/proc/self/ns/pid'), interfaces }));
      }
      default:
        return { ...text(`no tool ${req.params.name}`), isError: true };
    }
  });
  return server;
}

const http = process.argv.indexOf('--http');
if (http === -1) {
  await makeServer().connect(new StdioServerTransport());
} else {
  const web = createServer(async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => transport.close());
    await makeServer().connect(transport);
    await transport.handleRequest(req, res);
  });
  web.listen(Number(process.argv[http + 1] ?? 0), '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${web.address().port}/mcp\n`);
  });
}
