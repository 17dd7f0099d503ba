#!/usr/bin/env node
// A capability sandbox for an AI agent's tool calls, speaking sbxfuzz/1.
//
// Copy this file to start an adapter of your own. It has two halves:
//
//   * a small protocol loop (SPEC §12): JSON-RPC 2.0, one message a line, on
//     stdin (harness -> us) and stdout (us -> harness). Every effect goes
//     through a `world/*` request back to the harness, which journals it, so
//     sbxfuzz judges what the sandbox really did, not what it says it did;
//   * the sandbox itself, `Sandbox.run`, following SPEC §5 step by step.
//
// Run it under the harness with:
//     sbxfuzz run --sut "exec:node examples/node/sandbox.js" --checks 10000
//
// Node 20, no npm packages, CommonJS. stdout is the protocol: log to stderr.
'use strict';

const { isUtf8 } = require('node:buffer');

const MAX_I64 = (1n << 63n) - 1n;
const MIN_I64 = -(1n << 63n);
const EXACT = 1n << 53n; // JSON numbers are exact up to here; beyond, decimal strings

const log = (...args) => console.error('sandbox.js:', ...args);

// --- Wire forms ------------------------------------------------------------
// Every path, data, host, name, input, body and output is a byte string: a
// JSON string when its bytes are valid UTF-8, else {"b64": "..."}. Inside the
// sandbox a byte string is a "binary" (latin1) JS string, one char per byte:
// comparisons, Set lookups and .length are then exact on bytes, and NUL
// bytes and invalid UTF-8 reach the checks of §5 step 3 as the agent sent them.

const ASCII = /^[\x00-\x7f]*$/; // ASCII reads the same as UTF-8 and latin1

function fromWire(v) {
  if (typeof v === 'string') return ASCII.test(v) ? v : Buffer.from(v, 'utf8').toString('latin1');
  if (v && typeof v.b64 === 'string') return Buffer.from(v.b64, 'base64').toString('latin1');
  throw new TypeError(`not a byte string: ${JSON.stringify(v)}`.slice(0, 80));
}

function toWire(s) {
  if (ASCII.test(s)) return s;
  const b = Buffer.from(s, 'latin1');
  return isUtf8(b) ? b.toString('utf8') : { b64: b.toString('base64') };
}

// A JSON number, or a decimal string for values beyond ±2^53; BigInt inside.
function intFromWire(v) {
  if ((typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v))) {
    return BigInt(v);
  }
  throw new TypeError(`not an integer: ${JSON.stringify(v)}`);
}

const intToWire = (n) => (n >= -EXACT && n <= EXACT ? Number(n) : n.toString());

// --- Protocol I/O ----------------------------------------------------------
// stdin arrives in chunks; we cut it into lines and hand them out one by one
// to whoever awaits nextLine(). The main loop and world() both await lines,
// never at the same time: one op is in flight, so a world request is always
// answered before the harness sends anything else.

const lines = [];
let waiting = null; // the resolve function of a pending nextLine()
let pieces = []; // the chunks of a line not yet ended
let ended = false;

process.stdin.setEncoding('utf8'); // a multi-byte char split across chunks stays whole
// A line may span many chunks (a scenario's data, escaped, can make lines of
// tens of megabytes): only the new chunk is searched for the line's end, so
// a line costs time in its length, not in its square.
process.stdin.on('data', (chunk) => {
  const parts = chunk.split('\n');
  pieces.push(parts[0]);
  for (let i = 1; i < parts.length; i++) {
    const line = pieces.join('');
    if (line) lines.push(line);
    pieces = [parts[i]];
  }
  wake();
});
process.stdin.on('end', () => { ended = true; wake(); });

function wake() {
  if (waiting && (lines.length || ended)) {
    const resolve = waiting;
    waiting = null;
    resolve(lines.length ? lines.shift() : null);
  }
}

function nextLine() {
  if (lines.length) return Promise.resolve(lines.shift());
  if (ended) return Promise.resolve(null);
  return new Promise((resolve) => { waiting = resolve; });
}

// On Linux a write to a pipe is synchronous: the line is out when this returns.
const send = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');

class ProtocolError extends Error {}
let nextId = 0;

