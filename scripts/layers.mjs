#!/usr/bin/env node
// The layering of the backend (js/backend/src) and of the pages (www/src), read from their imports, as
// tests/layers.rs reads the crate's: fails when the files of either tree import each other in a cycle,
// or when an import breaks one of the rules below. docs/architecture.md explains the rules.
//
//   node scripts/layers.mjs [--root DIR] [--json] [--graph]
//
// What counts as an import: `import … from`, `export … from`, `import x = require()`, `import()` and
// `require()` of a string, in .ts files and in the <script> blocks of .vue files (parsed with the
// TypeScript compiler, so comments and strings are never read as code). A relative specifier is a file
// of the tree (`.ts`, `.vue`, `/index.ts` tried in turn); any other is a package.
// A cycle counts every import, `import type` too: a type tie is still a tie the reader has to follow.
// A rule says whether it allows type-only imports: an import is type-only only when it says so
// (`import type …`, or `type` on every name it takes); an import that does not say so counts as a
// value import even where the compiler would drop it.
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The trees checked: each is one import graph (an import leaving its tree draws no arrow in it). */
export const TREES = ['js/backend/src', 'www/src'];

// The rules. `from` and `to` are paths inside the tree: a folder ends with `/`, `./` is the files
// directly in the tree (not in a folder), `*` is every file, anything else is one file. A rule fails on
// an import by a file of `from` (but not of `notFrom`) of a file of `to` (but not of `except`);
// `packages`, if given, is the list of packages the files may import (and no other); `outside`, if
// given, the list of files outside the tree (paths from the repository's root) they may import;
// `types: true` lets type-only imports through.
const DOORS = ['controller/', 'gateway/', 'middleware/', 'filter/'];
const ENTRIES = ['configuration.ts', 'db/cli-datasource.ts'];
/** The files that may sit directly in a tree (its entries): every other file lives in the folder of its layer. */
export const LOOSE = { 'js/backend/src': ['configuration.ts'], 'www/src': ['main.ts'] };
export const LOOSE_WHY = 'a loose file: every file but the entry lives in the folder of its layer';

