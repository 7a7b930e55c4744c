// geno-c JavaScript runtime: the data-format builtins (JSON, CSV, TOML).
// Their results and messages are the VM's (src/lib/json.c, csv.c, toml.c):
// the reference's Python json module byte for byte.

//@ $cpAt
// Code points in s[0..i) (i counts UTF-16 units).
function $cpAt(s, i) {
  let n = 0;
  for (let k = 0; k < i; k++) { const c = s.charCodeAt(k); if (c < 0xdc00 || c > 0xdfff) n++; }
  return n;
}

//@ $jq
// A JSON string literal with Python's escapes; `ascii` (ensure_ascii) also
// escapes DEL and every non-ASCII code point (a surrogate pair above U+FFFF).
function $jq(s, ascii) {
  const re = ascii ? /[\\"\u0000-\u001f\u007f-\uffff]/g : /[\\"\u0000-\u001f]/g;
  return "\"" + s.replace(re, (c) => {
    switch (c) {
      case "\\": return "\\\\"; case "\"": return "\\\""; case "\b": return "\\b";
      case "\f": return "\\f"; case "\n": return "\\n"; case "\r": return "\\r"; case "\t": return "\\t";
    }
    return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
  }) + "\"";
}

//@ $jlim
// A collection bigger than max_collection_size ends the run.
function $jlim(kind, n) { if (n > $CFG.coll) $fatal("E504", kind + " size exceeds limit (" + n + " > " + $CFG.coll + ")"); }

//@ $b_json_parse
// A strict recursive descent over the text (nesting was bounded to 128
// first); positions in messages count code points, as Python's do.
function $b_json_parse(s) {
  let depth = 0, inStr = false, esc = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inStr) { if (esc) esc = false; else if (c === "\\") esc = true; else if (c === "\"") inStr = false; }
    else if (c === "\"") inStr = true;
    else if (c === "[" || c === "{") { if (++depth > 128) return new $Err("json_parse: input nested too deeply (max 128)"); }
    else if ((c === "]" || c === "}") && depth > 0) depth--;
  }
  $S += s.length >> 4;
  const n = s.length;
  let seq = 0, prob = null;
  const note = (q, p) => { if (!prob || q < prob.q) prob = { q, p }; };
  const bad = (msg, at) => { throw { $json: msg, at }; };
  const ws = (i) => { while (i < n && (s[i] === " " || s[i] === "\t" || s[i] === "\n" || s[i] === "\r")) i++; return i; };
  const hex4 = (i) => (i + 4 < n && /^[0-9a-fA-F]{4}$/.test(s.slice(i, i + 4)) ? parseInt(s.slice(i, i + 4), 16) : -1);
  let i = 0;
  const str = () => {
    const q = i - 1;
    let out = "";
    for (;;) {
      const run = i;
      while (i < n && s[i] !== "\"" && s[i] !== "\\" && s.charCodeAt(i) >= 0x20) i++;
      out += s.slice(run, i);
      if (i >= n) bad("Unterminated string starting at", q);
      if (s[i] === "\"") break;
      if (s[i] !== "\\") bad("Invalid control character at", i);
      if (i + 1 >= n) bad("Unterminated string starting at", q);
      const c = s[i + 1];
      if (c !== "u") {
        const k = "\"\\/bfnrt".indexOf(c);
        if (k < 0) bad("Invalid \\escape", i);
        out += "\"\\/\b\f\n\r\t"[k];
        i += 2;
        continue;
      }
      let cp = hex4(i + 2);
      if (cp < 0) bad("Invalid \\uXXXX escape", i + 1);
      i += 6;
      if (cp >= 0xd800 && cp <= 0xdbff && s[i] === "\\" && s[i + 1] === "u") {
        const lo = hex4(i + 2);
        if (lo < 0) bad("Invalid \\uXXXX escape", i + 1);
        if (lo >= 0xdc00 && lo <= 0xdfff) { cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00); i += 6; }
      }
      out += cp >= 0xd800 && cp <= 0xdfff ? "\ufffd" : String.fromCodePoint(cp);
    }
    i++;
    const cps = $slen(out);
    if (cps > $CFG.coll) note(seq, ["String", cps]);
    return out;
  };
  const num = () => {
    const start = i;
    if (s[i] === "-") i++;
    if (s[i] >= "1" && s[i] <= "9") { while (s[i] >= "0" && s[i] <= "9") i++; }
    else if (s[i] === "0") i++;
    else bad("Expecting value", start);
    let fl = false;
    if (s[i] === "." && s[i + 1] >= "0" && s[i + 1] <= "9") { fl = true; i += 2; while (s[i] >= "0" && s[i] <= "9") i++; }
    if (s[i] === "e" || s[i] === "E") {
      let e = i + 1;
      if (s[e] === "+" || s[e] === "-") e++;
      if (s[e] >= "0" && s[e] <= "9") { while (s[e] >= "0" && s[e] <= "9") e++; fl = true; i = e; }
    }
    const t = s.slice(start, i);
    if (fl) {
      const d = Number(t);
      if (!isFinite(d)) note(seq, null);
      return new C_JsonFloat(d);
    }
    const digits = t.length - (t[0] === "-" ? 1 : 0);
    if (digits > 4300) throw { $json: "Exceeds the limit (4300 digits) for integer string conversion: value has " + digits + " digits; use sys.set_int_max_str_digits() to increase the limit" };
    return new C_JsonInt($bits(BigInt(t)));
  };
  const val = () => {
    const q = ++seq;
    if (i >= n) bad("Expecting value", i);
    const c = s[i];
    if (c === "\"") { i++; return new C_JsonString(str()); }
    if (c === "[") {
      const items = [];
      i = ws(i + 1);
      if (s[i] === "]") i++;
      else for (;;) {
        items.push(val());
        i = ws(i);
        if (s[i] === "]") { i++; break; }
        if (s[i] !== ",") bad("Expecting ',' delimiter", i);
        i = ws(i + 1);
      }
      if (items.length > $CFG.coll) note(q, ["List", items.length]);
      return new C_JsonArray(items);
    }
    if (c === "{") {
      const keys = new Map(), ents = [];
      i = ws(i + 1);
      if (s[i] === "}") i++;
      else for (;;) {
        if (s[i] !== "\"") bad("Expecting property name enclosed in double quotes", i);
        i++; seq++;
        const k = str();
        i = ws(i);
        if (s[i] !== ":") bad("Expecting ':' delimiter", i);
        i = ws(i + 1);
        const v = val();
        const at = keys.get(k);
        if (at === undefined) { keys.set(k, ents.length); ents.push(new $T([k, v])); }
        else ents[at] = new $T([k, v]);
        i = ws(i);
        if (s[i] === "}") { i++; break; }
        if (s[i] !== ",") bad("Expecting ',' delimiter", i);
        i = ws(i + 1);
      }
      if (ents.length > $CFG.coll) note(q, ["Map", ents.length]);
      return new C_JsonObject(ents);
    }
    if (s.startsWith("null", i)) { i += 4; return C_JsonNull; }
    if (s.startsWith("true", i)) { i += 4; return new C_JsonBool(true); }
    if (s.startsWith("false", i)) { i += 5; return new C_JsonBool(false); }
    for (const w of ["NaN", "Infinity", "-Infinity"]) if (s.startsWith(w, i)) throw { $json: "Invalid JSON constant: " + w };
    if (c === "-" || (c >= "0" && c <= "9")) return num();
    bad("Expecting value", i);
  };
  let v;
  try {
    if (s.charCodeAt(0) === 0xfeff) bad("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
    i = ws(0);
    v = val();
    i = ws(i);
    if (i < n) bad("Extra data", i);
  } catch (e) {
    if (!e || e.$json === undefined) throw e;
    if (e.at === undefined) return new $Err(e.$json);
    const cp = $cpAt(s, e.at), nl = s.lastIndexOf("\n", e.at - 1);
    let line = 1;
    for (let k = 0; k < e.at; k++) if (s[k] === "\n") line++;
    const col = nl >= 0 ? cp - $cpAt(s, nl) : cp + 1;
    return new $Err(e.$json + ": line " + line + " column " + col + " (char " + cp + ")");
  }
  if (prob && prob.p === null) return new $Err("json_parse: non-finite JSON number");
  if (prob) $jlim(prob.p[0], prob.p[1]);
  return new $Ok(v);
}

