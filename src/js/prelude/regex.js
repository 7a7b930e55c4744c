// geno-c JavaScript runtime: the regex builtins (capability regex). The
// validator is the VM's (src/lib/regex_engine.c, the reference's safe
// subset, checked rule by rule in its order over code points); the subset
// means the same in JavaScript's RegExp (u flag) as in Python's re, so the
// validated pattern is matched by RegExp. Compile errors the validator lets
// through get Python's wording, as in the VM.

//@ $rx
function $rxValidate(p) {
  const n = p.length, dig = (c) => c >= "0" && c <= "9";
  if (n > 1000) return "pattern too long (max 1000 chars)";
  // backreferences
  for (let i = 0; i + 1 < n; i++) {
    if (p[i] === "\\" && p[i + 1] >= "1" && p[i + 1] <= "9") return "backreferences are not supported for safety";
    if (p[i] === "(" && i + 4 < n && p[i + 1] === "?" && p[i + 2] === "P" && p[i + 3] === "=" && /[A-Za-z_]/.test(p[i + 4])) {
      let j = i + 4;
      while (j < n && /[A-Za-z0-9_]/.test(p[j])) j++;
      if (p[j] === ")") return "backreferences are not supported for safety";
    }
  }
  // group depth
  {
    let d = 0, cls = false;
    for (let i = 0; i < n; i++) {
      const c = p[i];
      if (c === "\\") { i++; continue; }
      if (c === "[" && !cls) cls = true;
      else if (c === "]" && cls) cls = false;
      else if (!cls && c === "(" && ++d > 128) return "group nesting too deep (max 128)";
      else if (!cls && c === ")" && d) d--;
    }
  }
  // nested quantifiers: a quantified group whose body holds a quantifier
  for (let i = 0; i < n; i++) {
    if (p[i] === "\\") { i++; continue; }
    if (p[i] !== ")") continue;
    let j = i + 1;
    while (j < n && (p[j] === " " || p[j] === "\t")) j++;
    if (j >= n || "+*?{".indexOf(p[j]) < 0) continue;
    let d = 1, k = i - 1;
    while (k >= 0 && d > 0) {
      const plain = k === 0 || p[k - 1] !== "\\";
      if (p[k] === ")" && plain) d++;
      else if (p[k] === "(" && plain) d--;
      k--;
    }
    const body = k + 2;
    for (let m = body; m < i; m++) {
      const c = p[m];
      if (c === "\\") { m++; continue; }
      if (c === "+" || c === "*") return "nested quantifiers are not supported for safety";
      if (c === "?" && m > body && p[m - 1] !== "(") return "nested quantifiers are not supported for safety";
      if (c === "{" && m + 1 < i && dig(p[m + 1])) return "nested quantifiers are not supported for safety";
    }
  }
  // overlapping alternation: a repeated group holding '|'
  for (let i = 0; i < n;) {
    if (p[i] === "\\") { i += 2; continue; }
    if (p[i] === "[") {
      for (i++; i < n; i++) { if (p[i] === "\\") { i++; continue; } if (p[i] === "]") { i++; break; } }
      continue;
    }
    if (p[i] !== "(") { i++; continue; }
    let j = i + 1, d = 1, alt = false, cls = false;
    while (j < n && d > 0) {
      const c = p[j];
      if (c === "\\") { j += 2; continue; }
      if (cls) { if (c === "]") cls = false; }
      else if (c === "[") cls = true;
      else if (c === "(") d++;
      else if (c === ")") { if (--d === 0) break; }
      else if (c === "|") alt = true;
      j++;
    }
    if (d !== 0) break;
    let q = j + 1;
    while (q < n && (p[q] === " " || p[q] === "\t")) q++;
    if (alt && q < n && "+*?{".indexOf(p[q]) >= 0) return "overlapping alternation branches are not supported for safety";
    i++;
  }
  const classEnd = (s, hi) => {
    for (let i = s + 1; i < hi; i++) { if (p[i] === "\\") { i++; continue; } if (p[i] === "]") return i; }
    return -1;
  };
  const groupEnd = (s, hi) => {
    let d = 1;
    for (let i = s + 1; i < hi; i++) {
      if (p[i] === "\\") { i++; continue; }
      if (p[i] === "[") { const ce = classEnd(i, hi); if (ce < 0) return -1; i = ce; continue; }
      if (p[i] === "(") d++;
      else if (p[i] === ")" && --d === 0) return i;
    }
    return -1;
  };
  // adjacent atoms: a variable repetition followed by an atom it could match
  const atomIs = (a, k, c) => a.k === k && a.hi - a.lo === 1 && p[a.lo] === c;
  const overlap = (a, b) => {
    if (a.k === b.k && p.slice(a.lo, a.hi).join("") === p.slice(b.lo, b.hi).join("")) return true;
    if (atomIs(a, 0, ".") || atomIs(b, 0, ".")) return true;
    return a.k !== 0 || b.k !== 0;
  };
  const quant = (at, hi) => {
    if (at >= hi) return null;
    const c = p[at];
    if (c === "*" || c === "+" || c === "?") return { end: at + 1 < hi && p[at + 1] === "?" ? at + 2 : at + 1, amb: true, con: true, req: c === "+" };
    if (c !== "{" || at + 1 >= hi) return null;
    let i = at + 1, nz = false;
    for (; i < hi && dig(p[i]); i++) nz = nz || p[i] !== "0";
    const comma = i < hi && p[i] === ",";
    if (comma) for (i++; i < hi && dig(p[i]); i++);
    if (i >= hi || p[i] !== "}") return null;
    return { end: i + 1 < hi && p[i + 1] === "?" ? i + 2 : i + 1, amb: comma, req: nz, con: nz || comma };
  };
  const adjacent = (lo, hi) => {
    let pending = false, prev = null;
    for (let i = lo; i < hi;) {
      const c = p[i];
      let a, ae;
      if (c === "|") { pending = false; i++; continue; }
      if (c === "\\") { if (i + 1 >= hi) return false; a = { k: 1, lo: i + 1, hi: i + 2 }; ae = i + 2; }
      else if (c === "[") {
        const ce = classEnd(i, hi);
        if (ce < 0) return false;
        const len = ce - i - 1;
        if (len === 1) a = { k: 0, lo: i + 1, hi: i + 2 };
        else if (len === 2 && p[i + 1] === "\\") a = { k: 0, lo: i + 2, hi: i + 3 };
        else a = { k: 2, lo: i + 1, hi: ce };
        ae = ce + 1;
      } else if (c === "(") {
        const ge = groupEnd(i, hi);
        if (ge < 0) return false;
        if (adjacent(i + 1, ge)) return true;
        a = { k: 3, lo: i + 1, hi: ge };
        ae = ge + 1;
      } else if (c === ")" || c === "^" || c === "$") { i++; continue; }
      else { a = { k: 0, lo: i, hi: i + 1 }; ae = i + 1; }
      const q = quant(ae, hi) || { end: ae, amb: false, con: true, req: true };
      if (pending && q.con && overlap(prev, a)) return true;
      if (pending && q.req) pending = false;
      if (q.amb && q.con) { pending = true; prev = a; }
      i = q.end;
    }
    return false;
  };
  if (adjacent(0, n)) return "adjacent repeated atoms are not supported for safety";
  // variable quantifiers
  {
    let count = 0;
    for (let i = 0; i < n;) {
      const c = p[i];
      if (c === "\\") { i += 2; continue; }
      if (c === "[") { const ce = classEnd(i, n); if (ce < 0) break; i = ce + 1; continue; }
      if (c === "*" || c === "+" || c === "?") { count++; i++; if (p[i] === "?") i++; continue; }
      if (c === "{" && i + 1 < n && dig(p[i + 1])) {
        let e = i + 2;
        while (e < n && dig(p[e])) e++;
        if (p[e] === ",") {
          for (e++; e < n && dig(p[e]); e++);
          if (p[e] === "}") { count++; i = e + 1; if (p[i] === "?") i++; continue; }
        }
      }
      i++;
    }
    if (count > 1) return "multiple variable quantifiers are not supported for safety";
  }
  // alternation sites
  {
    const site = new Set(), stack = [0];
    let next = 1;
    for (let i = 0; i < n; i++) {
      const c = p[i];
      if (c === "\\") { i++; continue; }
      if (c === "[") { const ce = classEnd(i, n); if (ce < 0) break; i = ce; continue; }
      if (c === "(") stack.push(next++);
      else if (c === ")" && stack.length > 1) stack.pop();
      else if (c === "|") site.add(stack[stack.length - 1]);
    }
    if (site.size > 1) return "multiple alternation sites are not supported for safety";
  }
  // constructs outside the portable subset
  const qend = (at) => {
    let i = at + 1, lo = 0, hi;
    const st = i;
    for (; i < n && dig(p[i]); i++) lo = lo > 100000 ? lo : lo * 10 + +p[i];
    if (i === st) return 0;
    hi = lo;
    let open = false;
    if (p[i] === ",") {
      const us = ++i;
      hi = 0;
      for (; i < n && dig(p[i]); i++) hi = hi > 100000 ? hi : hi * 10 + +p[i];
      open = i === us;
    }
    if (i >= n || p[i] !== "}") return 0;
    if (lo > 10000 || (!open && (hi > 10000 || lo > hi))) return 0;
    return p[i + 1] === "?" ? i + 2 : i + 1;
  };
  {
    let cls = false, alt = false, qu = false, anchor = false;
    const unsupported = "advanced or encoded regex constructs are not supported for safety";
    for (let i = 0; i < n;) {
      const c = p[i];
      if (c === "\\") {
        if (i + 1 >= n || (cls ? "\\^-]" : "\\.^$|?*+()[]{}").indexOf(p[i + 1]) < 0) return unsupported;
        i += 2;
        continue;
      }
      if (c === "[" && !cls) {
        let m = i + 1;
        if (p[m] === "^") m++;
        if (p[m] === "]") return unsupported;
        cls = true; i++;
        continue;
      }
      if (c === "]") { if (!cls) return unsupported; cls = false; i++; continue; }
      if (!cls) {
        if (c === "$" || c === "." || c === "}") return unsupported;
        if (c === "^") anchor = true;
        if (c === "|") {
          if (i === 0 || i + 1 === n || "(|".indexOf(p[i - 1]) >= 0 || ")|".indexOf(p[i + 1]) >= 0) return unsupported;
          alt = true;
        }
        if (c === "{") { const e = qend(i); if (!e) return unsupported; qu = true; i = e; continue; }
        if (c === "(" && (p[i + 1] === "?" || p[i + 1] === ")")) return unsupported;
        if (c === "*" || c === "+" || c === "?") { qu = true; if (p[i + 1] === "+") return unsupported; }
      }
      i++;
    }
    if (cls || (alt && (qu || anchor))) return unsupported;
  }
  return null;
}