export const RULES = [
  // the backend (js/backend/src)
  {
    tree: 'js/backend/src',
    from: ['service/'],
    to: ['agent/', 'runtime/'],
    except: ['runtime/limits.ts', 'runtime/codes.ts'],
    types: true,
    why: "service/ stores and reads: it runs nothing (it may name the runtime's types, and read its limits and codes)",
  },
  {
    tree: 'js/backend/src',
    from: ['runtime/'],
    to: ['service/', 'agent/', 'dto/', 'entity/', 'db/migration/', ...DOORS, ...ENTRIES],
    why: 'the runtime runs tool calls: it knows no storage, no agent loop, no HTTP',
  },
  {
    tree: 'js/backend/src',
    from: ['service/', 'agent/', 'dto/', ...DOORS],
    to: ['runtime/'],
    except: ['runtime/index.ts', 'runtime/limits.ts', 'runtime/codes.ts'],
    why: "the runtime's front door is runtime/index.ts (its limits and codes are tables anyone reads)",
  },
  {
    tree: 'js/backend/src',
    from: ['runtime/limits.ts', 'runtime/codes.ts'],
    to: '*',
    types: true,
    why: "the runtime's limits and codes are tables others read: they import nothing",
  },
  {
    tree: 'js/backend/src',
    from: ['entity/'],
    to: ['service/', 'agent/', 'runtime/', 'dto/', 'db/migration/', ...DOORS, ...ENTRIES],
    packages: ['typeorm'],
    why: 'a table is a TypeORM entity (with its column helpers): it knows nothing that uses it',
  },
  {
    tree: 'js/backend/src',
    from: ['db/migration/'],
    to: ['entity/', 'service/', 'agent/', 'runtime/', 'dto/', ...DOORS, ...ENTRIES],
    packages: ['typeorm', '@midwayjs/core'],
    why: 'a migration is frozen: it never reads the entities, which change after it',
  },
  {
    tree: 'js/backend/src',
    from: ['dto/'],
    to: ['service/', 'agent/', 'runtime/', 'entity/', ...DOORS, ...ENTRIES],
    except: ['runtime/limits.ts'],
    why: "a request's shape and its checks, nothing behind them (the runtime's limits bound a batch)",
  },
  {
    tree: 'js/backend/src',
    from: ['service/', 'agent/', 'runtime/', 'dto/', 'entity/', 'db/migration/'],
    to: DOORS,
    why: 'the doors (HTTP, WebSocket) call in; nothing behind them calls a door',
  },
  {
    tree: 'js/backend/src',
    from: DOORS,
    to: ['runtime/'],
    except: ['runtime/limits.ts'],
    types: true,
    why: 'the doors reach the runtime through agent/ (the health page reads the sandbox of the injected RuntimeEnv)',
  },
  {
    tree: 'js/backend/src',
    from: ['lib/'],
    to: ['wire/', 'config/', 'db/', 'http/', 'entity/', 'service/', 'agent/', 'runtime/', 'dto/', ...DOORS, ...ENTRIES],
    why: 'lib/ holds dependency-free helpers (error text, real paths, a mutex): it imports nothing of the tree but itself',
  },
  {
    tree: 'js/backend/src',
    from: ['wire/'],
    to: ['config/', 'db/', 'http/', 'entity/', 'service/', 'agent/', 'runtime/', 'dto/', ...DOORS, ...ENTRIES],
    why: "wire/ is what crosses the boundaries (the API's types, its errors, the validation, the package): it knows nothing that uses it",
  },
  {
    tree: 'js/backend/src',
    from: ['config/'],
    to: ['db/', 'http/', 'entity/', 'service/', 'agent/', 'runtime/', 'dto/', ...DOORS, ...ENTRIES],
    why: 'config/ is the settings, the logger, the data files and the key: read by every layer, it reads none of them',
  },
  {
    tree: 'js/backend/src',
    from: ['db/'],
    notFrom: ENTRIES,
    to: ['http/', 'service/', 'agent/', 'runtime/', 'dto/', ...DOORS],
    why: 'db/ is the data source, its options, health and migrations: below every folder that stores',
  },
  {
    tree: 'js/backend/src',
    from: ['http/'],
    to: ['service/', 'agent/', 'runtime/', 'dto/', 'entity/', 'db/', ...DOORS, ...ENTRIES],
    why: "http/ holds what the doors share (the login session, the admin token, the auth window, the pages' files): it knows no storage",
  },
  {
    tree: 'js/backend/src',
    from: '*',
    notFrom: ['bus/', 'gateway/', 'service/', 'agent/', 'controller/', 'middleware/', 'configuration.ts'],
    to: ['bus/'],
    why: 'the bus between instances is heard by the doors, the services, the agent loop and the start alone',
  },
  {
    tree: 'js/backend/src',
    from: ['bus/'],
    to: '*',
    except: ['bus/', 'config/', 'lib/'],
    why: 'the bus carries messages: it reads the settings (config/) and the helpers (lib/), and knows nothing it carries',
  },
  { tree: 'js/backend/src', from: '*', to: ENTRIES, why: 'the entries import everything; nothing imports an entry' },
  { tree: 'js/backend/src', from: '*', to: [], outside: [], why: 'the backend reaches outside its tree through packages alone' },
  // the pages (www/src)
  {
    tree: 'www/src',
    from: ['base/', 'chat/'],
    to: ['server/', 'composables/', 'components/', 'views/', 'app/', 'main.ts'],
    why: "the pages' types and words are read by everything and read nothing of the pages",
  },
  {
    tree: 'www/src',
    from: ['server/'],
    to: ['composables/', 'components/', 'views/', 'app/', 'main.ts'],
    why: 'the server, the package and the error sentences are below the state that uses them',
  },
  {
    tree: 'www/src',
    from: ['composables/'],
    to: ['components/', 'views/', 'app/', 'main.ts'],
    why: 'state is below the components that show it',
  },
  { tree: 'www/src', from: ['components/'], to: ['views/', 'app/', 'main.ts'], why: 'components are below the views that place them' },
  { tree: 'www/src', from: '*', notFrom: ['app/router.ts'], to: ['views/'], why: 'a view is reached through the router alone' },
  { tree: 'www/src', from: ['views/'], to: ['app/', 'main.ts'], why: 'the frame (app/: the router, the shell) places the views; a view never reaches back' },
  {
    tree: 'www/src',
    from: '*',
    to: [],
    outside: ['js/backend/src/wire/api-types.ts'],
    why: 'of the backend, the pages import its wire types (api-types.ts) alone',
  },
];

