// geno-c JavaScript runtime: the HTTP client builtins (http_fetch,
// http_post, http_request) on Node, under the CLI's policy
// (src/host/http.c, src/host/net.c): http and https only, every address a
// name resolves to public unless GENO_HTTP_ALLOW_PRIVATE is set, the
// connection pinned to the checked addresses, at most 10 redirects each
// checked again, 30 seconds per request and never past the deadline, the
// body bounded by max_collection_size while it arrives.
//
// The builtins are synchronous and Node's HTTP is not: the request runs in
// a worker thread ($httpWorker, its source passed to the Worker) while
// this thread blocks in Atomics.wait; the answer comes back on a
// MessagePort read with receiveMessageOnPort. In a browser the builtins
// refuse (no synchronous HTTP without deprecated synchronous XHR, and no
// address policy a page could enforce).

//@ $httpWorker
// The worker: one request as src/host/http.c makes it. It gets
// {fn, method, url, headers, body, post, simple, allowPrivate, cap,
// deadline} and answers {fail, why, status, headers, body} where fail is
// 0 (none), 1 (policy), 2 (transport), 3 (deadline) or 4 (size).
function $httpWorker() {
  const { workerData } = require("worker_threads");
  const dns = require("dns");
  const { port, cell, rq } = workerData;
  const POLICY = 1, TRANSPORT = 2, DEADLINE = 3, SIZE = 4;
  const done = (r) => { port.postMessage(r); Atomics.store(cell, 0, 1); Atomics.notify(cell, 0); };
  const printable = (ch) => ch === " " || !/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u.test(ch);
  const hex = (c, n) => c.toString(16).padStart(n, "0");
  const repr = (s) => {
    const q = s.includes("'") && !s.includes("\"") ? "\"" : "'";
    let o = q;
    for (const ch of s) {
      const c = ch.codePointAt(0);
      if (ch === q || ch === "\\") o += "\\" + ch;
      else if (ch === "\n") o += "\\n"; else if (ch === "\r") o += "\\r"; else if (ch === "\t") o += "\\t";
      else if (printable(ch)) o += ch;
      else o += c <= 0xff ? "\\x" + hex(c, 2) : c <= 0xffff ? "\\u" + hex(c, 4) : "\\U" + hex(c, 8);
    }
    return o + q;
  };
  const bytesRepr = (s) => { // s: a latin-1 string (one char a byte)
    const q = s.includes("'") && !s.includes("\"") ? "\"" : "'";
    let o = "b" + q;
    for (const ch of s) {
      const c = ch.charCodeAt(0);
      if (ch === "\\" || ch === q) o += "\\" + ch;
      else if (ch === "\t") o += "\\t"; else if (ch === "\n") o += "\\n"; else if (ch === "\r") o += "\\r";
      else if (c < 0x20 || c >= 0x7f) o += "\\x" + hex(c, 2);
      else o += ch;
    }
    return o + q;
  };
  class Fail { constructor(kind, why) { this.kind = kind; this.why = why; } }
  // urlsplit's reading of the parts the policy looks at (host_url_parse)
  const parseUrl = (url) => {
    let s = url.replace(/^[\u0000-\u0020]+/, "").replace(/[\t\r\n]/g, "");
    const u = { scheme: "", host: null, port: -1 };
    const colon = s.indexOf(":");
    if (colon > 0 && /^[A-Za-z][A-Za-z0-9+.-]*$/.test(s.slice(0, colon))) { u.scheme = s.slice(0, colon).toLowerCase(); s = s.slice(colon + 1); }
    if (s.startsWith("//")) {
      const rest = s.slice(2), cut = rest.search(/[/?#]/), net = cut < 0 ? rest : rest.slice(0, cut);
      const h = net.slice(net.lastIndexOf("@") + 1);
      let host, port = null;
      if (h[0] === "[") {
        const close = h.indexOf("]");
        host = close < 0 ? h.slice(1) : h.slice(1, close);
        if (close >= 0 && h[close + 1] === ":") port = h.slice(close + 2);
      } else {
        const c = h.indexOf(":");
        host = c < 0 ? h : h.slice(0, c);
        if (c >= 0) port = h.slice(c + 1);
      }
      u.host = host.length ? host.toLowerCase() : null;
      if (port !== null && port.length) {
        if (!/^[0-9]+$/.test(port)) throw new Fail(POLICY, "Port could not be cast to integer value as " + repr(port));
        if (Number(port) > 65535) throw new Fail(POLICY, "Port out of range 0-65535");
        u.port = Number(port);
      }
    }
    return u;
  };
  const effectivePort = (u) => (u.port > 0 ? u.port : u.scheme === "https" ? 443 : u.scheme === "http" ? 80 : -1);
  const sameOrigin = (a, b) => {
    try {
      const x = parseUrl(a), y = parseUrl(b), hx = (x.host || "").replace(/\.+$/, ""), hy = (y.host || "").replace(/\.+$/, "");
      return x.scheme === y.scheme && hx === hy && effectivePort(x) === effectivePort(y);
    } catch (e) { return false; }
  };
  // the address policy (src/host/net.c): bytes of an IPv4 or IPv6 address
  const v4Denied = [[[0, 0, 0, 0], 8], [[10, 0, 0, 0], 8], [[100, 64, 0, 0], 10], [[127, 0, 0, 0], 8], [[169, 254, 0, 0], 16],
    [[172, 16, 0, 0], 12], [[192, 0, 0, 0], 24], [[192, 0, 2, 0], 24], [[192, 88, 99, 0], 24], [[192, 168, 0, 0], 16],
    [[198, 18, 0, 0], 15], [[198, 51, 100, 0], 24], [[203, 0, 113, 0], 24], [[224, 0, 0, 0], 4], [[240, 0, 0, 0], 4]];
  const v6Denied = [[[], 128], [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128], [[1, 0], 64], [[0x5f, 0], 16],
    [[0x20, 1, 0, 0], 23], [[0x20, 1, 0, 0x20], 28], [[0x20, 1, 0, 0x30], 28], [[0x20, 1, 0x0d, 0xb8], 32],
    [[0x3f, 0xff, 0, 0], 20], [[0xfc, 0], 7], [[0xfe, 0x80], 10], [[0xfe, 0xc0], 10], [[0xff, 0], 8]];
  const inNet = (a, net, bits) => {
    for (let i = 0; bits > 0; i++, bits -= 8) {
      const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
      if ((a[i] & mask) !== ((net[i] || 0) & mask)) return false;
    }
    return true;
  };
  const v4Public = (a) => v4Denied.every(([n, b]) => !inNet(a, n, b));
  const zero = (a, n) => a.slice(0, n).every((x) => x === 0);
  const v6Bytes = (text) => {
    let t = text.replace(/%.*$/, ""), tail = [];
    const m = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(t);
    if (m) { tail = [+m[1], +m[2], +m[3], +m[4]]; t = t.slice(0, m.index) + "0:0"; }
    const [l, r] = t.includes("::") ? t.split("::") : [t, null];
    const ls = l ? l.split(":") : [], rs = r ? r.split(":") : [];
    const groups = r === null ? ls : ls.concat(Array(8 - ls.length - rs.length).fill("0"), rs);
    const out = [];
    for (const g of groups) { const v = parseInt(g || "0", 16); out.push(v >> 8, v & 0xff); }
    if (tail.length) out.splice(12, 4, ...tail);
    return out;
  };
  const v6Public = (a) => {
    if ((a[0] === 0 && a[1] === 0x64 && a[2] === 0xff && a[3] === 0x9b && a[4] === 0 && a[5] === 1) ||
        (a[0] === 0x20 && a[1] === 1 && a[2] === 0 && a[3] === 0)) return false;
    const emb = [];
    if (zero(a, 10) && a[10] === 0xff && a[11] === 0xff) emb.push(a.slice(12));
    if (zero(a, 12)) emb.push(a.slice(12));
    if (a[0] === 0x20 && a[1] === 2) emb.push(a.slice(2, 6));
    if (a[0] === 0 && a[1] === 0x64 && a[2] === 0xff && a[3] === 0x9b && zero(a.slice(4), 8)) emb.push(a.slice(12));
    if (zero(a, 8) && a[8] === 0xff && a[9] === 0xff && a[10] === 0 && a[11] === 0) emb.push(a.slice(12));
    if (emb.length) return emb.every(v4Public);
    return v6Denied.every(([n, b]) => !inNet(a, n, b));
  };
  const addressPublic = (addr, family) => (family === 4 ? v4Public(addr.split(".").map(Number)) : v6Public(v6Bytes(addr)));
  // check_target: the scheme, a hostname, every resolved address; the
  // addresses to pin the connection to
  const checkTarget = async (url) => {
    const u = parseUrl(url);
    if (u.scheme !== "http" && u.scheme !== "https") throw new Fail(POLICY, rq.fn + ": scheme '" + u.scheme + "' is not allowed, only http and https");
    if (!u.host) throw new Fail(POLICY, rq.fn + ": URL must include a hostname");
    let addrs;
    try { addrs = await dns.promises.lookup(u.host, { all: true, verbatim: true }); } catch (e) { addrs = []; }
    if (!addrs.length) throw new Fail(POLICY, rq.fn + ": cannot resolve host " + repr(u.host));
    for (const a of addrs)
      if (!rq.allowPrivate && !addressPublic(a.address, a.family)) throw new Fail(POLICY, rq.fn + ": non-public network targets are not allowed");
    return addrs.slice(0, 16);
  };
  // Python's "'latin-1' codec can't encode character ..." for s
  const encodeCheck = (s, max, codec) => {
    const cps = Array.from(s);
    const first = cps.findIndex((ch) => ch.codePointAt(0) > max);
    if (first < 0) return Buffer.from(s, "latin1").toString("latin1");
    let last = first;
    while (last + 1 < cps.length && cps[last + 1].codePointAt(0) > max) last++;
    const c = cps[first].codePointAt(0);
    if (first === last)
      throw new Fail(TRANSPORT, "'" + codec + "' codec can't encode character '" + (c < 0x100 ? "\\x" + hex(c, 2) : c < 0x10000 ? "\\u" + hex(c, 4) : "\\U" + hex(c, 8)) +
        "' in position " + first + ": ordinal not in range(" + (max + 1) + ")");
    throw new Fail(TRANSPORT, "'" + codec + "' codec can't encode characters in position " + first + "-" + last + ": ordinal not in range(" + (max + 1) + ")");
  };
  // add_header: urllib's capitalize() key (a later one replaces an earlier
  // one), the name title-cased as sent, http.client's checks
  const headers = [];
  const addHeader = (name, value) => {
    const n = encodeCheck(name, 0x7f, "ascii"), v = encodeCheck(value, 0xff, "latin-1");
    const nameOk = n.length > 0 && !/^[:\s]/.test(n) && !/[:\r\n\u0000]/.test(n);
    let valueOk = !v.includes("\u0000");
    for (let i = 0; valueOk && i < v.length; i++) {
      const nx = v[i + 1];
      if (v[i] === "\n" && nx !== " " && nx !== "\t") valueOk = false;
      if (v[i] === "\r" && nx !== " " && nx !== "\t" && nx !== "\n") valueOk = false;
    }
    if (!nameOk) throw new Fail(TRANSPORT, "Invalid header name " + bytesRepr(n));
    if (!valueOk) throw new Fail(TRANSPORT, "Invalid header value " + bytesRepr(v));
    const key = n[0].toUpperCase() + n.slice(1).toLowerCase();
    const line = n.replace(/[A-Za-z0-9]+/g, (w) => w[0].toUpperCase() + w.slice(1).toLowerCase());
    if (key === "Content-length") return;
    const at = headers.findIndex((h) => h.key === key);
    if (at >= 0) headers[at].line = line, headers[at].value = v;
    else headers.push({ key, line, value: v });
  };
  const ERRNO = { ECONNREFUSED: [111, "Connection refused"], ECONNRESET: [104, "Connection reset by peer"],
    EHOSTUNREACH: [113, "No route to host"], ENETUNREACH: [101, "Network is unreachable"],
    ETIMEDOUT: [110, "Connection timed out"], EPIPE: [32, "Broken pipe"], EADDRNOTAVAIL: [99, "Cannot assign requested address"] };
  const transportError = (e) => {
    const en = ERRNO[e && e.code];
    return new Fail(TRANSPORT, en ? "<urlopen error [Errno " + en[0] + "] " + en[1] + ">" : "<urlopen error " + (e && e.message) + ">");
  };
  // One transfer (perform), HTTP/1.1 written and read here rather than by
  // Node's http module, which would refuse a folded header value the CLI
  // sends and add headers of its own. The connection goes only to the
  // pinned addresses, in order; the whole transfer has one timer.
  const perform = (url, method, body, pinned) => new Promise((resolve, reject) => {
    const left = rq.deadline < 0 ? -1 : rq.deadline - Date.now();
    if (rq.deadline >= 0 && left <= 0) return reject(new Fail(DEADLINE, ""));
    const byDeadline = left >= 0 && left < 30000;
    const u = new URL(url), tls = u.protocol === "https:";
    const port = Number(u.port) || (tls ? 443 : 80);
    let head = method + " " + (u.pathname || "/") + u.search + " HTTP/1.1\r\nHost: " + u.host + "\r\n";
    if (!headers.some((h) => h.key === "User-agent")) head += "User-Agent: geno-c\r\n";
    for (const h of headers) head += h.line + ": " + h.value + "\r\n";
    const payload = body === null ? null : Buffer.from(body, "utf8");
    if (payload !== null) {
      head += "Content-Length: " + payload.length + "\r\n";
      if (!headers.some((h) => h.key === "Content-type")) head += "Content-Type: application/x-www-form-urlencoded\r\n";
    }
    const request = Buffer.concat([Buffer.from(head + "\r\n", "latin1"), payload !== null && method !== "HEAD" ? payload : Buffer.alloc(0)]);
    let sock = null, finished = false, timer = null;
    const end = (f, v) => { if (finished) return; finished = true; clearTimeout(timer); if (sock) sock.destroy(); f(v); };
    timer = setTimeout(() => end(reject, byDeadline ? new Fail(DEADLINE, "") : new Fail(TRANSPORT, "<urlopen error timed out>")),
      (byDeadline ? left : 30000) + 1);
    // the response: status line and headers (a 1xx starts over), then the
    // body by chunks, by Content-Length or up to the close
    let buf = Buffer.alloc(0), status = 0, hs = [], state = "head", want = -1;
    const parts = [];
    let size = 0;
    const take = (b) => {
      if (size + b.length > rq.cap) { parts.push(b.subarray(0, rq.cap - size)); size = rq.cap; return false; }
      parts.push(b);
      size += b.length;
      return true;
    };
    const finish = () => end(resolve, { status, headers: hs, body: Buffer.concat(parts), tooMuch: false });
    const feed = () => {
      for (;;) {
        if (state === "head") {
          const at = buf.indexOf("\r\n\r\n");
          if (at < 0) { if (buf.length > 1 << 20) end(reject, new Fail(TRANSPORT, "<urlopen error header section too long>")); return; }
          const lines = buf.subarray(0, at).toString("latin1").split("\r\n");
          buf = buf.subarray(at + 4);
          const m = /^HTTP\/\d\.\d (\d{3})/.exec(lines[0]);
          if (!m) return end(reject, new Fail(TRANSPORT, "<urlopen error bad status line " + repr(lines[0]) + ">"));
          status = Number(m[1]);
          hs = [];
          for (const line of lines.slice(1)) {
            if (line === "") continue;
            if (line[0] === " " || line[0] === "\t") {
              if (hs.length) hs[hs.length - 1][1] += " " + line.replace(/^[ \t]+/, "");
              continue;
            }
            const c = line.indexOf(":");
            if (c < 0) continue;
            if (hs.length >= 100) return end(reject, new Fail(TRANSPORT, "got more than 100 headers"));
            hs.push([line.slice(0, c), line.slice(c + 1).replace(/^[ \t]+|[ \t]+$/g, "")]);
          }
          if (status >= 100 && status < 200) continue;
          const get = (n) => { const h = hs.find((x) => x[0].toLowerCase() === n); return h ? h[1] : undefined; };
          const te = get("transfer-encoding"), cl = get("content-length");
          if (method === "HEAD" || status === 204 || status === 304) return finish();
          if (te !== undefined && /chunked/i.test(te)) state = "size";
          else if (cl !== undefined && /^\s*\d+\s*$/.test(cl)) { state = "len"; want = Number(cl); }
          else state = "close";
          continue;
        }
        if (state === "len") {
          const n = Math.min(want, buf.length);
          if (n && !take(buf.subarray(0, n))) return end(resolve, { status, headers: hs, body: Buffer.concat(parts), tooMuch: true });
          buf = buf.subarray(n);
          want -= n;
          if (want === 0) return finish();
          return;
        }
        if (state === "close") {
          if (buf.length && !take(buf)) return end(resolve, { status, headers: hs, body: Buffer.concat(parts), tooMuch: true });
          buf = Buffer.alloc(0);
          return;
        }
        if (state === "size") {
          const at = buf.indexOf("\r\n");
          if (at < 0) return;
          want = parseInt(buf.subarray(0, at).toString("latin1"), 16);
          buf = buf.subarray(at + 2);
          if (!(want >= 0)) return end(reject, new Fail(TRANSPORT, "<urlopen error bad chunk size>"));
          if (want === 0) return finish();
          state = "chunk";
          continue;
        }
        if (state === "chunk") {
          const n = Math.min(want, buf.length);
          if (n && !take(buf.subarray(0, n))) return end(resolve, { status, headers: hs, body: Buffer.concat(parts), tooMuch: true });
          buf = buf.subarray(n);
          want -= n;
          if (want > 0) return;
          if (buf.length < 2) { state = "crlf"; return; }
          buf = buf.subarray(2);
          state = "size";
          continue;
        }
        if (state === "crlf") {
          if (buf.length < 2) return;
          buf = buf.subarray(2);
          state = "size";
        }
      }
    };
    const connect = (k, lastErr) => {
      if (finished) return;
      if (k >= pinned.length) return end(reject, transportError(lastErr));
      const a = pinned[k], opts = { host: a.address, port, family: a.family };
      const s = tls ? require("tls").connect({ ...opts, servername: u.hostname.replace(/^\[|\]$/g, ""), ALPNProtocols: ["http/1.1"] })
                    : require("net").connect(opts);
      let connected = false;
      sock = s;
      s.once(tls ? "secureConnect" : "connect", () => { connected = true; s.write(request); });
      s.on("data", (d) => { buf = buf.length ? Buffer.concat([buf, d]) : d; feed(); });
      s.on("end", () => {
        if (state === "close") finish();
        else end(reject, new Fail(TRANSPORT, "<urlopen error Remote end closed connection without response>"));
      });
      s.on("error", (e) => { if (!connected && !finished) { s.destroy(); connect(k + 1, e); } else end(reject, transportError(e)); });
    };
    connect(0, null);
  });
  const redirect = (s) => s === 301 || s === 302 || s === 303 || s === 307 || s === 308;
  const run = async () => {
    let url = rq.url, method = rq.method, body = rq.body;
    let pinned;
    if (rq.simple) {
      if (url.includes("\u0000")) throw new Fail(TRANSPORT, "<urlopen error URL can't contain control characters>");
      pinned = await checkTarget(url);
      if (rq.post) addHeader("Content-Type", "application/json");
    } else {
      method = method.replace(/[a-z]/g, (c) => c.toUpperCase());
      pinned = await checkTarget(url);
      const bad = [...method].findIndex((ch) => ch.codePointAt(0) < 0x20);
      if (bad >= 0) throw new Fail(TRANSPORT, "method can't contain control characters. " + repr(method) + " (found at least " + repr([...method][bad]) + ")");
      if (url.includes("\u0000")) throw new Fail(TRANSPORT, "<urlopen error URL can't contain control characters>");
      if ((method === "GET" || method === "HEAD") && body === "") body = null;
      if (method === "") method = "POST";
      for (const [n, v] of rq.headers) addHeader(n, v);
    }
    for (let hops = 0; ; hops++) {
      if (hops) pinned = await checkTarget(url);
      const r = await perform(url, method, body, pinned);
      if (r.tooMuch) return { fail: SIZE, body: r.body };
      const hs = r.headers;
      const loc = (hs.find((h) => h[0].toLowerCase() === "location") || hs.find((h) => h[0].toLowerCase() === "uri") || [])[1];
      if (!redirect(r.status) || loc === undefined) return { fail: 0, status: r.status, headers: hs, body: r.body };
      const ls = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(loc.replace(/^[\u0000-\u0020]+/, ""));
      if (ls && !["http", "https", "ftp"].includes(ls[1].toLowerCase())) return { fail: 0, status: r.status, headers: hs, body: r.body };
      if (hops >= 10) throw new Fail(POLICY, rq.fn + ": too many redirects");
      let target;
      try { target = new URL(loc, url).href; } catch (e) { throw new Fail(TRANSPORT, "<urlopen error invalid redirect location " + loc + ">"); }
      const toGet = (r.status === 303 && method !== "HEAD") || ((r.status === 301 || r.status === 302) && method === "POST");
      const changed = toGet && method !== "GET";
      if (!sameOrigin(url, target)) headers.length = 0;
      else if (changed) for (let i = headers.length - 1; i >= 0; i--) if (["Content-length", "Content-type", "Transfer-encoding"].includes(headers[i].key)) headers.splice(i, 1);
      if (changed) method = "GET";
      if (changed || ((method === "GET" || method === "HEAD") && (body === null || body === ""))) body = null;
      url = target;
    }
  };
  run().then(done, (e) => done(e instanceof Fail ? { fail: e.kind, why: e.why } : { fail: TRANSPORT, why: "<urlopen error " + (e && e.message) + ">" }));
}

//@ $http
// One request through the worker; the builtin's result or its failure
// (src/host/http.c's failure(): fetch and post fail the call, http_request
// returns Err; the size limit and the deadline end the run).
function $http(fn, rq, asErr) {
  if (typeof require !== "function") {
    const why = fn + ": HTTP requests are not available in a browser";
    if (asErr) return new $Err(why);
    $fail("E499", why);
  }
  const wt = require("worker_threads");
  const env = (process.env.GENO_HTTP_ALLOW_PRIVATE || "").toLowerCase();
  rq.fn = fn;
  rq.allowPrivate = ["1", "true", "yes", "on"].includes(env);
  rq.cap = $CFG.coll * 4 + 16384;
  rq.deadline = $CFG.timeout > 0 ? $T0 + $CFG.timeout * 1000 : -1;
  const cell = new Int32Array(new SharedArrayBuffer(4)), ch = new wt.MessageChannel();
  const w = new wt.Worker("(" + $httpWorker.toString() + ")()", { eval: true, workerData: { port: ch.port2, cell, rq }, transferList: [ch.port2] });
  w.unref();
  const wait = rq.deadline >= 0 ? Math.max(0, rq.deadline - Date.now()) + 2000 : 11 * 31000;
  Atomics.wait(cell, 0, 0, wait);
  const m = wt.receiveMessageOnPort(ch.port1);
  w.terminate();
  ch.port1.close();
  const timedOut = () => $fatal("E501", "Execution timed out after " + $CFG.timeout + " seconds");
  if (m === undefined) { if (rq.deadline >= 0) timedOut(); $fail("E499", fn + ": no answer from the request"); }
  const r = m.message;
  if (r.fail === 3) timedOut();
  if (r.fail === 4 || r.fail === 0) {
    const [text, report] = $httpText(r.body);
    if (r.fail === 4 || report > $CFG.coll) $fatal("E504", "String size exceeds limit (" + (r.fail === 4 && report <= $CFG.coll ? $CFG.coll + 1 : report) + " > " + $CFG.coll + ")");
    if (!asErr) return text;
    return new $Ok(new C_HttpResponse(BigInt(r.status), text, r.headers.map((h) => new $T(h))));
  }
  if (asErr) return new $Err(r.why);
  $fail("E499", (r.fail === 2 ? fn + ": " : "") + r.why);
}

//@ $httpText
// The body decoded as UTF-8 with replacement, and the count the CLI
// reports against max_collection_size: code points, checked at each 8192
// bytes (host_decode_limited).
function $httpText(buf) {
  const text = new TextDecoder("utf-8").decode(buf);
  let total = 0, boundary = 8192, i = 0;
  const n = buf.length;
  while (i < n) {
    const c = buf[i];
    let k = 1;
    if (c >= 0xc2 && c <= 0xf4) {
      const need = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
      const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80, hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
      let j = 1;
      if (i + 1 < n && buf[i + 1] >= lo && buf[i + 1] <= hi) {
        j = 2;
        while (j < need && i + j < n && buf[i + j] >= 0x80 && buf[i + j] <= 0xbf) j++;
      }
      k = j;
    }
    for (; i + k > boundary; boundary += 8192) if (total > $CFG.coll) return [text, total];
    total++;
    i += k;
  }
  return [text, total];
}

//@ $b_http_fetch
function $b_http_fetch(url) { $cap("http", "http_fetch"); return $http("http_fetch", { simple: true, post: false, url, method: "GET", body: null, headers: [] }, false); }
//@ $b_http_post
function $b_http_post(url, body) { $cap("http", "http_post"); return $http("http_post", { simple: true, post: true, url, method: "POST", body, headers: [] }, false); }
//@ $b_http_request
function $b_http_request(method, url, headers, body) {
  $cap("http", "http_request");
  return $http("http_request", { simple: false, post: false, url, method, body, headers: headers.map((t) => t.a) }, true);
}