// Python's wording for a pattern RegExp refuses: unbalanced parentheses,
// a quantifier with nothing (or another quantifier) before it, a range
// out of order.
function $rxSyntax(p) {
  const stack = [];
  let cls = false, clsAt = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === "\\") { i++; continue; }
    if (cls) {
      if (c === "]") cls = false;
      else if (c === "-" && i > clsAt + 1 && p[i + 1] !== "]" && i + 1 < p.length && p[i - 2] !== "\\") {
        const a = p[i - 1], b = p[i + 1] === "\\" ? p[i + 2] : p[i + 1];
        if (a.codePointAt(0) > b.codePointAt(0)) return "bad character range " + a + "-" + b + " at position " + (i - 1);
      }
      continue;
    }
    if (c === "[") { cls = true; clsAt = p[i + 1] === "^" ? i + 1 : i; continue; }
    if (c === "(") stack.push(i);
    else if (c === ")") { if (!stack.length) return "unbalanced parenthesis at position " + i; stack.pop(); }
    else if ("*+?{".indexOf(c) >= 0) {
      const b = i > 0 ? p[i - 1] : "", bb = i > 1 ? p[i - 2] : "";
      const lazy = c === "?" && i > 0 && "*+?}".indexOf(b) >= 0 && bb !== "\\" && !(i > 1 && "*+?".indexOf(bb) >= 0 && p[i - 3] !== "\\");
      if (lazy) continue;
      if (i === 0 || b === "(" || b === "|") return "nothing to repeat at position " + i;
      if ("*+?}".indexOf(b) >= 0 && bb !== "\\") return "multiple repeat at position " + i;
      if (c === "{") { const e = p.indexOf("}", i); if (e > 0) i = e; }
    }
  }
  if (stack.length) return "missing ), unterminated subpattern at position " + stack[stack.length - 1];
  return null;
}