// Imports that break a rule today and stay until the change named in their reason: the importing file
// and the imported one (paths in the tree), with why. The check prints them, and fails on one that no
// longer matches a breaking import, so the list only shrinks.
export const EXCEPTIONS = [];

const SOURCE = ['.ts', '.vue'];
const RESOLVE = ['', '.ts', '.vue', '.js', '.mjs', '/index.ts'];

function loadTypeScript(root) {
  const tried = [];
  for (const from of [join(root, 'js/backend/package.json'), join(root, 'www/package.json'), join(here, '..', 'js/backend/package.json')]) {
    try {
      return createRequire(from)('typescript');
    } catch {
      tried.push(from);
    }
  }
  throw new Error(`layers: the TypeScript compiler was not found beside ${tried.join(', ')} (npm ci --prefix js/backend)`);
}

function walk(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.some((e) => name.endsWith(e))) out.push(path);
  }
  return out;
}

/** The <script> blocks of a .vue file, each blanked outside so that positions (and lines) are kept. */
function vueScripts(text) {
  const out = [];
  const re = /<script\b[^>]*>([\s\S]*?)<\/script>/g;
  let m;
  while ((m = re.exec(text))) {
    const start = m.index + m[0].indexOf('>') + 1;
    out.push(text.slice(0, start).replace(/[^\n]/g, ' ') + m[1]);
  }
  return out;
}

/** Every import of one file's code: { spec, line, typeOnly }. */
function importsOf(ts, file, code) {
  const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out = [];
  const add = (lit, typeOnly) => out.push({ spec: lit.text, line: sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1, typeOnly });
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      let typeOnly = false;
      if (c) {
        const named = c.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : null;
        typeOnly = c.isTypeOnly || (!c.name && named !== null && named.length > 0 && named.every((e) => e.isTypeOnly));
      }
      add(node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : null;
      add(node.moduleSpecifier, node.isTypeOnly || (named !== null && named.length > 0 && named.every((e) => e.isTypeOnly)));
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1 && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal, true); // `import('./x').T` in a type
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const posix = (p) => p.split(sep).join('/');

/** The import graph of one tree: files (paths in the tree) → their imports, resolved. */
export function graphOf(root, tree, ts = loadTypeScript(root)) {
  const base = join(root, tree);
  const files = new Map();
  for (const path of walk(base, [])) {
    const text = readFileSync(path, 'utf8');
    const codes = path.endsWith('.vue') ? vueScripts(text) : [text];
    const imports = [];
    for (const code of codes) {
      for (const imp of importsOf(ts, path, code)) {
        if (imp.spec.startsWith('.')) {
          const target = resolve(dirname(path), imp.spec);
          const hit = RESOLVE.map((e) => target + e).find((p) => existsSync(p) && statSync(p).isFile());
          const rel = hit ? posix(relative(base, hit)) : null;
          if (rel === null || rel.startsWith('..')) imports.push({ ...imp, outside: hit ? posix(relative(root, hit)) : imp.spec });
          else if (SOURCE.some((e) => rel.endsWith(e))) imports.push({ ...imp, file: rel });
          else imports.push({ ...imp, asset: rel }); // a style sheet, a JSON file: no code of the tree
        } else {
          imports.push({ ...imp, package: imp.spec.startsWith('@') ? imp.spec.split('/').slice(0, 2).join('/') : imp.spec.split('/')[0] });
        }
      }
    }
    files.set(posix(relative(base, path)), imports);
  }
  return files;
}

/** The cycles of a graph: each strongly connected set of files (or a file importing itself), sorted. */
export function cycles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const next = (f) => [
    ...new Set(
      graph
        .get(f)
        .filter((i) => i.file)
        .map((i) => i.file),
    ),
  ];
  const strong = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of next(v)) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const set = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1 || next(v).includes(v)) out.push(set.sort());
    }
  };
  for (const f of [...graph.keys()].sort()) if (!idx.has(f)) strong(f);
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

/** One loop through a cycle's files, as `a → b → … → a`, with the names of the files' imports. */
function loopThrough(graph, set) {
  const inSet = new Set(set);
  const start = set[0];
  // Breadth-first from start back to start, inside the set.
  const prev = new Map();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const i of graph.get(v)) {
      if (!i.file || !inSet.has(i.file)) continue;
      if (i.file === start) {
        const path = [start];
        for (let u = v; u !== start; u = prev.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!prev.has(i.file)) {
        prev.set(i.file, v);
        queue.push(i.file);
      }
    }
  }
  return [...set, start];
}

