#!/usr/bin/env node
'use strict';
// tool-policy: explains, from the command line, which tools an agent gets in a sub-agent worker and
// why the others are blocked — the same engine and the same answers as the package's functions.

const fs = require('fs');
const util = require('util');
const policy = require('../node/netaclaw_tool_policy.js');

const USAGE = `Usage: tool-policy explain --agent <agent.json> [options]

Prints the route of every catalog tool in a sub-agent worker, with the reason labels.

Options:
  --agent <file>       the agent: { toolsets?, tools?: { disabled? }, modelCapability?, memoryEnabled?,
                       hasSkills?, crewRole?, toolsetDefaults? } (required)
  --catalog <file>     the tool catalog, an array of ToolSchema (default: the builtin catalog)
  --governance <file>  the netaclaw_tool rows, an array
  --batch <file>       the sub-agent batch: { subagentTools?, sessionCwd?, workspaceRoots?,
                       shellPermitted?, writePermitted?, parent? }
  --locale <tag>       zh-CN (default) or en
  --tool <name>        also explain this tool and print its decision trace
  --json               print the diagnostic as JSON (with traces) instead of the table
  -h, --help           print this help
  --version            print the package version`;

// The options, as `util.parseArgs` reads them; its tokens are checked here so that every mistake is a
// one-line message naming the option.
const OPTIONS = {
  agent: { type: 'string' },
  catalog: { type: 'string' },
  governance: { type: 'string' },
  batch: { type: 'string' },
  locale: { type: 'string' },
  tool: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
};
const AGENT_FIELDS = ['modelCapability', 'memoryEnabled', 'hasSkills', 'crewRole', 'toolsetDefaults'];
const BATCH_FIELDS = ['subagentTools', 'sessionCwd', 'workspaceRoots', 'shellPermitted', 'writePermitted', 'parent'];

class UsageError extends Error {}

function parseArgs(argv) {
  const { tokens } = util.parseArgs({ args: argv, options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const options = { json: false };
  const positional = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positional.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    const { name, rawName, value, inlineValue } = token;
    if (name === 'help') return { help: true };
    if (name === 'version') return { version: true };
    if (!Object.hasOwn(OPTIONS, name)) throw new UsageError(`unknown option ${rawName}`);
    if (OPTIONS[name].type === 'boolean') {
      if (value !== undefined) throw new UsageError(`${rawName} takes no value`);
      options[name] = true;
      continue;
    }
    // `--agent --json`: the next option is not a value.
    if (value === undefined || value === '' || (!inlineValue && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    if (name in options) throw new UsageError(`--${name} is given twice`);
    options[name] = value;
  }
  if (positional.length === 0) throw new UsageError('missing command (explain)');
  if (positional[0] !== 'explain') throw new UsageError(`unknown command ${JSON.stringify(positional[0])}`);
  if (positional.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positional[1])}`);
  if (!options.agent) throw new UsageError('--agent <agent.json> is required');
  return options;
}

function readJson(flag, file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read --${flag} ${file}: ${e.code || e.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--${flag} ${file} is not valid JSON: ${e.message}`);
  }
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The runtimeDiagnostic input the files describe. */
function diagnosticInput(options) {
  const agent = readJson('agent', options.agent);
  if (!isObject(agent)) throw new UsageError(`--agent ${options.agent} must hold a JSON object`);
  const input = { trace: true };
  if (options.catalog !== undefined) {
    input.catalog = readJson('catalog', options.catalog);
    if (!Array.isArray(input.catalog)) throw new UsageError(`--catalog ${options.catalog} must hold a JSON array`);
  }
  if (options.governance !== undefined) {
    input.governance = readJson('governance', options.governance);
    if (!Array.isArray(input.governance)) throw new UsageError(`--governance ${options.governance} must hold a JSON array`);
  }
  // An agent file is either the agent's tool config ({ toolsets, tools, … }) or already
  // { agent: { toolsets, tools }, modelCapability, … }.
  input.agent = 'agent' in agent ? agent.agent : { toolsets: agent.toolsets, tools: agent.tools };
  for (const key of AGENT_FIELDS) if (agent[key] !== undefined) input[key] = agent[key];
  if (options.batch !== undefined) {
    const batch = readJson('batch', options.batch);
    if (!isObject(batch)) throw new UsageError(`--batch ${options.batch} must hold a JSON object`);
    for (const key of BATCH_FIELDS) if (batch[key] !== undefined) input[key] = batch[key];
  }
  return input;
}

function call(what, fn) {
  try {
    return fn();
  } catch (e) {
    if (e && e.code === 'invalid_input') throw new UsageError(`invalid ${what}: ${e.message}`);
    throw e;
  }
}

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]))).join('  ').trimEnd()).join('\n');
}

function render(diagnostic, input, options, locale) {
  const labels = policy.labels(locale);
  const reasonText = (codes) => (codes.length === 0 ? '-' : codes.map((c) => `${c} (${labels.reasons[c]})`).join('; '));
  const rows = [['TOOL', 'STATUS', 'ROUTE', 'REASONS']];
  for (const r of diagnostic.routes) rows.push([r.name, r.status, r.route, reasonText(r.reasons)]);
  const out = [table(rows), ''];
  const p = diagnostic.policy;
  out.push(`policy: workspaceRoots ${p.workspaceRoots.length ? p.workspaceRoots.join(', ') : '(none)'}; allowShell ${p.allowShell}; readonly ${p.readonly}`);
  for (const w of diagnostic.resolved.warnings) out.push(`warning: ${w.code} ${w.subject} (${labels.reasons[w.code]})`);
  for (const w of diagnostic.policyWarnings || []) out.push(`warning: ${w.code} ${w.subject} (${policy.label('policyWarnings', w.code, locale)})`);
  if (options.tool !== undefined) {
    const route = diagnostic.routes.find((r) => r.name === options.tool);
    out.push('', call('input', () => policy.explainTool(input, options.tool, locale)), '');
    const trace = [['#', 'LAYER', 'OUTCOME', 'SOURCE', 'REASON']];
    route.trace.forEach((e, i) => {
      trace.push([String(i + 1), e.layer, e.outcome, e.source, e.reason ? `${e.reason} (${labels.reasons[e.reason]})` : '-']);
    });
    out.push(`trace of ${route.name}:`, table(trace));
  }
  return out.join('\n');
}

function main(argv) {
  let options;
  try {
    options = parseArgs(argv);
    if (options.help) {
      process.stdout.write(USAGE + '\n');
      return 0;
    }
    if (options.version) {
      process.stdout.write(policy.version() + '\n');
      return 0;
    }
    const locale = options.locale === undefined ? 'zh-CN' : options.locale;
    call('--locale', () => policy.labels(locale));
    const input = diagnosticInput(options);
    const diagnostic = call('input', () => policy.runtimeDiagnostic(input));
    if (options.tool !== undefined && !diagnostic.routes.some((r) => r.name === options.tool)) {
      throw new UsageError(`--tool ${JSON.stringify(options.tool)} is not in the catalog (an unknown tool is never routed)`);
    }
    process.stdout.write((options.json ? JSON.stringify(diagnostic, null, 2) : render(diagnostic, input, options, locale)) + '\n');
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`tool-policy: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`tool-policy: ${e && e.message ? e.message : String(e)}\n`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