// Ask the harness for one world call and wait for its answer.
async function world(method, params) {
  const id = ++nextId;
  send({ jsonrpc: '2.0', id, method, params });
  for (;;) {
    const line = await nextLine();
    if (line === null) throw new ProtocolError(`stdin closed while ${method} was pending`);
    const msg = JSON.parse(line);
    if (msg.method !== undefined) throw new ProtocolError(`request ${msg.method} while ${method} is pending`);
    if (msg.id !== id) { log('ignoring a response with id', msg.id); continue; }
    if (msg.error) throw new ProtocolError(`${method}: ${JSON.stringify(msg.error)}`);
    return msg.result;
  }
}

// --- Path rules (SPEC §4) --------------------------------------------------

// A ".." segment, splitting on "\" as well as "/": "/work/..hidden" is a
// name, "/work\..\etc" is traversal.
const hasTraversal = (p) => p.includes('..') && p.split(/[/\\]/).includes('..');

// Go's path.Clean. (Node's path.posix.normalize keeps a trailing slash.)
function clean(p) {
  const rooted = p.startsWith('/');
  const out = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg !== '..') out.push(seg);
    else if (out.length && out[out.length - 1] !== '..') out.pop();
    else if (!rooted) out.push('..');
  }
  const s = out.join('/');
  return rooted ? '/' + s : s || '.';
}

// [root, root + "/"] once per grant. The "/" after the root is what keeps
// "/workshop/x" out of root "/work/".
const prepareRoots = (roots) => roots.map((r) => {
  const c = clean(r);
  return [c, c.replace(/\/+$/, '') + '/'];
});

function under(p, roots) {
  const c = clean(p);
  return roots.some(([r, prefix]) => c === r || c.startsWith(prefix));
}

// --- Internal addresses (SPEC §6) -----------------------------------------
// The table is written out as masks, on purpose: it is exactly the SPEC's.

function parse4(s) {
  const m = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/.exec(s); // no octal-looking 010
  if (!m || m.slice(1).some((x) => +x > 255)) return null;
  return ((+m[1] << 24) | (+m[2] << 16) | (+m[3] << 8) | +m[4]) >>> 0;
}