const under = (file, paths) => paths === '*' || paths.some((p) => (p === './' ? !file.includes('/') : p.endsWith('/') ? file.startsWith(p) : file === p));

/** The imports that break a rule: { tree, from, to, line, rule }. */
export function violations(tree, graph, rules = RULES) {
  const out = [];
  for (const rule of rules.filter((r) => r.tree === tree)) {
    for (const [file, imports] of graph) {
      if (!under(file, rule.from) || under(file, rule.notFrom ?? [])) continue;
      for (const i of imports) {
        if (rule.types && i.typeOnly) continue;
        let broken = false;
        let to;
        if (i.file !== undefined) {
          to = i.file;
          broken = under(i.file, rule.to) && !under(i.file, rule.except ?? []);
        } else if (i.package !== undefined) {
          to = i.spec;
          broken = rule.packages !== undefined && !rule.packages.includes(i.package);
        } else if (i.outside !== undefined) {
          to = i.outside;
          broken = rule.packages !== undefined || (rule.outside !== undefined && !rule.outside.includes(i.outside));
        } else {
          to = i.asset;
          broken = rule.packages !== undefined;
        }
        if (broken) out.push({ tree, from: file, to, line: i.line, typeOnly: i.typeOnly, rule: rule.why });
      }
    }
  }
  return out;
}

export function check(root, { rules = RULES, exceptions = EXCEPTIONS } = {}) {
  const ts = loadTypeScript(root);
  const errors = [];
  const excepted = [];
  const report = { trees: {}, errors, excepted };
  const used = new Set();
  for (const tree of TREES) {
    if (!existsSync(join(root, tree))) {
      errors.push(`${tree}: the tree is missing`);
      continue;
    }
    const graph = graphOf(root, tree, ts);
    const found = cycles(graph);
    let arrows = 0;
    for (const imports of graph.values()) arrows += imports.filter((i) => i.file).length;
    report.trees[tree] = { files: graph.size, imports: arrows, cycles: found.length };
    for (const file of graph.keys()) if (!file.includes('/') && !(LOOSE[tree] ?? []).includes(file)) errors.push(`${tree}/${file}: ${LOOSE_WHY}`);
    for (const set of found)
      errors.push(`${tree}: import cycle: ${loopThrough(graph, set).join(' → ')}${set.length > 3 ? ` (${set.length} files tied: ${set.join(', ')})` : ''}`);
    for (const v of violations(tree, graph, rules)) {
      const ex = exceptions.find((e) => e.tree === tree && e.from === v.from && e.to === v.to);
      if (ex) {
        used.add(ex);
        excepted.push(`${tree}/${v.from}:${v.line} imports ${v.to}: ${ex.why}`);
      } else errors.push(`${tree}/${v.from}:${v.line} imports ${v.to}${v.typeOnly ? ' (types)' : ''}: ${v.rule}`);
    }
  }
  for (const ex of exceptions)
    if (!used.has(ex) && existsSync(join(root, ex.tree)))
      errors.push(`${ex.tree}: the exception ${ex.from} → ${ex.to} matches no import that breaks a rule: remove it`);
  return report;
}

function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf('--root');
  const root = at >= 0 ? resolve(args[at + 1]) : resolve(here, '..');
  if (args.includes('--graph')) {
    for (const tree of TREES) {
      const graph = graphOf(root, tree);
      console.log(`# ${tree}`);
      for (const [file, imports] of graph) {
        const local = imports.filter((i) => i.file).map((i) => i.file + (i.typeOnly ? ' (types)' : ''));
        console.log(`${file} → ${local.join(', ') || '-'}`);
      }
    }
    return;
  }
  const report = check(root);
  if (args.includes('--json')) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    for (const [tree, t] of Object.entries(report.trees)) console.log(`${tree}: ${t.files} files, ${t.imports} imports between them, ${t.cycles} cycles`);
    if (report.excepted.length) console.log(`allowed for now (EXCEPTIONS in scripts/layers.mjs):\n  ${report.excepted.join('\n  ')}`);
    if (report.errors.length) console.error(`layers: ${report.errors.length} problem(s):\n  ${report.errors.join('\n  ')}`);
    else console.log('layers: no cycle, every rule holds');
  }
  process.exitCode = report.errors.length ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