//@ $jw
// Writers. $jcheck is the reference's conversion walk before dumping (sizes,
// finite floats, depth); $jw writes a JsonValue ($jany any value, as
// json_to_string does). An object's repeated key keeps its first position
// and takes the last value, as a Python dict.
function $jdeep(fn, d) { if (d > 1000) $fail("E499", fn + ": value nested too deeply (max 1000 levels)"); if (++$S > $M) $step(); }
function $jcheck(v, d) {
  $jdeep("json_stringify", d);
  if (!(v instanceof T_JsonValue)) $fail("E499", "json_stringify: expected JsonValue, got " + $render(v, false));
  if (v instanceof C_JsonFloat) { if (typeof v.value === "number" && !isFinite(v.value)) $fail("E499", "json_stringify: JsonFloat must be finite"); }
  else if (v instanceof C_JsonString) $jlim("String", $slen(v.value));
  else if (v instanceof C_JsonArray) { $jlim("List", v.items.length); for (const x of v.items) $jcheck(x, d + 1); }
  else if (v instanceof C_JsonObject) {
    $jlim("Map", v.entries.length);
    for (const e of v.entries) { $jlim("String", $slen(e.a[0])); $jcheck(e.a[1], d + 1); }
  }
}
function $jdedupe(pairs) {
  const at = new Map(), out = [];
  for (const [k, v] of pairs) {
    const i = at.get(k);
    if (i === undefined) { at.set(k, out.length); out.push([k, v]); } else out[i][1] = v;
  }
  return out;
}
function $jw(v, o, d) {
  $jdeep(o.fn, d);
  if (v === C_JsonNull) return "null";
  const f = v[v.$f[0]];
  if (v instanceof C_JsonBool) return f ? "true" : "false";
  if (v instanceof C_JsonInt || v instanceof C_JsonFloat)
    return typeof f === "number" ? $fmtF(f) : typeof f === "boolean" ? String(f) : $itxt(f);
  if (v instanceof C_JsonString) return $jq(f, o.ascii);
  const nl = o.ind > 0 ? "\n" + " ".repeat(o.ind * (d + 1)) : "", end = o.ind > 0 ? "\n" + " ".repeat(o.ind * d) : "";
  if (v instanceof C_JsonArray) {
    if (f.length === 0) return "[]";
    return "[" + f.map((x) => nl + $jw(x, o, d + 1)).join(",") + end + "]";
  }
  if (f.length === 0) return "{}";
  const sep = o.ind > 0 ? ": " : ":";
  return "{" + $jdedupe(f.map((e) => e.a)).map(([k, x]) => nl + $jq(k, o.ascii) + sep + $jw(x, o, d + 1)).join(",") + end + "}";
}
function $jout(fn, t) {
  const n = $slen(t);
  if (n > $CFG.coll) $fatal("E504", fn + ": String size exceeds limit (" + n + " > " + $CFG.coll + ")");
  return t;
}

