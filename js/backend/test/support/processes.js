'use strict';
// The host's processes, read from /proc: to show what runs below the backend and that nothing is left.
const fs = require('node:fs');

/** Every process on the host: pid → { ppid, start, comm }. */
function processTable() {
  const out = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    out.set(Number(name), { ppid: Number(fields[1]), start: fields[19], comm: stat.slice(stat.indexOf('(') + 1, close) });
  }
  return out;
}

/** The processes below `root` (not itself): [{ pid, start, comm }]. */
function descendants(root = process.pid) {
  const table = processTable();
  const children = new Map();
  for (const [pid, p] of table) {
    if (!children.has(p.ppid)) children.set(p.ppid, []);
    children.get(p.ppid).push(pid);
  }
  const out = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length) {
    const pid = queue.shift();
    out.push({ pid, ...table.get(pid) });
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Those of `procs` still running (same pid and start time: not a reused pid). */
function stillRunning(procs) {
  const table = processTable();
  return procs.filter(p => table.get(p.pid)?.start === p.start);
}

function isRunning(p) {
  return stillRunning([p]).length === 1;
}

function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return null;
  }
}

/** Processes (not this one) whose command line holds `text`: [{ pid, start, comm }]. */
function withText(text) {
  const out = [];
  for (const [pid, p] of processTable()) {
    if (pid === process.pid) continue;
    if (cmdline(pid)?.includes(text)) out.push({ pid, ...p });
  }
  return out;
}

/** The bwrap children of `parent` (whose command line holds `text`, when given). */
function sandboxesOf(parent, text) {
  const out = [];
  for (const [pid, p] of processTable()) {
    if (p.ppid !== parent || p.comm !== 'bwrap') continue;
    if (text === undefined || cmdline(pid)?.includes(text)) out.push({ pid, ...p });
  }
  return out;
}

/** Polls `fn` until it returns a non-empty list (and returns it); fails after `ms`. */
async function waitFor(fn, ms = 10000) {
  const until = Date.now() + ms;
  for (;;) {
    const r = fn();
    if (r.length) return r;
    if (Date.now() > until) throw new Error(`waited ${ms} ms in vain for ${fn}`);
    await new Promise(resolve => setTimeout(resolve, 20));
  }
}

module.exports = { processTable, descendants, stillRunning, isRunning, withText, sandboxesOf, waitFor };
