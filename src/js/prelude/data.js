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