function parse6(s) { // a BigInt, or null
  s = s.split('%')[0]; // a zone says which interface, not where to
  const dot = s.lastIndexOf(':');
  if (s.includes('.', dot)) { // a dotted IPv4 tail: two more groups
    const v4 = parse4(s.slice(dot + 1));
    if (v4 === null) return null;
    s = s.slice(0, dot + 1) + (v4 >>> 16).toString(16) + ':' + (v4 & 0xffff).toString(16);
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const zeros = 8 - head.length - tail.length;
  if (halves.length === 1 ? zeros !== 0 : zeros < 1) return null;
  let v = 0n;
  for (const g of [...head, ...Array(zeros).fill('0'), ...tail]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  return v;
}

function internal4(v) {
  const a = v >>> 24;
  return a === 0 || a === 10 || a === 127 //  0.0.0.0/8 (unspecified), RFC 1918, loopback
    || (v & 0xffc00000) >>> 0 === 0x64400000 // 100.64.0.0/10 shared address space
    || v >>> 16 === 0xa9fe || v >>> 16 === 0xc0a8 // 169.254/16 link-local, 192.168/16
    || (v & 0xfff00000) >>> 0 === 0xac100000 // 172.16.0.0/12
    || v >>> 8 === 0xc00000 // 192.0.0.0/24
    || (v & 0xfffe0000) >>> 0 === 0xc6120000 // 198.18.0.0/15 benchmarking
    || v >= 0xe0000000; // multicast, 240.0.0.0/4, broadcast
}

// True when a fetch to addr would stay inside the infrastructure. An address
// we cannot read is internal: fail closed.
function isInternal(addr) {
  const a = addr.startsWith('[') && addr.endsWith(']') ? addr.slice(1, -1) : addr;
  if (!a.includes(':')) {
    const v = parse4(a);
    return v === null || internal4(v);
  }
  const v = parse6(a);
  if (v === null) return true;
  if (v >> 80n === 0x64ff9b0001n || v >> 96n === 0x20010000n) { // 64:ff9b:1::/48, Teredo 2001::/32
    return true; // whatever they carry
  }
  const top = v >> 32n;
  if (top === 0xffffn || top === 0x64ff9bn << 64n || (top === 0n && v > 1n)) { // mapped, NAT64, IPv4-compatible
    return internal4(Number(v & 0xffffffffn));
  }
  if (v >> 112n === 0x2002n) { // 6to4: the IPv4 address in bits 16-47
    return internal4(Number((v >> 80n) & 0xffffffffn));
  }
  return v <= 1n // :: unspecified, ::1 loopback
    || v >> 121n === 0x7en // fc00::/7 unique local
    || v >> 118n === 0x3fan // fe80::/10 link-local
    || v >> 120n === 0xffn; // ff00::/8 multicast
}

// --- The sandbox (SPEC §3, §5) --------------------------------------------
const ARITY = new Map([['fs_read', 1], ['fs_write', 2], ['net_fetch', 2], ['tool', 2]]);
// A host or tool name may not be empty, nor hold Go's unicode.IsSpace, a
// control byte, or one of the four characters that make a name ambiguous.
const BAD_NAME = /[\x00-\x20\x7f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000/@?#]/;

const badRoot = (r) => !r.startsWith('/') || hasTraversal(r) || r.includes('\0');
const badName = (n) => n === '' || BAD_NAME.test(Buffer.from(n, 'latin1').toString('utf8'));

// NUL bytes and invalid UTF-8 mean different things to different layers (a C
// string stops at NUL), so they are refused before anyone looks.
const badArg = (a) => a.includes('\0') || (!ASCII.test(a) && !isUtf8(Buffer.from(a, 'latin1')));

const soft = (kind, data = '') => ({ kind, hard: false, data });

// A soft denial (or not_found): this op is refused, the sandbox goes on.
class Refused extends Error {}

class Sandbox {
  // Built by sandbox/open; call open() next, which reads the clock for t0.
  constructor(grant) {
    // §3: the grant is read and checked once, and never changes after. Keep
    // it as given (sandbox/grant echoes it) and the roots cleaned for checks.
    this.given = grant;
    const list = (k) => (grant[k] || []).map(fromWire);
    const b = grant.budgets || {};
    [this.maxOps, this.maxWall, this.maxOutput] = ['ops', 'wall', 'output'].map((k) => intFromWire(b[k] ?? 0));
    for (const [k, bad] of [['fs_read', badRoot], ['fs_write', badRoot], ['net', badName], ['tool', badName]]) {
      const wrong = list(k).find(bad);
      if (wrong !== undefined) throw new TypeError(`invalid grant: ${k} ${JSON.stringify(toWire(wrong))}`);
    }
    if (this.maxOps < 0n || this.maxWall < 0n || this.maxOutput < 0n) throw new TypeError('invalid grant: a negative budget');
    this.readRoots = prepareRoots(list('fs_read'));
    this.writeRoots = prepareRoots(list('fs_write'));
    this.hosts = new Set(list('net')); // exact, byte for byte
    this.tools = new Set(list('tool'));
    this.ops = 0n; this.wall = 0n; this.output = 0n;
    this.halted = null; // the hard kind that latched, once one has
  }

  async open() {
    const t = await this.now(); // t0: the clock is read once, here
    this.t0 = t === null ? MAX_I64 : t;
  }

  // The next tick, or null when it would pass 2^63-1 (§7).
  async now() {
    const r = await world('world/now', {});
    const t = intFromWire(r.tick);
    if (r.past || t > MAX_I64) return null;
    return t < MIN_I64 ? MIN_I64 : t;
  }

  usage() {
    return { ops: intToWire(this.ops), wall: intToWire(this.wall), output: intToWire(this.output) };
  }

  halt(kind) {
    this.halted = kind;
    return { kind, hard: true, data: '' };
  }

  async run(kind, args) {
    // 1. Halt gate: a halted sandbox does nothing at all — no charge, no
    //    clock read, no world call.
    if (this.halted) return { kind: this.halted, hard: true, data: '' };
    // 2. Charge before looking at the op, so that denied probes burn budget
    //    too. The clock is read only once the op budget passed.
    if (++this.ops > this.maxOps) return this.halt('max_ops');
    const t = await this.now();
    if (t === null) { // a tick past 2^63-1 is past every wall budget
      this.wall = MAX_I64;
      return this.halt('max_wall');
    }
    const d = t - this.t0;
    if (d > MAX_I64) { // wall itself is an int64: too far is past any budget
      this.wall = MAX_I64;
      return this.halt('max_wall');
    }
    this.wall = d < MIN_I64 ? MIN_I64 : d; // a clock run backwards: below every budget
    if (this.wall > this.maxWall) return this.halt('max_wall');
    // 3. Dispatch: one of four kinds, the right arity, clean arguments.
    const n = ARITY.get(kind);
    if (n === undefined) return soft('unknown_op');
    if (args.length !== n || args.some(badArg)) return soft('malformed_op');
    // 4. Check, then effect; a refusal at any check returns at once.
    try {
      switch (kind) {
        case 'fs_read': return await this.fsRead(args[0]);
        case 'fs_write': return await this.fsWrite(args[0], args[1]);
        case 'net_fetch': return await this.netFetch(args[0], args[1]);
        default: return await this.tool(args[0], args[1]);
      }
    } catch (e) {
      if (e instanceof Refused) return soft(e.message);
      throw e;
    }
  }

  // Lexical checks first, then realpath, then the same roots again on the
  // resolved path, which is the one we act on: a link inside a root may point
  // anywhere (§13).
  async confine(p, roots, denied) {
    if (hasTraversal(p)) throw new Refused('path_traversal');
    if (!under(p, roots)) throw new Refused(denied); // never resolve a path we refuse
    const ans = await world('world/realpath', { path: toWire(p) });
    if (ans.absent) throw new Refused('not_found'); // a link loop, or a chain over 40
    const r = fromWire(ans.path);
    if (!under(r, roots)) throw new Refused(denied);
    return r;
  }

  async fsRead(p) {
    const r = await this.confine(p, this.readRoots, 'fs_read_denied');
    return this.produced(await world('world/read', { path: toWire(r) }), 'data');
  }

  async fsWrite(p, data) {
    const r = await this.confine(p, this.writeRoots, 'fs_write_denied');
    await world('world/write', { path: toWire(r), data: toWire(data) });
    return soft('ok'); // a write produces no data: no output charge
  }

  async netFetch(host, path) {
    // Byte for byte: "API.internal" or "api.internal." is another host,
    // however the resolver would treat it.
    if (!this.hosts.has(host)) throw new Refused('egress_denied');
    // Resolve exactly once and fetch from that very address: resolving again
    // to connect is the DNS-rebinding hole.
    const { addr } = await world('world/resolve', { host: toWire(host) });
    if (isInternal(addr)) throw new Refused('egress_internal');
    return this.produced(await world('world/fetch', { host: toWire(host), addr, path: toWire(path) }), 'body');
  }

  async tool(name, input) {
    if (!this.tools.has(name)) throw new Refused('tool_denied');
    return this.produced(await world('world/call', { name: toWire(name), input: toWire(input) }), 'output');
  }

  // 5. Output charge: bytes past the budget halt, and are not returned.
  produced(answer, field) {
    if (answer.absent) throw new Refused('not_found');
    const data = fromWire(answer[field]);
    const n = BigInt(data.length);
    if (this.output + n > this.maxOutput) return this.halt('max_output_bytes');
    this.output += n;
    return soft('ok', data);
  }
}

// --- The protocol loop -----------------------------------------------------

async function main() {
  let sandbox = null;
  for (;;) {
    const line = await nextLine();
    if (line === null) return 0; // the harness went away: nothing left to do
    const msg = JSON.parse(line);
    const { method, id } = msg;
    if (method === undefined) { log('ignoring a stray response', id); continue; }
    const params = msg.params || {};
    let result;
    try {
      switch (method) {
        case 'initialize':
          result = { name: 'node-example', version: '0.1.0' };
          break;
        case 'sandbox/open':
          sandbox = null; // drop the previous one first, even if this fails
          sandbox = new Sandbox(params.grant);
          await sandbox.open();
          result = {};
          break;
        case 'sandbox/run': {
          const { kind, args } = params.op;
          const r = await sandbox.run(fromWire(kind), (args || []).map(fromWire));
          result = { kind: r.kind, hard: r.hard, data: toWire(r.data), usage: sandbox.usage() };
          break;
        }
        case 'sandbox/grant':
          result = sandbox.given; // as given: we never change it
          break;
        case 'shutdown':
          process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: {} }) + '\n', () => process.exit(0));
          return null;
        default: {
          if (id !== undefined) send({ jsonrpc: '2.0', id, error: { code: -32601, message: `unknown method ${method}` } });
          continue;
        }
      }
    } catch (e) {
      if (e instanceof ProtocolError) { log('protocol error:', e.message); return 1; } // a fresh child will come
      log(`${method}: ${e.stack || e}`); // answer, so the harness sees why
      if (id !== undefined) send({ jsonrpc: '2.0', id, error: { code: -32602, message: String(e.message || e) } });
      continue;
    }
    if (id !== undefined) send({ jsonrpc: '2.0', id, result });
  }
}

main().then((code) => { if (code !== null) process.exit(code); }, (e) => { log(e.stack || e); process.exit(1); });