//@ $b_json_stringify
function $b_json_stringify(v) { $jcheck(v, 0); return $jout("json_stringify", $jw(v, { fn: "json_stringify", ascii: true, ind: 0 }, 0)); }

//@ $b_json_stringify_pretty
// indent <= 0 is compact; non-ASCII text is written as is. A large indent
// is measured first (in code points, saturating as the VM's count does).
function $b_json_stringify_pretty(v, ind) {
  $jcheck(v, 0);
  const i = ind < 0n ? 0n : ind;
  if (i > 1024n) {
    const n = $jsize(v, i, 0n), top = (1n << 64n) - 1n;
    if (n > BigInt($CFG.coll)) $fatal("E504", "json_stringify_pretty: String size exceeds limit (" + (n > top ? top : n) + " > " + $CFG.coll + ")");
  }
  return $jout("json_stringify_pretty", $jw(v, { fn: "json_stringify_pretty", ascii: false, ind: Number(i) }, 0));
}
function $jsize(v, ind, d) {
  if (v instanceof C_JsonArray || v instanceof C_JsonObject) {
    const f = v.items || $jdedupe(v.entries.map((e) => e.a));
    if (f.length === 0) return 2n;
    let n = 2n + BigInt(f.length - 1) + BigInt(f.length) * (1n + ind * (d + 1n)) + 1n + ind * d;
    for (const x of f) n += Array.isArray(x) ? BigInt($slen($jq(x[0], false))) + 2n + $jsize(x[1], ind, d + 1n) : $jsize(x, ind, d + 1n);
    return n;
  }
  return BigInt($slen($jw(v, { fn: "json_stringify_pretty", ascii: false, ind: 0 }, 0)));
}

//@ $b_json_to_string
// Any value as JSON: None null, Some/Ok their value, Err {"error": e},
// other constructors {"_tag": Name, field: value...}, Map keys as Python's
// str(key), tuples and lists arrays, a written () [] and other Units null.
function $b_json_to_string(v) {
  const o = { fn: "json_to_string", ascii: true, ind: 0 };
  $jcheckAny(v, 0);
  return $jout("json_to_string", $jany(v, o, 0));
}
function $jcheckAny(v, d) {
  $jdeep("json_to_string", d);
  if (typeof v === "number") { if (!isFinite(v)) $fail("E499", "json_to_string: Float must be finite"); }
  else if (typeof v === "string") $jlim("String", $slen(v));
  else if (Array.isArray(v)) { $jlim("List", v.length); for (const x of v) $jcheckAny(x, d + 1); }
  else if (v instanceof $T) { $jlim("Tuple", v.a.length); for (const x of v.a) $jcheckAny(x, d + 1); }
  else if (v instanceof $GMap) { $jlim("Map", v.m.size); for (const e of v.m.values()) $jcheckAny(e[1], d + 1); }
  else if (v instanceof $V) {
    if (typeof T_JsonValue !== "undefined" && v instanceof T_JsonValue) return $jcheck(v, d);
    if (v.$n === "None") return;
    for (const k of v.$f) $jcheckAny(v[k], d + 1);
    if (v.$n !== "Some" && v.$n !== "Ok" && v.$n !== "Err") $jlim("Map", v.$f.length + 1);
  }
}
function $jany(v, o, d) {
  $jdeep(o.fn, d);
  switch (typeof v) {
    case "bigint": return $itxt(v);
    case "number": return $fmtF(v);
    case "string": return $jq(v, true);
    case "boolean": return v ? "true" : "false";
    case "undefined": return "null";
  }
  if (v.$u) return "[]";
  if (Array.isArray(v) || v instanceof $T) return "[" + (Array.isArray(v) ? v : v.a).map((x) => $jany(x, o, d + 1)).join(",") + "]";
  if (v instanceof $V) {
    if (typeof T_JsonValue !== "undefined" && v instanceof T_JsonValue) return $jw(v, o, d);
    if (v.$n === "None") return "null";
    if (v.$n === "Some" || v.$n === "Ok") return $jany(v.value, o, d + 1);
    if (v.$n === "Err") return "{\"error\":" + $jany(v.error, o, d + 1) + "}";
    const tag = v.$f.indexOf("_tag");
    let s = "{\"_tag\":" + (tag >= 0 ? $jany(v._tag, o, d + 1) : $jq(v.$n, true));
    for (const k of v.$f) if (k !== "_tag") s += "," + $jq($fk(k), true) + ":" + $jany(v[k], o, d + 1);
    return s + "}";
  }
  if (v instanceof $GMap) {
    const pairs = [];
    for (const [k, x] of v.m.values()) pairs.push([typeof k === "string" ? k : $jkey(k), x]);
    if (pairs.length === 0) return "{}";
    return "{" + $jdedupe(pairs).map(([k, x]) => $jq(k, true) + ":" + $jany(x, o, d + 1)).join(",") + "}";
  }
  return $jq($render(v, true), true);
}
// A Map key's text (Python's str of it), bounded while it is built: a key
// made of shared parts can have a node per path.
function $jkey(k) {
  const cap = 4 * $CFG.coll + 64, out = [];
  let n = 0;
  const put = (t) => {
    n += t.length;
    if (n > cap) $fatal("E504", "json_to_string: String size exceeds limit (more than " + $CFG.coll + ")");
    out.push(t);
  };
  const walk = (x) => { // (bounded by the size: no step charge)
    if (Array.isArray(x) || x instanceof $T) {
      const a = Array.isArray(x) ? x : x.a;
      put(Array.isArray(x) ? "[" : "(");
      a.forEach((y, i) => { if (i) put(", "); walk(y); });
      put(Array.isArray(x) ? "]" : a.length === 1 ? ",)" : ")");
    } else if (x instanceof $V) {
      put(x.$n);
      if (x.$f.length) { put("("); x.$f.forEach((f, i) => { if (i) put(", "); put($fk(f) + ": "); walk(x[f]); }); put(")"); }
    } else put($repr(x));
  };
  walk(k);
  return out.join("");
}