function $rx(fn, pat, text, targ) {
  $cap("regex", fn);
  const p = Array.from(pat);
  const bad = $rxValidate(p);
  if (bad) $fail("E499", fn + ": " + bad);
  const syn = $rxSyntax(p);
  if (syn) $fail("E499", fn + ": invalid pattern: " + syn);
  let re;
  try { re = new RegExp(pat, "gu"); } catch (e) { $fail("E499", fn + ": invalid pattern: " + e.message); }
  for (const [name, s] of targ) if ($slen(s) > 10000) $fail("E499", fn + ": " + name + " too long (max 10000 chars)");
  $S += text.length >> 4;
  return re;
}

// Matches as Python's finditer: after an empty match the search moves on
// one code point.
function* $rxAll(re, t) {
  re.lastIndex = 0;
  for (;;) {
    const m = re.exec(t);
    if (!m) return;
    if (m[0] === "") re.lastIndex += t.codePointAt(re.lastIndex) > 0xffff ? 2 : 1;
    yield m;
    if (re.lastIndex > t.length) return;
  }
}

//@ $b_regex_match
// The leftmost match (Python's re.search).
function $b_regex_match(p, t) {
  const re = $rx("regex_match", p, t, [["text", t]]);
  re.lastIndex = 0;
  const m = re.exec(t);
  return m ? new $Some(m[0]) : $None;
}