//@ $csvRows
// Python's csv.reader, excel dialect, not strict: records of fields, each
// at most 131072 characters; a text over max_collection_size ends the run.
function $csvRows(s, fn, each) {
  const lim = (n) => { if (n > $CFG.coll) $fatal("E504", fn + ": String size exceeds limit (" + n + " > " + $CFG.coll + ")"); };
  const n = s.length;
  let pos = 0;
  for (;;) {
    let row = [], field = "", cps = 0, st = 0, started = false, done = false;
    // states: 0 record start, 1 field start, 2 in field, 3 quoted, 4 quote in quoted, 5 eat line end
    const save = () => { lim(cps); row.push(field); field = ""; cps = 0; };
    const add = (ch) => {
      if (cps >= 131072) $fail("E499", "field larger than field limit (131072)");
      field += ch; cps++;
    };
    const step = (c) => { // c: a character or null (end of line)
      const nl = c === "\n" || c === "\r";
      switch (st) {
        case 0:
          if (c === null) { done = true; return; }
          if (nl) { st = 5; return; }
          st = 1;
        // fall through
        case 1:
          if (nl || c === null) { save(); st = c === null ? 0 : 5; done = c === null; }
          else if (c === "\"") st = 3;
          else if (c === ",") save();
          else { st = 2; add(c); }
          return;
        case 2:
          if (nl || c === null) { save(); st = c === null ? 0 : 5; done = c === null; }
          else if (c === ",") { st = 1; save(); }
          else add(c);
          return;
        case 3:
          if (c === null) return;
          if (c === "\"") st = 4; else add(c);
          return;
        case 4:
          if (c === "\"") { st = 3; add(c); }
          else if (c === ",") { st = 1; save(); }
          else if (nl || c === null) { save(); st = c === null ? 0 : 5; done = c === null; }
          else { st = 2; add(c); }
          return;
        case 5:
          if (c === null) { st = 0; done = true; }
      }
    };
    const start = pos;
    while (pos < n && !done) {
      started = true;
      const cp = s.codePointAt(pos), ch = String.fromCodePoint(cp);
      pos += ch.length;
      step(ch);
      if (ch === "\n" || (ch === "\r" && s[pos] !== "\n") || pos >= n) step(null);
    }
    $S += (pos - start) >> 4;
    if (!done) {
      if (!(started && (cps > 0 || st === 3))) return;
      save();
    }
    each(row);
    if (!done) return;
  }
}

//@ $b_csv_parse
function $b_csv_parse(s) {
  const out = [];
  $csvRows(s, "csv_parse", (r) => {
    $jlim("List", out.length + 1);
    $jlim("List", r.length);
    for (const f of r) { const n = $slen(f); if (n > $CFG.coll) $fatal("E504", "csv_parse: String size exceeds limit (" + n + " > " + $CFG.coll + ")"); }
    out.push(r);
  });
  return out;
}

//@ $b_csv_parse_with_headers
// The first record names the columns; a short record gets "" for missing
// cells, extra cells are dropped, a repeated header keeps its first
// position and the last value.
function $b_csv_parse_with_headers(s) {
  const fn = "csv_parse_with_headers", out = [];
  let heads = null;
  const lim = (n) => { if (n > $CFG.coll) $fatal("E504", fn + ": String size exceeds limit (" + n + " > " + $CFG.coll + ")"); };
  $csvRows(s, fn, (r) => {
    if (heads === null) { heads = r; return; }
    $jlim("List", out.length + 1);
    const m = new Map();
    heads.forEach((h, i) => {
      const v = i < r.length ? r[i] : "";
      lim($slen(h)); lim($slen(v));
      if (!m.has(h)) $jlim("Map", m.size + 1);
      $mset(m, h, v);
    });
    out.push(new $GMap(m));
  });
  return out;
}