//@ $b_regex_find_all
function $b_regex_find_all(p, t) {
  const re = $rx("regex_find_all", p, t, [["text", t]]), out = [];
  for (const m of $rxAll(re, t)) {
    const n = $slen(m[0]);
    if (n > $CFG.coll) $fatal("E504", "regex_find_all: String size exceeds limit (" + n + " > " + $CFG.coll + ")");
    if (out.length + 1 > $CFG.coll) $fatal("E504", "List size exceeds limit (" + (out.length + 1) + " > " + $CFG.coll + ")");
    out.push(m[0]);
  }
  return out;
}

//@ $b_regex_replace
// Every match replaced; \N in the replacement inserts group N (nothing
// when the group did not take part), everything else is literal.
function $b_regex_replace(p, r, t) {
  const re = $rx("regex_replace", p, t, [["replacement", r], ["text", t]]);
  let out = "", total = 0, last = 0;
  const grow = (s) => {
    total += $slen(s);
    if (total > $CFG.coll) $fatal("E504", "regex_replace: String size exceeds limit (" + total + " > " + $CFG.coll + ")");
    out += s;
  };
  for (const m of $rxAll(re, t)) {
    grow(t.slice(last, m.index));
    for (let i = 0, lit = 0; i <= r.length; i++) {
      const ref = i + 1 < r.length && r[i] === "\\" && r[i + 1] >= "1" && r[i + 1] <= "9";
      if (!ref && i < r.length) continue;
      if (i > lit) grow(r.slice(lit, i));
      if (i === r.length) break;
      let d = i + 1;
      while (d < r.length && r[d] >= "0" && r[d] <= "9") d++;
      const g = r.slice(i + 1, d);
      if (g.length > 4 || +g > m.length - 1) $fail("E499", "regex_replace: invalid replacement group reference");
      if (m[+g] !== undefined) grow(m[+g]);
      i = d - 1;
      lit = d;
    }
    last = m.index + m[0].length;
  }
  grow(t.slice(last));
  return out;
}