//@ $b_toml_parse
// TOML 1.0 as the VM reads it (src/lib/toml.c, which behaves as Python's
// tomllib): the same documents accepted, the same messages with
// "(at line L, column C)" in code points, the same table-redefinition
// rules (per key path, "explicit" and recursive "frozen" flags), then the
// same top-down conversion (a non-finite float is Err, a date or time a
// runtime error, sizes and Int bits the run's limits). Nesting deeper than
// 1000 (brackets while parsing, tables however made while converting) is
// a runtime error. "\r\n" reads as "\n" everywhere.
function $b_toml_parse(src) {
  const TAB = 0, ARR = 1, STR = 2, INT = 3, FLT = 4, BOOL = 5, DATE = 6, DTIME = 7, TIME = 8;
  const EXPLICIT = 2, FROZEN = 1, MAXN = 1000;
  const s = src.replace(/\r\n/g, "\n"), n = s.length;
  $S += src.length >> 4;
  let str = "", val = null, kvKey = null, kind = 0, depth = 0;
  const fail = (at, msg) => { throw { $toml: msg, at }; };
  const failKey = (at, before, key, after) =>
    fail(at, before + "(" + key.map($repr).join(", ") + (key.length === 1 ? ",)" : ")") + after);
  const failChar = (at, what) => fail(at, what + " " + $repr(String.fromCodePoint(s.codePointAt(at))));
  const isd = (c) => c !== undefined && c >= "0" && c <= "9";
  const hexv = (c) => (c === undefined ? -1 : "0123456789abcdef".indexOf(c.toLowerCase()));
  const bare = (c) => c !== undefined && /^[A-Za-z0-9_-]$/.test(c);
  const ctrl = (c) => c < 0x20 || c === 0x7f;
  const ws = (i) => { while (s[i] === " " || s[i] === "\t") i++; return i; };
  const wsnl = (i) => { while (s[i] === " " || s[i] === "\t" || s[i] === "\n") i++; return i; };
  const table = () => ({ t: TAB, m: new Map() });
  const fnode = () => ({ f: 0, r: 0, ch: null });
  // tomllib's skip_until: the position of `expect` from i (or the end);
  // no control character but tab (and newline when allowNl) before it
  const skipUntil = (i, expect, allowNl, errorOnEof) => {
    let end = i <= n ? s.indexOf(expect, i) : -1;
    if (end < 0) { if (errorOnEof) fail(n, "Expected " + $repr(expect)); end = n; }
    for (let k = i; k < end; k++) {
      const c = s.charCodeAt(k);
      if (ctrl(c) && c !== 9 && !(allowNl && c === 10)) failChar(k, "Found invalid character");
    }
    return end;
  };
  const skipComment = (i) => (s[i] === "#" ? skipUntil(i + 1, "\n", false, false) : i);
  const skipArrayWs = (i) => { for (;;) { const b = i; i = skipComment(wsnl(i)); if (i === b) return i; } };
  // an escape at i (s[i] is a backslash) appended to str
  const escape = (i, ml) => {
    const e = s[i + 1];
    let p = i + 2;
    if (ml && (e === " " || e === "\t" || e === "\n")) {
      if (e !== "\n") {
        p = ws(p);
        if (p >= n) return p;
        if (s[p] !== "\n") fail(p, "Unescaped '\\' in a string");
        p++;
      }
      return wsnl(p);
    }
    if (e === "u" || e === "U") {
      const len = e === "u" ? 4 : 8;
      let v = 0, ok = n - p >= len;
      for (let k = 0; ok && k < len; k++) { const h = hexv(s[p + k]); if (h < 0) ok = false; else v = v * 16 + h; }
      if (!ok) fail(p, "Invalid hex value");
      p += len;
      if (!(v <= 0xd7ff || (v >= 0xe000 && v <= 0x10ffff))) fail(p, "Escaped character is not a Unicode scalar value");
      str += String.fromCodePoint(v);
      return p;
    }
    const k = e === undefined ? -1 : "btnfr\"\\".indexOf(e);
    if (k < 0) fail(p, "Unescaped '\\' in a string");
    str += "\b\t\n\f\r\"\\"[k];
    return p;
  };
  // a basic string's body from i into str; the position after its end
  const basicStr = (i, ml) => {
    let start = i;
    str = "";
    for (;;) {
      if (i >= n) fail(i, "Unterminated string");
      const c = s.charCodeAt(i);
      if (c === 34) {
        if (!ml) { str += s.slice(start, i); return i + 1; }
        if (s.startsWith("\"\"\"", i)) { str += s.slice(start, i); return i + 3; }
        i++;
        continue;
      }
      if (c === 92) { str += s.slice(start, i); i = escape(i, ml); start = i; continue; }
      if (ctrl(c) && c !== 9 && !(ml && c === 10)) failChar(i, "Illegal character");
      i++;
    }
  };
  const literalStr = (i) => { const end = skipUntil(i + 1, "'", false, true); str = s.slice(i + 1, end); return end + 1; };
  // """...""" and '''...''': a newline right after the opening is dropped;
  // up to two quotes before the closing belong to the string
  const multilineStr = (i, literal) => {
    i += 3;
    if (s[i] === "\n") i++;
    if (literal) { const end = skipUntil(i, "'''", true, true); str = s.slice(i, end); i = end + 3; }
    else i = basicStr(i, true);
    const d = literal ? "'" : "\"";
    for (let extra = 0; extra < 2 && s[i] === d; extra++, i++) str += d;
    return i;
  };
  const keyPart = (i) => {
    const c = s[i];
    if (bare(c)) { const st = i; while (bare(s[i])) i++; str = s.slice(st, i); return i; }
    if (c === "'") return literalStr(i);
    if (c === "\"") return basicStr(i + 1, false);
    fail(i, "Invalid initial character for a key part");
  };
  // key = part (ws '.' ws part)* ws, into kvKey
  const parseKey = (i) => {
    const key = [];
    for (;;) {
      i = keyPart(i);
      key.push(str);
      i = ws(i);
      if (s[i] !== ".") { kvKey = key; return i; }
      i = ws(i + 1);
    }
  };
  const parseKv = (i) => {
    i = parseKey(i);
    const key = kvKey;
    if (s[i] !== "=") fail(i, "Expected '=' after a key in a key/value pair");
    i = parseValue(ws(i + 1));
    kvKey = key;
    return i;
  };
  // tomllib's get_or_create_nest over key[0..len): through an array, its
  // last item; null where a non-table is in the way
  const nest = (root, key, len, lists) => {
    let c = root;
    for (let i = 0; i < len; i++) {
      let k = c.m.get(key[i]);
      if (!k) { k = table(); c.m.set(key[i], k); }
      c = k;
      if (lists && c.t === ARR) c = c.kids.length ? c.kids[c.kids.length - 1] : null;
      if (!c || c.t !== TAB) return null;
    }
    return c;
  };
  const fchild = (f, k, create) => {
    let c = f.ch === null ? undefined : f.ch.get(k);
    if (c !== undefined) return c;
    if (!create) return null;
    c = fnode();
    if (f.ch === null) f.ch = new Map();
    f.ch.set(k, c);
    return c;
  };
  const flagsSet = (root, key, flag, rec) => {
    let c = root;
    for (const k of key) c = fchild(c, k, true);
    if (rec) c.r |= flag; else c.f |= flag;
  };
  const flagsIs = (root, key, flag) => {
    if (key.length === 0) return false;
    let c = root;
    for (let i = 0; i + 1 < key.length; i++) {
      c = fchild(c, key[i], false);
      if (c === null) return false;
      if (c.r & flag) return true;
    }
    c = fchild(c, key[key.length - 1], false);
    return c !== null && ((c.f | c.r) & flag) !== 0;
  };
  // forget the flags at key and below (a fresh node reads as a missing one)
  const flagsUnsetAll = (root, key) => {
    let c = root;
    for (let i = 0; i + 1 < key.length; i++) { c = fchild(c, key[i], false); if (c === null) return; }
    const last = key[key.length - 1];
    if (c.ch !== null && c.ch.has(last)) c.ch.set(last, fnode());
  };
  const parseArray = (i) => {
    const a = { t: ARR, kids: [] };
    i = skipArrayWs(i + 1);
    if (s[i] === "]") { val = a; return i + 1; }
    for (;;) {
      i = parseValue(i);
      a.kids.push(val);
      i = skipArrayWs(i);
      const c = s[i];
      if (c === "]") { val = a; return i + 1; }
      if (c !== ",") fail(i, "Unclosed array");
      i = skipArrayWs(i + 1);
      if (s[i] === "]") { val = a; return i + 1; }
    }
  };
  const parseInlineTable = (i) => {
    const tab = table(), flags = fnode();
    i = ws(i + 1);
    if (s[i] === "}") { val = tab; return i + 1; }
    for (;;) {
      i = parseKv(i);
      const key = kvKey, v = val;
      if (flagsIs(flags, key, FROZEN)) failKey(i, "Cannot mutate immutable namespace ", key, "");
      const into = nest(tab, key, key.length - 1, false);
      if (into === null) fail(i, "Cannot overwrite a value");
      const stem = key[key.length - 1];
      if (into.m.has(stem)) fail(i, "Duplicate inline table key " + $repr(stem));
      into.m.set(stem, v);
      i = ws(i);
      const c = s[i];
      if (c === "}") { val = tab; return i + 1; }
      if (c !== ",") fail(i, "Unclosed inline table");
      if (v.t === TAB || v.t === ARR) flagsSet(flags, key, FROZEN, true);
      i = ws(i + 1);
    }
  };
  const digitsAt = (i, k) => { for (let j = 0; j < k; j++) if (!isd(s[i + j])) return false; return true; };
  const num2 = (i) => (s.charCodeAt(i) - 48) * 10 + (s.charCodeAt(i + 1) - 48);
  // HH:MM:SS(.frac)? with tomllib's ranges; the end or 0
  const matchTime = (i) => {
    if (!digitsAt(i, 2) || s[i + 2] !== ":" || !digitsAt(i + 3, 2) || s[i + 5] !== ":" || !digitsAt(i + 6, 2)) return 0;
    if (num2(i) > 23 || num2(i + 3) > 59 || num2(i + 6) > 59) return 0;
    let e = i + 8;
    if (s[e] === "." && isd(s[e + 1])) { e++; while (isd(s[e])) e++; }
    return e;
  };
  // a date, date-time or local time at i: the end (kind set), or 0
  const matchDatetime = (i) => {
    if (digitsAt(i, 4) && s[i + 4] === "-" && digitsAt(i + 5, 2) && s[i + 7] === "-" && digitsAt(i + 8, 2)) {
      const month = num2(i + 5), day = num2(i + 8), year = num2(i) * 100 + num2(i + 2);
      if (month >= 1 && month <= 12 && day >= 1 && day <= 31) {
        let e = i + 10;
        kind = DATE;
        const sep = s[e];
        if (sep === "T" || sep === "t" || sep === " ") {
          const te = matchTime(e + 1);
          if (te) {
            e = te;
            kind = DTIME;
            const z = s[e];
            if (z === "Z" || z === "z") e++;
            else if ((z === "+" || z === "-") && digitsAt(e + 1, 2) && s[e + 3] === ":" && digitsAt(e + 4, 2) &&
                     num2(e + 1) <= 23 && num2(e + 4) <= 59) e += 6;
          }
        }
        const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
        const maxd = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
        if (year < 1 || day > maxd) fail(i, "Invalid date or datetime");
        return e;
      }
    }
    const te = matchTime(i);
    if (te) { kind = TIME; return te; }
    return 0;
  };
  // digits of the base with single underscores between them
  const digitsUs = (i, base) => {
    let h = hexv(s[i]);
    if (h < 0 || h >= base) return i;
    i++;
    for (;;) {
      const j = s[i] === "_" ? i + 1 : i;
      h = hexv(s[j]);
      if (h < 0 || h >= base) return i;
      i = j + 1;
    }
  };
  // a number per tomllib's pattern into val; its end, or 0
  const matchNumber = (i) => {
    const p = s[i + 1];
    if (s[i] === "0" && (p === "x" || p === "o" || p === "b")) {
      const e = digitsUs(i + 2, p === "x" ? 16 : p === "o" ? 8 : 2);
      if (e > i + 2) { val = { t: INT, v: BigInt("0" + p + s.slice(i + 2, e).replace(/_/g, "")) }; return e; }
    }
    let k = i, neg = false;
    if (s[k] === "+" || s[k] === "-") neg = s[k++] === "-";
    const intStart = k;
    if (s[k] === "0") k++;
    else if (s[k] >= "1" && s[k] <= "9") k = digitsUs(k, 10);
    else return 0;
    const intEnd = k;
    let fl = false;
    if (s[k] === "." && isd(s[k + 1])) { k = digitsUs(k + 1, 10); fl = true; }
    if (s[k] === "e" || s[k] === "E") {
      let e = k + 1;
      if (s[e] === "+" || s[e] === "-") e++;
      if (isd(s[e])) { k = digitsUs(e, 10); fl = true; }
    }
    const txt = s.slice(fl ? i : intStart, fl ? k : intEnd).replace(/_/g, "");
    if (fl) { val = { t: FLT, f: Number(txt) }; return k; }
    if (txt.length > 4300) throw { $toml: "Exceeds the limit (4300 digits) for integer string conversion: value has " + txt.length + " digits; use sys.set_int_max_str_digits() to increase the limit" };
    val = { t: INT, v: neg ? -BigInt(txt) : BigInt(txt) };
    return k;
  };
  // value = string | bool | array | inline table | date/time | number | inf | nan
  const parseValue = (i) => {
    const c = s[i];
    if (c === "\"" || c === "'") {
      const lit = c === "'";
      i = s.startsWith(lit ? "'''" : "\"\"\"", i) ? multilineStr(i, lit) : lit ? literalStr(i) : basicStr(i + 1, false);
      val = { t: STR, s: str };
      return i;
    }
    if (s.startsWith("true", i) || s.startsWith("false", i)) { val = { t: BOOL, b: c === "t" }; return i + (c === "t" ? 4 : 5); }
    if (c === "[" || c === "{") {
      if (++depth > MAXN) $fail("E499", "toml_parse: input nested too deeply (max " + MAXN + ")");
      const e = c === "[" ? parseArray(i) : parseInlineTable(i);
      depth--;
      return e;
    }
    let e = matchDatetime(i);
    if (e) { val = { t: kind }; return e; }
    e = matchNumber(i);
    if (e) return e;
    for (const w of ["inf", "nan", "+inf", "-inf", "+nan", "-nan"]) {
      if (s.startsWith(w, i)) { val = { t: FLT, f: w.endsWith("f") ? (w[0] === "-" ? -Infinity : Infinity) : NaN }; return i + w.length; }
    }
    fail(i, "Invalid value");
  };
  // statements: the section (the last header's key, table and flag node,
  // and the recursive flags on its path) and the pending "explicit" flags
  // of dotted keys, set at the next header
  const root = table(), rootFlags = fnode();
  let sec = { key: [], table: root, flags: rootFlags, above: 0 }, pending = [];
  const open = (key, tab) => {
    let c = rootFlags, above = 0;
    for (const k of key) { c = fchild(c, k, true); above |= c.r; }
    sec = { key, table: tab, flags: c, above };
  };
  const keyValue = (i) => {
    i = parseKv(i);
    const key = kvKey, v = val;
    let c = sec.flags, above = sec.above;
    for (let m = 1; m < key.length; m++) {
      c = c === null ? null : fchild(c, key[m - 1], false);
      if ((above & EXPLICIT) || (c !== null && ((c.f | c.r) & EXPLICIT)))
        failKey(i, "Cannot redefine namespace ", sec.key.concat(key.slice(0, m)), "");
      if (c !== null) above |= c.r;
    }
    if (key.length > 1) pending.push([sec.flags, key.slice(0, key.length - 1)]);
    if ((sec.key.length || key.length > 1) && (above & FROZEN))
      failKey(i, "Cannot mutate immutable namespace ", sec.key.concat(key.slice(0, key.length - 1)), "");
    const into = nest(sec.table, key, key.length - 1, true);
    if (into === null) fail(i, "Cannot overwrite a value");
    const stem = key[key.length - 1];
    if (into.m.has(stem)) fail(i, "Cannot overwrite a value");
    if (v.t === TAB || v.t === ARR) flagsSet(sec.flags, key, FROZEN, true);
    into.m.set(stem, v);
    return i;
  };
  const tableHeader = (i) => {
    i = parseKey(ws(i + 1));
    const key = kvKey;
    if (flagsIs(rootFlags, key, EXPLICIT) || flagsIs(rootFlags, key, FROZEN)) failKey(i, "Cannot declare ", key, " twice");
    flagsSet(rootFlags, key, EXPLICIT, false);
    const tab = nest(root, key, key.length, true);
    if (tab === null) fail(i, "Cannot overwrite a value");
    if (s[i] !== "]") fail(i, "Expected ']' at the end of a table declaration");
    open(key, tab);
    return i + 1;
  };
  const arrayHeader = (i) => {
    i = parseKey(ws(i + 2));
    const key = kvKey;
    if (flagsIs(rootFlags, key, FROZEN)) failKey(i, "Cannot mutate immutable namespace ", key, "");
    flagsUnsetAll(rootFlags, key);
    flagsSet(rootFlags, key, EXPLICIT, false);
    const c = nest(root, key, key.length - 1, true);
    if (c === null) fail(i, "Cannot overwrite a value");
    const stem = key[key.length - 1];
    let list = c.m.get(stem);
    if (list !== undefined && list.t !== ARR) fail(i, "Cannot overwrite a value");
    if (list === undefined) { list = { t: ARR, kids: [] }; c.m.set(stem, list); }
    const tab = table();
    list.kids.push(tab);
    if (!s.startsWith("]]", i)) fail(i, "Expected ']]' at the end of an array declaration");
    open(key, tab);
    return i + 2;
  };
  const NONFINITE = {};
  // the reference's conversion, top-down in document order
  const conv = (x, d) => {
    switch (x.t) {
      case BOOL: return new C_JsonBool(x.b);
      case INT: return new C_JsonInt($bits(x.v));
      case FLT: if (!Number.isFinite(x.f)) throw NONFINITE; return new C_JsonFloat(x.f);
      case STR: $jlim("String", $slen(x.s)); return new C_JsonString(x.s);
      case DATE: case DTIME: case TIME:
        $fail("E499", "json_parse: unsupported JSON value type: " + (x.t === DATE ? "date" : x.t === TIME ? "time" : "datetime"));
    }
    if (d > MAXN) $fail("E499", "toml_parse: input nested too deeply (max " + MAXN + ")");
    if (x.t === TAB) {
      $jlim("Map", x.m.size);
      $S += x.m.size;
      const ents = [];
      for (const [k, v] of x.m) { $jlim("String", $slen(k)); ents.push(new $T([k, conv(v, d + 1)])); }
      return new C_JsonObject(ents);
    }
    $jlim("List", x.kids.length);
    $S += x.kids.length;
    return new C_JsonArray(x.kids.map((v) => conv(v, d + 1)));
  };
  try {
    let i = 0;
    for (;;) {
      i = ws(i);
      if (i >= n) break;
      const c = s[i];
      if (c === "\n") { i++; continue; }
      if (bare(c) || c === "\"" || c === "'") i = ws(keyValue(i));
      else if (c === "[") {
        for (const [base, key] of pending) { let f = base; for (const k of key) { f = fchild(f, k, true); f.f |= EXPLICIT; } }
        pending = [];
        i = ws(s[i + 1] === "[" ? arrayHeader(i) : tableHeader(i));
      } else if (c !== "#") fail(i, "Invalid statement");
      i = skipComment(i);
      if (i >= n) break;
      if (s[i] !== "\n") fail(i, "Expected newline or end of document after a statement");
      i++;
    }
  } catch (e) {
    if (!e || e.$toml === undefined) throw e;
    if (e.at === undefined) return new $Err(e.$toml);
    if (e.at >= n) return new $Err(e.$toml + " (at end of document)");
    let line = 1, nl = -1;
    for (let k = 0; k < e.at; k++) if (s.charCodeAt(k) === 10) { line++; nl = k; }
    const cp = $cpAt(s, e.at);
    return new $Err(e.$toml + " (at line " + line + ", column " + (nl >= 0 ? cp - $cpAt(s, nl) : cp + 1) + ")");
  }
  try { return new $Ok(conv(root, 0)); } catch (e) { if (e === NONFINITE) return new $Err("json_parse: non-finite JSON number"); throw e; }
}
