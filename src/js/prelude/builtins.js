// geno-c JavaScript runtime: builtin functions. Each unit is named in the
// `js` column of the builtin table (src/lib/*.c); Int arguments and results
// are BigInt, Float ones numbers (see core.js).

//@ $cap
// Capabilities: granted by `--cap NAME` on Node's command line (before any
// `--`), or by globalThis.__GENO_CAPS in a browser. Anything else is denied.
const $caps = (() => {
  const s = new Set();
  if (Array.isArray(globalThis.__GENO_CAPS)) { for (const c of globalThis.__GENO_CAPS) s.add(String(c)); return s; }
  if (typeof process !== "undefined" && Array.isArray(process.argv)) {
    const a = process.argv;
    for (let i = 2; i < a.length; i++) {
      if (a[i] === "--") break;
      if (a[i] === "--cap" && i + 1 < a.length) { for (const c of a[++i].split(",")) s.add(c.trim()); }
      else if (a[i].startsWith("--cap=")) { for (const c of a[i].slice(6).split(",")) s.add(c.trim()); }
    }
  }
  return s;
})();
function $cap(name, builtin) {
  if (!$caps.has(name)) $fail("E412", "Capability denied: '" + builtin + "' requires the '" + name + "' capability, which was not granted");
}

//@ $b_print
function $b_print(v) { $cap("print", "print"); $print(typeof v === "string" ? v : $render(v, true)); }
//@ $b_to_string
// The text is a String, so max_collection_size bounds it; the error gives
// the size after the first token that passes the limit, as the VM's
// renderer (which checks after each token) does. (Containers are told by
// their class names so that this unit needs none of their units.)
function $b_to_string(v) {
  if (typeof v === "string") return v;
  const t = $render(v, true), lim = $CFG.coll;
  if (t.length > lim && $slen(t) > lim) {
    let n = 0;
    const tok = (s) => { n += $slen(s); if (n > lim) throw n; };
    const walk = (x, top) => {
      if (Array.isArray(x)) { tok("["); x.forEach((y, i) => { if (i) tok(", "); walk(y, false); }); tok("]"); }
      else if (x instanceof $T) { tok("("); x.a.forEach((y, i) => { if (i) tok(", "); walk(y, false); }); if (x.a.length === 1) tok(","); tok(")"); }
      else if (x instanceof $V) {
        tok(x.$n);
        if (x.$f.length) { tok("("); x.$f.forEach((k, i) => { if (i) tok(", "); tok($fk(k) + ": "); walk(x[k], false); }); tok(")"); }
      } else if (x && x.constructor && x.constructor.name === "$GMap") { tok("{"); let i = 0; for (const e of x.m.values()) { if (i++) tok(", "); walk(e[0], false); tok(": "); walk(e[1], false); } tok("}"); }
      else if (typeof x === "function") { const r = $render(x, false); tok(r.slice(0, r.indexOf(" ") + 1)); tok(r.slice(r.indexOf(" ") + 1, -1)); tok(">"); }
      else if (x && x.constructor && (x.constructor.name === "$Arr" || x.constructor.name === "$Vec")) { tok(x.constructor.name === "$Arr" ? "Array([" : "Vec([");  x.a.forEach((y, i) => { if (i) tok(", "); walk(y, false); }); tok("])"); }
      else tok($render(x, top));
    };
    try { walk(v, true); n = $slen(t); } catch (e) { if (typeof e !== "number") throw e; n = e; }
    $fatal("E504", "to_string: String size exceeds limit (" + n + " > " + lim + ")");
  }
  return t;
}
//@ $b_length
function $b_length(v) { return $len(v); }
//@ $b_list_length
function $b_list_length(v) { return BigInt(v.length); }
//@ $b_append
function $b_append(xs, x) { const c = xs.slice(); c.push(x); return $lc(c); }
//@ $b_concat
function $b_concat(a, b) { return $lc(a.concat(b)); }
//@ $b_head
function $b_head(xs) { if (xs.length === 0) $fail("E499", "head of empty list"); return xs[0]; }
//@ $b_tail
function $b_tail(xs) { if (xs.length === 0) $fail("E499", "tail of empty list"); return xs.slice(1); }
//@ $b_reverse
function $b_reverse(xs) { return xs.slice().reverse(); }
//@ $b_contains
function $b_contains(xs, x) { for (const y of xs) if ($eq(x, y)) return true; return false; }
//@ $b_range
function $b_range(a, b, step) {
  if (step === undefined) step = 1n;
  if (step === 0n) $fail("E499", "range step cannot be zero");
  const out = [];
  if (step > 0n) for (let i = a; i < b; i += step) { out.push(i); if (out.length > $CFG.coll) $fatal("E504", "List size exceeds limit"); }
  else for (let i = a; i > b; i += step) { out.push(i); if (out.length > $CFG.coll) $fatal("E504", "List size exceeds limit"); }
  return out;
}
//@ $b_map $b_list_map
function $b_map(xs, f) { const out = new Array(xs.length); for (let i = 0; i < xs.length; i++) out[i] = f(xs[i]); return out; }
const $b_list_map = $b_map;
//@ $b_filter $b_list_filter
function $b_filter(xs, f) { const out = []; for (let i = 0; i < xs.length; i++) { const x = xs[i]; if (f(x)) out.push(x); } return out; }
const $b_list_filter = $b_filter;
//@ $b_fold
function $b_fold(xs, acc, f) { for (let i = 0; i < xs.length; i++) acc = f(acc, xs[i]); return acc; }
//@ $b_list_fold_right
function $b_list_fold_right(xs, acc, f) { for (let i = xs.length - 1; i >= 0; i--) acc = f(xs[i], acc); return acc; }
//@ $b_flat_map
function $b_flat_map(xs, f) { const out = []; for (const x of xs) { for (const y of f(x)) out.push(y); $lc(out); } return out; }
//@ $b_all $b_list_all
function $b_all(xs, f) { for (const x of xs) if (!f(x)) return false; return true; }
const $b_list_all = $b_all;
//@ $b_list_any
function $b_list_any(xs, f) { for (const x of xs) if (f(x)) return true; return false; }
//@ $b_enumerate $b_list_enumerate
function $b_enumerate(xs) { return xs.map((x, i) => new $T([BigInt(i), x])); }
const $b_list_enumerate = $b_enumerate;
//@ $b_zip $b_list_zip
function $b_zip(a, b) { const n = Math.min(a.length, b.length), out = []; for (let i = 0; i < n; i++) out.push(new $T([a[i], b[i]])); return out; }
const $b_list_zip = $b_zip;
//@ $b_slice
// Python's xs[start:stop] after clamping start to >= 0 (the VM's rule).
function $b_slice(xs, a, b) { const n = xs.length; let i = Number(a), j = Number(b); if (i < 0) i = 0; if (j > n) j = n; if (j < 0) j = Math.max(0, n + j); return i >= j ? [] : xs.slice(i, j); }
//@ $b_set_at
function $b_set_at(xs, i, v) {
  const k = Number(i);
  if (k < 0 || k >= xs.length) $fail("E499", "set_at index out of range");
  const c = xs.slice(); c[k] = v; return c;
}
//@ $b_sort
// sort(xs, cmp): x goes before y when cmp(x, y) < 0, compared exactly as
// the VM compares (so also for a comparator that is not an order).
function $b_sort(xs, f) { return $timsort(xs.slice(), (x, y) => f(x, y) < 0); }
//@ $timsort
// CPython's list.sort (TimSort with the powersort merge policy), made
// comparison for comparison like the VM's (src/lib/timsort.c), so that a
// comparator that is not a consistent order gives the VM's result too.
// a: the array, sorted in place; lt(x, y): x < y.
function $timsort(a, lt) {
  const n = a.length;
  if (n < 2) return a;
  let minGallop = 7, t = [];
  const runs = [];
  // leftmost k in b[o..o+m) with b[o+k-1] < key <= b[o+k], from hint
  function gallopLeft(key, b, o, m, hint) {
    let last = 0, ofs = 1;
    if (lt(b[o + hint], key)) {
      const max = m - hint;
      while (ofs < max && lt(b[o + hint + ofs], key)) { last = ofs; ofs = (ofs << 1) + 1; }
      if (ofs > max) ofs = max;
      last += hint; ofs += hint;
    } else {
      const max = hint + 1;
      while (ofs < max && !lt(b[o + hint - ofs], key)) { last = ofs; ofs = (ofs << 1) + 1; }
      if (ofs > max) ofs = max;
      const k = last; last = hint - ofs; ofs = hint - k;
    }
    last++;
    while (last < ofs) { const h = last + ((ofs - last) >> 1); if (lt(b[o + h], key)) last = h + 1; else ofs = h; }
    return ofs;
  }
  // rightmost k: b[o+k-1] <= key < b[o+k]
  function gallopRight(key, b, o, m, hint) {
    let last = 0, ofs = 1;
    if (lt(key, b[o + hint])) {
      const max = hint + 1;
      while (ofs < max && lt(key, b[o + hint - ofs])) { last = ofs; ofs = (ofs << 1) + 1; }
      if (ofs > max) ofs = max;
      const k = last; last = hint - ofs; ofs = hint - k;
    } else {
      const max = m - hint;
      while (ofs < max && !lt(key, b[o + hint + ofs])) { last = ofs; ofs = (ofs << 1) + 1; }
      if (ofs > max) ofs = max;
      last += hint; ofs += hint;
    }
    last++;
    while (last < ofs) { const h = last + ((ofs - last) >> 1); if (lt(key, b[o + h])) ofs = h; else last = h + 1; }
    return ofs;
  }
  // merge a[pa..pa+na) and the next nb, na <= nb: A aside, fill from the left
  function mergeLo(pa, na, nb) {
    t = a.slice(pa, pa + na);
    let dest = pa, ib = pa + na, ia = 0, mg = minGallop;
    a[dest++] = a[ib++];
    try {
      if (--nb === 0) return;
      if (na === 1) { copyB(); return; }
      for (;;) {
        let ac = 0, bc = 0;
        for (;;) {
          if (lt(a[ib], t[ia])) {
            a[dest++] = a[ib++]; bc++; ac = 0;
            if (--nb === 0) return;
            if (bc >= mg) break;
          } else {
            a[dest++] = t[ia++]; ac++; bc = 0;
            if (--na === 1) { copyB(); return; }
            if (ac >= mg) break;
          }
        }
        mg++;
        do {
          mg -= mg > 1 ? 1 : 0;
          minGallop = mg;
          let k = gallopRight(a[ib], t, ia, na, 0);
          ac = k;
          if (k) {
            for (let i = 0; i < k; i++) a[dest + i] = t[ia + i];
            dest += k; ia += k; na -= k;
            if (na === 1) { copyB(); return; }
            if (na === 0) return;
          }
          a[dest++] = a[ib++];
          if (--nb === 0) return;
          k = gallopLeft(t[ia], a, ib, nb, 0);
          bc = k;
          if (k) {
            for (let i = 0; i < k; i++) a[dest + i] = a[ib + i];
            dest += k; ib += k; nb -= k;
            if (nb === 0) return;
          }
          a[dest++] = t[ia++];
          if (--na === 1) { copyB(); return; }
        } while (ac >= 7 || bc >= 7);
        mg++;
        minGallop = mg;
      }
    } finally {
      // done (normally or by an error): what is left of A goes in place
      if (na > 0 && ia < t.length) for (let i = 0; i < na; i++) a[dest + i] = t[ia + i];
    }
    function copyB() {
      // the last element of A belongs after the rest of B
      for (let i = 0; i < nb; i++) a[dest + i] = a[ib + i];
      a[dest + nb] = t[ia];
      na = 0;
    }
  }
  // mirror image for na > nb: B aside, fill from the right
  function mergeHi(pa, na, nb) {
    const pb = pa + na;
    t = a.slice(pb, pb + nb);
    let dest = pb + nb - 1, ia = pb - 1, ib = nb - 1, mg = minGallop;
    a[dest--] = a[ia--];
    try {
      if (--na === 0) return;
      if (nb === 1) { copyA(); return; }
      for (;;) {
        let ac = 0, bc = 0;
        for (;;) {
          if (lt(t[ib], a[ia])) {
            a[dest--] = a[ia--]; ac++; bc = 0;
            if (--na === 0) return;
            if (ac >= mg) break;
          } else {
            a[dest--] = t[ib--]; bc++; ac = 0;
            if (--nb === 1) { copyA(); return; }
            if (bc >= mg) break;
          }
        }
        mg++;
        do {
          mg -= mg > 1 ? 1 : 0;
          minGallop = mg;
          let k = gallopRight(t[ib], a, pa, na, na - 1);
          k = na - k;
          ac = k;
          if (k) {
            dest -= k; ia -= k;
            for (let i = k; i >= 1; i--) a[dest + i] = a[ia + i];
            na -= k;
            if (na === 0) return;
          }
          a[dest--] = t[ib--];
          if (--nb === 1) { copyA(); return; }
          k = gallopLeft(a[ia], t, 0, nb, nb - 1);
          k = nb - k;
          bc = k;
          if (k) {
            dest -= k; ib -= k;
            for (let i = 1; i <= k; i++) a[dest + i] = t[ib + i];
            nb -= k;
            if (nb === 1) { copyA(); return; }
            if (nb === 0) return;
          }
          a[dest--] = a[ia--];
          if (--na === 0) return;
        } while (ac >= 7 || bc >= 7);
        mg++;
        minGallop = mg;
      }
    } finally {
      if (nb > 0) for (let i = 0; i < nb; i++) a[dest - (nb - 1) + i] = t[i];
    }
    function copyA() {
      // the first element of B belongs before the rest of A
      dest -= na; ia -= na;
      for (let i = na; i >= 1; i--) a[dest + i] = a[ia + i];
      a[dest] = t[ib];
      nb = 0;
    }
  }
  function mergeAt(i) {
    let pa = runs[i].base, na = runs[i].len;
    const pb = runs[i + 1].base;
    let nb = runs[i + 1].len;
    runs[i].len = na + nb;
    runs.splice(i + 1, 1);
    const k = gallopRight(a[pb], a, pa, na, 0);
    pa += k; na -= k;
    if (na === 0) return;
    nb = gallopLeft(a[pa + na - 1], a, pb, nb, nb - 1);
    if (nb === 0) return;
    if (na <= nb) mergeLo(pa, na, nb); else mergeHi(pa, na, nb);
  }
  function power(s1, n1, n2) {
    let r = 0, x = 2 * s1 + n1, y = x + n1 + n2;
    for (;;) {
      r++;
      if (x >= n) { x -= n; y -= n; } else if (y >= n) break;
      x *= 2; y *= 2;
    }
    return r;
  }
  let r = 0, m = n;
  while (m >= 64) { r |= m & 1; m >>= 1; }
  const minrun = m + r;
  let lo = 0, left = n;
  do {
    let len = 1;
    if (left > 1) {
      len = 2;
      if (lt(a[lo + 1], a[lo])) {
        while (lo + len < lo + left && lt(a[lo + len], a[lo + len - 1])) len++;
        for (let i = lo, j = lo + len - 1; i < j; i++, j--) { const x = a[i]; a[i] = a[j]; a[j] = x; }
      } else {
        while (lo + len < lo + left && !lt(a[lo + len], a[lo + len - 1])) len++;
      }
    }
    if (len < minrun) {
      const force = left <= minrun ? left : minrun;
      for (let st = len; st < force; st++) {
        const pivot = a[lo + st];
        let l = lo, h = lo + st;
        do { const p = l + ((h - l) >> 1); if (lt(pivot, a[p])) h = p; else l = p + 1; } while (l < h);
        for (let i = lo + st; i > l; i--) a[i] = a[i - 1];
        a[l] = pivot;
      }
      len = force;
    }
    if (runs.length) {
      const top = runs[runs.length - 1], p = power(top.base, top.len, len);
      while (runs.length > 1 && runs[runs.length - 2].power > p) mergeAt(runs.length - 2);
      runs[runs.length - 1].power = p;
    }
    runs.push({ base: lo, len: len, power: 0 });
    lo += len;
    left -= len;
  } while (left);
  while (runs.length > 1) {
    let k = runs.length - 2;
    if (k > 0 && runs[k - 1].len < runs[k + 1].len) k--;
    mergeAt(k);
  }
  return a;
}
//@ $b_sort_by
function $b_sort_by(xs, f) { const keyed = xs.map((x) => [f(x), x]); keyed.sort((a, b) => $cmp(a[0], b[0])); return keyed.map((p) => p[1]); }
//@ $b_sort_strings
function $b_sort_strings(xs) {
  if (xs.length > 100000) $fail("E499", "sort_strings: list too large (max 100,000 elements)");
  return xs.slice().sort($scmp);
}
//@ $b_is_sorted
function $b_is_sorted(xs) { for (let i = 1; i < xs.length; i++) if (xs[i - 1] > xs[i]) return false; return true; }
//@ $b_take_while
function $b_take_while(xs, f) { const out = []; for (const x of xs) { if (!f(x)) break; out.push(x); } return out; }
//@ $b_list_take
function $b_list_take(xs, n) { return n <= 0n ? [] : xs.slice(0, Number(n)); }
//@ $b_list_drop
function $b_list_drop(xs, n) { return n <= 0n ? xs.slice() : xs.slice(Number(n)); }
//@ $b_list_find
function $b_list_find(xs, f) { for (const x of xs) if (f(x)) return new $Some(x); return $None; }
//@ $b_list_find_index
function $b_list_find_index(xs, f) { for (let i = 0; i < xs.length; i++) if (f(xs[i])) return new $Some(BigInt(i)); return $None; }
//@ $b_list_flatten
function $b_list_flatten(xss) { const out = []; for (const xs of xss) { for (const x of xs) out.push(x); $lc(out); } return out; }
//@ $b_list_chunk
function $b_list_chunk(xs, n) {
  if (n <= 0n) $fail("E499", "list_chunk: chunk size must be positive");
  const k = Number(n), out = [];
  for (let i = 0; i < xs.length; i += k) out.push(xs.slice(i, i + k));
  return out;
}
//@ $b_list_intersperse
function $b_list_intersperse(xs, s) { const out = []; xs.forEach((x, i) => { if (i) out.push(s); out.push(x); }); return $lc(out); }
//@ $b_list_group_by
function $b_list_group_by(xs, f) {
  const groups = new Map();
  for (const x of xs) { const k = f(x), h = $hk(k); let g = groups.get(h); if (!g) groups.set(h, g = [k, []]); g[1].push(x); }
  return [...groups.values()].map((g) => new $T(g));
}
//@ $b_is_permutation
function $b_is_permutation(a, b) {
  if (a.length > 100000 || b.length > 100000) $fail("E499", "is_permutation: list too large (max 100,000 elements)");
  if (a.length !== b.length) return false;
  const x = a.slice().sort($cmp), y = b.slice().sort($cmp);
  return $eq(x, y);
}

//@ $b_join $b_string_join
function $b_join(xs, sep) { return $sc(xs.join(sep)); }
const $b_string_join = $b_join;
//@ $b_split $b_string_split
function $b_split(s, d) { if (d === "") $fail("E499", "split: delimiter cannot be empty"); return $lc(s.split(d)); }
function $b_string_split(s, d) { if (d === "") $fail("E499", "string_split: delimiter cannot be empty"); return $lc(s.split(d)); }
//@ $b_split_once $b_string_split_once
function $splitOnce(fn, s, d) {
  if (d === "") $fail("E499", fn + ": delimiter cannot be empty");
  const i = s.indexOf(d);
  return i < 0 ? $None : new $Some(new $T([s.slice(0, i), s.slice(i + d.length)]));
}
function $b_split_once(s, d) { return $splitOnce("split_once", s, d); }
function $b_string_split_once(s, d) { return $splitOnce("string_split_once", s, d); }
//@ $pyspace
const $pyspace = " \t\n\r\u000b\u000c\u001c\u001d\u001e\u001f\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";
//@ $b_trim $b_string_trim
function $b_trim(s) { return $b_string_trim_end($b_string_trim_start(s)); }
const $b_string_trim = $b_trim;
//@ $b_string_trim_start
function $b_string_trim_start(s) { let i = 0; while (i < s.length && $pyspace.includes(s[i])) i++; return s.slice(i); }
//@ $b_string_trim_end
function $b_string_trim_end(s) { let i = s.length; while (i > 0 && $pyspace.includes(s[i - 1])) i--; return s.slice(0, i); }
//@ $b_to_upper $b_string_to_upper
function $b_to_upper(s) { return $sc(s.toUpperCase()); }
const $b_string_to_upper = $b_to_upper;
//@ $b_to_lower $b_string_to_lower
function $b_to_lower(s) { return $sc(s.toLowerCase()); }
const $b_string_to_lower = $b_to_lower;
//@ $b_starts_with $b_string_starts_with
function $b_starts_with(s, p) { return s.startsWith(p); }
const $b_string_starts_with = $b_starts_with;
//@ $b_ends_with $b_string_ends_with
function $b_ends_with(s, p) { return s.endsWith(p); }
const $b_string_ends_with = $b_ends_with;
//@ $b_contains_substring $b_string_contains
function $b_contains_substring(s, p) { return s.includes(p); }
const $b_string_contains = $b_contains_substring;
//@ $b_replace $b_string_replace
function $b_replace(s, a, b) { return $sc(a === "" ? Array.from(s).map((c) => b + c).join("") + b : s.split(a).join(b)); }
const $b_string_replace = $b_replace;
//@ $b_repeat_string $b_string_repeat
function $repeat(fn, s, n) {
  if (n < 0n) $fail("E499", fn + ": count must be non-negative");
  if (n === 0n || s === "") return "";
  const total = BigInt($slen(s)) * n;
  if (total > BigInt($CFG.coll)) $fatal("E504", fn + ": result would exceed collection size limit (" + total + " > " + $CFG.coll + ")");
  return s.repeat(Number(n));
}
function $b_repeat_string(s, n) { return $repeat("repeat_string", s, n); }
function $b_string_repeat(s, n) { return $repeat("string_repeat", s, n); }
//@ $b_to_chars
function $b_to_chars(s) { return Array.from(s); }
//@ $cpslice
// text[start:stop] with start clamped to >= 0 (a negative stop still
// counts from the end), by code point.
function $cpslice(s, a, b) {
  const cps = $astral(s) ? Array.from(s) : null, n = cps ? cps.length : s.length;
  let i = Number(a), j = Number(b);
  if (i < 0) i = 0;
  if (j > n) j = n;
  if (j < 0) j = Math.max(0, n + j);
  if (j <= i) return "";
  return cps ? cps.slice(i, j).join("") : s.slice(i, j);
}
//@ $b_substring $b_string_substring
function $b_substring(s, a, b) { return $cpslice(s, a, b); }
const $b_string_substring = $b_substring;
//@ $b_string_char_at
function $b_string_char_at(s, i) {
  const cps = $cps(s);
  return i < 0n || i >= BigInt(cps.length) ? "" : cps[Number(i)];
}
//@ $cpindex
function $cpindex(s, i) { return i < 0 ? -1n : BigInt($slen(s.slice(0, i))); }
//@ $b_string_index_of
function $b_string_index_of(s, p) { return $cpindex(s, s.indexOf(p)); }
//@ $b_string_last_index_of
function $b_string_last_index_of(s, p) { return $cpindex(s, s.lastIndexOf(p)); }
//@ $pad
function $pad(fn, s, w, f, left) {
  if ($slen(f) !== 1) $fail("E499", fn + ": fill_char must be a single character");
  const n = w - BigInt($slen(s));
  if (n <= 0n) return s;
  if (w > BigInt($CFG.coll)) $fatal("E504", fn + ": String size exceeds limit (" + w + " > " + $CFG.coll + ")");
  return left ? f.repeat(Number(n)) + s : s + f.repeat(Number(n));
}
//@ $b_string_pad_left
function $b_string_pad_left(s, w, f) { return $pad("string_pad_left", s, w, f, true); }
//@ $b_string_pad_right
function $b_string_pad_right(s, w, f) { return $pad("string_pad_right", s, w, f, false); }
//@ $b_char_code
function $b_char_code(s) { if (s.length === 0) $fail("E499", "char_code: empty string"); return BigInt(s.codePointAt(0)); }
//@ $b_from_char_code
function $b_from_char_code(c) {
  if (c < 0n || c > 0x10ffffn) $fail("E499", "from_char_code: code point " + c + " out of range");
  if (c >= 0xd800n && c < 0xe000n) $fail("E499", "from_char_code: code point " + c + " is a surrogate, not a character");
  return String.fromCodePoint(Number(c));
}
//@ $b_is_numeric_string
// an optional minus and ASCII digits, surrounding whitespace ignored
function $b_is_numeric_string(s) { return /^-?[0-9]+$/.test($b_trim(s)); }
//@ $b_format
function $b_format(t, vals) {
  const holes = t.split("{}").length - 1;
  if (holes !== vals.length) $fail("E499", "format: expected " + holes + " values, got " + vals.length);
  let i = 0;
  return $sc(t.replace(/\{\}/g, () => vals[i++]));
}
//@ $b_parse_int
// After stripping whitespace, ASCII -?[0-9]+ within ±(2^53 - 1), else None;
// text of more than 1000 characters is an error, as in the VM.
function $b_parse_int(s) {
  if (s.length > 1000 && $slen(s) > 1000) $fail("E499", "parse_int: input string too long (max 1000 characters)");
  const t = $b_trim(s);
  if (!/^-?[0-9]+$/.test(t)) return $None;
  const v = BigInt(t);
  return v > 9007199254740991n || v < -9007199254740991n ? $None : new $Some(v);
}
//@ $b_parse_float
// After stripping, -?(D+.?D*|.D+) where D is any Unicode decimal digit; no
// exponent, no sign but a leading minus, no inf/nan; too large is None.
function $b_parse_float(s) {
  if (s.length > 1000 && $slen(s) > 1000) $fail("E499", "parse_float: input string too long (max 1000 characters)");
  const t = $b_trim(s), nd = /\p{Nd}/u;
  let a = "", i = 0, digits = 0, dot = false;
  if (t[0] === "-") { a = "-"; i = 1; }
  for (const ch of t.slice(i)) {
    if (nd.test(ch)) {
      // digits come in runs of ten from zero: the value is the offset in the run
      let c = ch.codePointAt(0), start = c;
      while (nd.test(String.fromCodePoint(start - 1))) start--;
      a += String((c - start) % 10);
      digits++;
    } else if (ch === "." && !dot) { a += "."; dot = true; }
    else return $None;
  }
  if (digits === 0) return $None;
  const d = parseFloat(a === "-." ? "x" : a.endsWith(".") ? a + "0" : a);
  return isFinite(d) ? new $Some(d) : $None;
}
//@ $b_int_to_float
function $b_int_to_float(i) {
  const d = Number(i);
  if (!isFinite(d)) $fail("E499", "int too large to convert to float");
  return d;
}
//@ $toInt
function $toInt(x) {
  if (x !== x) $fail("E499", "cannot convert float NaN to integer");
  if (x === Infinity || x === -Infinity) $fail("E499", "cannot convert float infinity to integer");
  return BigInt(x);
}
//@ $rounded
// Float to Int: the result must be within JavaScript's safe integer range
// (the VM applies the reference's rule); round is floor(x + 0.5)-like:
// floor(x) + (1 if x - floor(x) >= 0.5).
function $rounded(x, mode, what) {
  if (typeof x === "bigint") {
    if (x > 9007199254740991n || x < -9007199254740991n) $fail("E499", what + " exceeds JavaScript safe integer range");
    return x;
  }
  if (x !== x) $fail("E499", "cannot convert float NaN to integer");
  if (x === Infinity || x === -Infinity) $fail("E499", "cannot convert float infinity to integer");
  let r;
  if (mode === 0) r = Math.floor(x);
  else if (mode === 1) r = Math.ceil(x);
  else if (mode === 3) r = Math.trunc(x);
  else { r = Math.floor(x); if (x - r >= 0.5) r += 1; }
  if (r > 9007199254740991 || r < -9007199254740991) $fail("E499", what + " exceeds JavaScript safe integer range");
  return BigInt(r);
}
//@ $b_float_to_int
function $b_float_to_int(x) { return $rounded(x, 3, "float_to_int result"); }
//@ $b_floor
function $b_floor(x) { return $rounded(x, 0, "floor result"); }
//@ $b_math_floor
function $b_math_floor(x) { return $rounded(x, 0, "math_floor result"); }
//@ $b_ceil
function $b_ceil(x) { return $rounded(x, 1, "ceil result"); }
//@ $b_math_ceil
function $b_math_ceil(x) { return $rounded(x, 1, "math_ceil result"); }
//@ $b_round
function $b_round(x) { return $rounded(x, 2, "round result"); }
//@ $b_math_round
function $b_math_round(x) { return $rounded(x, 2, "math_round result"); }
//@ $b_sqrt
function $b_sqrt(x) { if (x < 0) $fail("E499", "sqrt of negative number"); return Math.sqrt(Number(x)); }
//@ $b_math_sqrt
function $b_math_sqrt(x) { if (x < 0) $fail("E499", "math_sqrt: argument must be non-negative"); return Math.sqrt(Number(x)); }
//@ $b_abs $b_math_abs
function $b_abs(x) { return x < 0 ? -x : typeof x === "number" ? Math.abs(x) : x; }
const $b_math_abs = $b_abs;
//@ $b_max $b_math_max
// Python's max/min: the first argument wins a tie, values keep their kind.
function $b_max(a, b) { return b > a ? b : a; }
const $b_math_max = $b_max;
//@ $b_min $b_math_min
function $b_min(a, b) { return b < a ? b : a; }
const $b_math_min = $b_min;
//@ $b_clamp $b_math_clamp
// max(lo, min(hi, value)): lo wins when lo > hi, as in the VM
function $b_clamp(v, lo, hi) { return $b_max(lo, $b_min(hi, v)); }
const $b_math_clamp = $b_clamp;
//@ $b_add
function $b_add(a, b) { return $num("+", a, b); }
//@ $b_subtract
function $b_subtract(a, b) { return $num("-", a, b); }
//@ $b_multiply
function $b_multiply(a, b) { return $num("*", a, b); }
//@ $b_divide
function $b_divide(a, b) { if (b == 0) $fail("E400", "Division by zero"); return $num("/", a, b); }
//@ $b_square
function $b_square(a) { return $num("*", a, a); }
//@ $b_is_positive
function $b_is_positive(a) { return a > 0n; }
//@ $b_bit_or
function $b_bit_or(a, b) { return a | b; }
//@ $b_math_pi
function $b_math_pi() { return Math.PI; }
//@ $b_math_e
function $b_math_e() { return Math.E; }
//@ $b_math_sin
function $b_math_sin(x) { x = Number(x); if (x === Infinity || x === -Infinity) $fail("E499", "math domain error"); return Math.sin(x); }
//@ $b_math_cos
function $b_math_cos(x) { x = Number(x); if (x === Infinity || x === -Infinity) $fail("E499", "math domain error"); return Math.cos(x); }
//@ $b_math_log
function $b_math_log(x) { if (x <= 0) $fail("E499", "math_log: argument must be positive"); return Math.log(Number(x)); }

//@ $b_unwrap
function $b_unwrap(o) {
  if (o instanceof $Some || o instanceof $Ok) return o.value;
  $fail("E499", o instanceof $Err ? "unwrap called on Err: " + $render(o.error, false) : "unwrap called on None");
}
//@ $b_unwrap_or $b_option_unwrap_or $b_result_unwrap_or
function $b_unwrap_or(o, d) { return o instanceof $Some || o instanceof $Ok ? o.value : d; }
const $b_option_unwrap_or = $b_unwrap_or, $b_result_unwrap_or = $b_unwrap_or;
//@ $b_is_some $b_option_is_some
function $b_is_some(o) { return o instanceof $Some; }
const $b_option_is_some = $b_is_some;
//@ $b_is_none $b_option_is_none
function $b_is_none(o) { return o === $None; }
const $b_option_is_none = $b_is_none;
//@ $b_option_map
function $b_option_map(o, f) { return o instanceof $Some ? new $Some(f(o.value)) : o; }
//@ $b_option_and_then
function $b_option_and_then(o, f) { return o instanceof $Some ? f(o.value) : o; }
//@ $b_option_flatten
function $b_option_flatten(o) { return o instanceof $Some ? o.value : o; }
//@ $b_option_to_result
function $b_option_to_result(o, e) { return o instanceof $Some ? new $Ok(o.value) : new $Err(e); }
//@ $b_result_is_ok
function $b_result_is_ok(r) { return r instanceof $Ok; }
//@ $b_result_is_err
function $b_result_is_err(r) { return r instanceof $Err; }
//@ $b_result_map
function $b_result_map(r, f) { return r instanceof $Ok ? new $Ok(f(r.value)) : r; }
//@ $b_result_map_err
function $b_result_map_err(r, f) { return r instanceof $Err ? new $Err(f(r.error)) : r; }
//@ $b_result_and_then
function $b_result_and_then(r, f) { return r instanceof $Ok ? f(r.value) : r; }
//@ $b_result_to_option
function $b_result_to_option(r) { return r instanceof $Ok ? new $Some(r.value) : $None; }

//@ $mc
function $mc(m) { if (m.size > $CFG.coll) $fatal("E504", "Map size exceeds limit (" + m.size + " > " + $CFG.coll + ")"); return m; }
//@ $b_map_from_list $b_map_from_entries
function $b_map_from_list(ps) { const m = new Map(); for (const p of ps) $mset(m, p.a[0], p.a[1]); return new $GMap($mc(m)); }
const $b_map_from_entries = $b_map_from_list;
//@ $b_map_get
function $b_map_get(m, k) { const e = m.m.get($hk(k)); return e === undefined ? $None : new $Some(e[1]); }
//@ $b_map_insert
function $b_map_insert(m, k, v) { const c = new Map(m.m); $mset(c, k, v); return new $GMap($mc(c)); }
//@ $b_map_entries
function $b_map_entries(m) { return [...m.m.values()].map((e) => new $T([e[0], e[1]])); }
//@ $b_map_merge
function $b_map_merge(a, b) { const c = new Map(a.m); for (const e of b.m.values()) $mset(c, e[0], e[1]); return new $GMap($mc(c)); }
//@ $b_map_map_values
function $b_map_map_values(m, f) { const c = new Map(); for (const [h, e] of m.m) c.set(h, [e[0], f(e[1])]); return new $GMap(c); }
//@ $b_map_filter_map
function $b_map_filter_map(m, f) { const c = new Map(); for (const [h, e] of m.m) if (f(e[0], e[1])) c.set(h, e); return new $GMap(c); }

//@ $b_mutable_map_new
function $b_mutable_map_new() { return new $MMap(new Map()); }
//@ $b_mutable_map_set
// A MutableMap's entries belong to it alone (no other map shares them), so
// a key already present has its value replaced in place.
function $b_mutable_map_set(m, k, v) {
  const h = $hk(k), e = m.m.get(h);
  if (e !== undefined) e[1] = v;
  else { m.m.set(h, [k, v]); $mc(m.m); }
}
//@ $b_mutable_map_get
function $b_mutable_map_get(m, k) { const e = m.m.get($hk(k)); return e === undefined ? $None : new $Some(e[1]); }
//@ $b_mutable_map_contains
function $b_mutable_map_contains(m, k) { return m.m.has($hk(k)); }
//@ $b_mutable_map_delete
function $b_mutable_map_delete(m, k) { m.m.delete($hk(k)); }
//@ $b_mutable_map_keys
function $b_mutable_map_keys(m) { return [...m.m.values()].map((e) => e[0]); }
//@ $b_mutable_map_size
function $b_mutable_map_size(m) { return BigInt(m.m.size); }

//@ $b_set_new
function $b_set_new() { return new $GSet(new Map()); }
//@ $b_set_from_list
function $b_set_from_list(xs) { const m = new Map(); for (const x of xs) { const h = $hk(x); if (!m.has(h)) m.set(h, [x]); } return new $GSet(m); }
//@ $b_set_add
function $b_set_add(s, x) { const h = $hk(x); if (!s.m.has(h)) s.m.set(h, [x]); $mc(s.m); }
//@ $b_set_remove
function $b_set_remove(s, x) { s.m.delete($hk(x)); }
//@ $b_set_contains
function $b_set_contains(s, x) { return s.m.has($hk(x)); }
//@ $b_set_size
function $b_set_size(s) { return BigInt(s.m.size); }
//@ $b_set_to_list
function $b_set_to_list(s) { return [...s.m.values()].map((e) => e[0]).sort($cmp); }
//@ $b_set_union
function $b_set_union(a, b) { const m = new Map(a.m); for (const [h, e] of b.m) if (!m.has(h)) m.set(h, e); return new $GSet($mc(m)); }
//@ $b_set_intersection
// walks the smaller set (the second on a tie) and keeps the walked set's
// form of an element (1 or 1.0), as the VM does
function $b_set_intersection(a, b) {
  const [w, o] = b.m.size > a.m.size ? [a, b] : [b, a], m = new Map();
  for (const [h, e] of w.m) if (o.m.has(h)) m.set(h, e);
  return new $GSet(m);
}

//@ $ag
// array_get / vec_get and the setters: no negative indices here.
function $ag(fn, a, i) {
  if (typeof i !== "bigint") $fail("E499", "'float' object cannot be interpreted as an integer");
  if (i < 0n || i >= BigInt(a.a.length)) $fail("E499", fn + " index " + i + " out of bounds (length " + a.a.length + ")");
  return a.a[Number(i)];
}
//@ $b_array_new
function $b_array_new(n, d) {
  if (n < 0n) $fail("E499", "array_new size must be non-negative, got " + n);
  if (n > BigInt($CFG.coll)) $fatal("E504", "Array size exceeds limit (" + n + " > " + $CFG.coll + ")");
  return new $Arr(new Array(Number(n)).fill(d));
}
//@ $b_array_from_list
function $b_array_from_list(xs) { return new $Arr(xs.slice()); }
//@ $b_array_to_list
function $b_array_to_list(a) { return a.a.slice(); }
//@ $b_array_get
function $b_array_get(a, i) { return $ag("array_get", a, i); }
//@ $b_array_set
function $b_array_set(a, i, v) { $ag("array_set", a, i); a.a[Number(i)] = v; }
//@ $b_array_length
function $b_array_length(a) { return BigInt(a.a.length); }
//@ $b_array_copy
function $b_array_copy(a) { return new $Arr(a.a.slice()); }
//@ $b_array_fill
function $b_array_fill(a, v) { a.a.fill(v); }
//@ $b_vec_new
function $b_vec_new() { return new $Vec([]); }
//@ $b_vec_from_list
function $b_vec_from_list(xs) { return new $Vec(xs.slice()); }
//@ $b_vec_to_list
function $b_vec_to_list(v) { return v.a.slice(); }
//@ $b_vec_push
function $b_vec_push(v, x) { v.a.push(x); $lc(v.a); }
//@ $b_vec_pop
function $b_vec_pop(v) { return v.a.length ? new $Some(v.a.pop()) : $None; }
//@ $b_vec_get
function $b_vec_get(v, i) { return $ag("vec_get", v, i); }
//@ $b_vec_set
function $b_vec_set(v, i, x) { $ag("vec_set", v, i); v.a[Number(i)] = x; }
//@ $b_vec_length
function $b_vec_length(v) { return BigInt(v.a.length); }

//@ $b_path_join
function $b_path_join(a, b) { return b.startsWith("/") || a === "" ? b : a.endsWith("/") ? a + b : a + "/" + b; }
//@ $b_path_filename
function $b_path_filename(p) { return p.slice(p.lastIndexOf("/") + 1); }
//@ $b_path_is_absolute
// a leading '/', or a letter (any Unicode letter, as Python's isalpha) and ":/"
function $b_path_is_absolute(p) { return p.startsWith("/") || /^\p{L}:\//u.test(p); }
//@ $b_path_parent
// posixpath.dirname: up to the last '/', trailing slashes dropped unless
// the head is all slashes
function $b_path_parent(p) {
  const head = p.lastIndexOf("/") + 1;
  let keep = head;
  while (keep > 0 && p[keep - 1] === "/") keep--;
  return p.slice(0, keep === 0 ? head : keep);
}
//@ $b_path_extension
// posixpath.splitext's extension: the last '.' of the name counts only
// after a character other than '.'
function $b_path_extension(p) {
  const name = p.slice(p.lastIndexOf("/") + 1), dot = name.lastIndexOf(".");
  return dot > 0 && /[^.]/.test(name.slice(0, dot)) ? name.slice(dot) : "";
}

//@ $b_clock_now
// Whole Unix seconds (UTC), as the VM.
function $b_clock_now() { $cap("clock", "clock_now"); return BigInt(Math.floor(Date.now() / 1000)); }
//@ $b_datetime_now
function $b_datetime_now() { $cap("clock", "datetime_now"); return BigInt(Math.floor(Date.now() / 1000)); }

//@ $b_sleep_ms
// sleep_ms on Node blocks the thread (Atomics.wait) as the CLI does; a
// sleep past the run's deadline ends at the deadline with E501.
function $b_sleep_ms(ms) {
  $cap("clock", "sleep_ms");
  if (ms < 0n) $fail("E499", "sleep_ms: negative duration not allowed (" + ms + ")");
  let t = Number(ms), cut = false;
  if (t === 0) return;
  if ($CFG.timeout > 0) {
    const left = $CFG.timeout * 1000 - (Date.now() - $T0);
    if (t > left) { t = Math.max(0, left); cut = true; }
  }
  const cell = new Int32Array(new SharedArrayBuffer(4)), end = Date.now() + t;
  for (let rest = t; rest > 0; rest = end - Date.now()) Atomics.wait(cell, 0, 0, Math.min(rest, 86400000));
  if (cut) $fatal("E501", "Execution timed out after " + $CFG.timeout + " seconds");
}

//@ $clockCheck
// The directives clock_format and clock_parse know (src/lib/timefmt.c).
function $clockCheck(fn, fmt) {
  for (let i = 0; i < fmt.length; i++) {
    if (fmt[i] !== "%") continue;
    if (i + 1 >= fmt.length) $fail("E499", fn + ": trailing '%' with no directive in format string");
    const c = String.fromCodePoint(fmt.codePointAt(i + 1));
    if (!"YmdHMS%".includes(c)) $fail("E499", fn + ": unsupported format directive '%" + c + "' (supported: %Y %m %d %H %M %S %%)");
    i++;
  }
}
//@ $civil $days
// Days since 1970-01-01 to [year, month, day] (proleptic Gregorian; Howard
// Hinnant's civil_from_days), and back ($days).
function $civil(z) {
  z += 719468;
  const era = Math.floor(z / 146097), doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153), d = doy - Math.floor((153 * mp + 2) / 5) + 1, m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}
function $days(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400), yoe = y - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}
//@ $clockFormat
// clock_format / datetime_format: UTC fields of a non-negative timestamp,
// its fraction rounded half-even to microseconds (which may carry).
function $clockFormat(ts, fmt) {
  if (ts < 0) $fail("E499", "clock_format: negative timestamps (pre-1970) are not supported");
  $clockCheck("clock_format", fmt);
  if (ts !== ts) $fail("E499", "clock_format: Invalid value NaN (not a number)");
  if (!(ts < 9223372036854775808)) $fail("E499", "clock_format: timestamp out of range for platform time_t");
  let ip = Math.trunc(ts);
  if ((ts - ip) * 1e6 >= 999999.5) ip += 1;
  const secs = BigInt(ip), days = Number(secs / 86400n), rem = Number(secs % 86400n);
  const [y, mo, d] = $civil(days);
  if (y > 2147483647 + 1900) $fail("E499", "clock_format: [Errno 75] Value too large for defined data type");
  if (y > 9999) $fail("E499", "clock_format: year " + y + " is out of range");
  const f = { Y: String(y).padStart(4, "0"), m: mo, d: d, H: Math.floor(rem / 3600), M: Math.floor(rem / 60) % 60, S: rem % 60 };
  let out = "";
  for (let i = 0; i < fmt.length; i++) {
    if (fmt[i] !== "%") { out += fmt[i]; continue; }
    const c = fmt[++i];
    out += c === "%" ? "%" : c === "Y" ? f.Y : String(f[c]).padStart(2, "0");
  }
  return out;
}
//@ $b_clock_format
function $b_clock_format(ts, fmt) { $cap("clock", "clock_format"); return $clockFormat($nf(ts), fmt); }
//@ $b_datetime_format
function $b_datetime_format(ts, fmt) { $cap("clock", "datetime_format"); return $clockFormat($nf(ts), fmt); }
//@ $clockParse $digit
// clock_parse / datetime_parse: fmt read as the reference's anchored
// regular expression (%Y four Unicode digits, the others two, literals
// exact); the timestamp (a Float), or undefined for no match or no such
// date. A repeated directive is Python's regex error, with its position.
function $clockParse(text, fmt) {
  $clockCheck("clock_parse", fmt);
  const group = {};
  let groups = 0, pos = 1;
  for (let i = 0; i < fmt.length;) {
    if (fmt[i] === "%" && fmt[i + 1] === "%") { pos += 1; i += 2; continue; }
    if (fmt[i] === "%") {
      const c = fmt[i + 1];
      groups++;
      if (group[c]) $fail("E499", "redefinition of group name '" + c + "' as group " + groups + "; was group " + group[c] + " at position " + (pos + 4));
      group[c] = groups;
      pos += 12;
      i += 2;
      continue;
    }
    const cp = fmt.codePointAt(i);
    pos += cp < 128 && "()[]{}?*+-|^$\\.&~# \t\n\r\v\f".includes(String.fromCharCode(cp)) ? 2 : 1;
    i += cp > 0xffff ? 2 : 1;
  }
  const f = { Y: 1970, m: 1, d: 1, H: 0, M: 0, S: 0 };
  let i = 0;
  for (let k = 0; k < fmt.length; k++) {
    if (fmt[k] === "%") {
      const c = fmt[++k];
      if (c === "%") { if (text[i] !== "%") return undefined; i++; continue; }
      let v = 0;
      for (let n = c === "Y" ? 4 : 2; n > 0; n--) {
        const cp = text.codePointAt(i), dv = cp === undefined ? -1 : $digit(cp);
        if (dv < 0) return undefined;
        v = v * 10 + dv;
        i += cp > 0xffff ? 2 : 1;
      }
      f[c] = v;
      continue;
    }
    if (text[i] !== fmt[k]) return undefined;
    i++;
  }
  if (!(i === text.length || (i + 1 === text.length && text[i] === "\n"))) return undefined;
  const leap = (f.Y % 4 === 0 && f.Y % 100 !== 0) || f.Y % 400 === 0;
  const dim = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (f.Y < 1 || f.m < 1 || f.m > 12 || f.d < 1 || f.d > dim[f.m - 1] || f.H > 23 || f.M > 59 || f.S > 59) return undefined;
  return $days(f.Y, f.m, f.d) * 86400 + f.H * 3600 + f.M * 60 + f.S;
}
// The value 0-9 of a Unicode decimal digit (category Nd), or -1: Nd digits
// come in runs of ten from zero to nine.
function $digit(cp) {
  if (cp >= 48 && cp <= 57) return cp - 48;
  const nd = (c) => /\p{Nd}/u.test(String.fromCodePoint(c));
  if (cp < 128 || !nd(cp)) return -1;
  let start = cp;
  while (start > 0 && nd(start - 1) && cp - start < 60) start--;
  return (cp - start) % 10;
}
//@ $b_clock_parse
function $b_clock_parse(text, fmt) { $cap("clock", "clock_parse"); const t = $clockParse(text, fmt); return t === undefined ? $None : new $Some(t); }
//@ $b_datetime_parse
function $b_datetime_parse(text, fmt) { $cap("clock", "datetime_parse"); const t = $clockParse(text, fmt); return t === undefined ? $None : new $Some(BigInt(Math.trunc(t))); }
//@ $b_clock_elapsed
function $b_clock_elapsed(a, b) { $cap("clock", "clock_elapsed"); return $nf(b) - $nf(a); }
//@ $b_datetime_elapsed
function $b_datetime_elapsed(a, b) {
  $cap("clock", "datetime_elapsed");
  const d = $nf(b) - $nf(a);
  if (!Number.isFinite(d)) $fail("E499", "cannot convert float infinity to integer");
  return BigInt(Math.trunc(d));
}
//@ $b_random_int $b_math_random_int
function $b_random_int(lo, hi) {
  $cap("random", "random_int");
  if (hi < lo) $fail("E499", "empty range for randrange() (" + lo + ", " + (hi + 1n) + ", " + (hi + 1n - lo) + ")");
  return lo + BigInt(Math.floor(Math.random() * Number(hi - lo + 1n)));
}
const $b_math_random_int = $b_random_int;
//@ $b_random_float $b_math_random_float
function $b_random_float() { $cap("random", "random_float"); return Math.random(); }
const $b_math_random_float = $b_random_float;

//@ $b_env_get
function $b_env_get(n) { $cap("env", "env_get"); const v = typeof process !== "undefined" ? process.env[n] : undefined; return v === undefined ? $None : new $Some(v); }
//@ $b_env_get_or
function $b_env_get_or(n, d) { $cap("env", "env_get_or"); const v = typeof process !== "undefined" ? process.env[n] : undefined; return v === undefined ? d : v; }
//@ $b_cli_args
function $b_cli_args() {
  $cap("env", "cli_args");
  if (typeof process === "undefined") return [];
  const i = process.argv.indexOf("--");
  return i < 0 ? [] : process.argv.slice(i + 1);
}
//@ $fsScope $fsFind $fsCheck $fsOsErr $fsErrno $fsReal $fsRootList
// The CLI's filesystem roots on Node (src/host/fs.c): the real paths of the
// current directory, the script's directory and each program argument (after
// `--`) that looks like a path (absolute or containing "/": that directory,
// or the directory holding that file). A path is resolved one component at a
// time, every link followed and `..` applied to the resolved parent, relative
// paths against each root in turn; the result must lie inside a root, and is
// what gets opened (its last component with O_NOFOLLOW).
let $fsRootList;
function $fsReal(p, depth) {
  const fs = require("fs");
  let cur = "/";
  for (const name of p.split("/")) {
    if (name === "" || name === ".") continue;
    if (name === "..") { cur = cur.slice(0, cur.lastIndexOf("/")) || "/"; continue; }
    const next = (cur === "/" ? "" : cur) + "/" + name;
    try { cur = fs.realpathSync.native(next); } catch (e) {
      // a dangling link leads where its target would be (as Python's realpath)
      let t;
      try { t = (depth || 0) < 40 ? fs.readlinkSync(next) : undefined; } catch (e2) { t = undefined; }
      cur = t === undefined ? next : $fsReal(t.startsWith("/") ? t : cur + "/" + t, (depth || 0) + 1);
    }
  }
  return cur;
}
// The resolved path inside a root, or undefined when it escapes. With
// keepLast (fs_symlink_metadata) the parents are resolved and the last name
// kept, so a final link is looked at, not followed.
function $fsFind(p, keepLast) {
  const fs = require("fs");
  if (!$fsRootList) {
    const abs = (x) => x.startsWith("/") ? x : process.cwd() + "/" + x;
    const dirOf = (x) => { try { if (fs.statSync(x).isDirectory()) return x; } catch (e) { /* a file or nothing */ } return x.slice(0, x.lastIndexOf("/")) || "/"; };
    const roots = [$fsReal(process.cwd())];
    if (process.argv[1]) roots.push(dirOf($fsReal(abs(process.argv[1]))));
    const i = process.argv.indexOf("--");
    if (i >= 0) for (const a of process.argv.slice(i + 1)) if (a.includes("/")) roots.push(dirOf($fsReal(abs(a))));
    $fsRootList = roots;
  }
  const roots = $fsRootList;
  const under = (x, r) => r === "/" || x === r || x.startsWith(r + "/");
  const absolute = p.startsWith("/");
  const n = absolute ? 1 : roots.length;
  for (let i = 0; i < n; i++) {
    const cand = absolute ? p : roots[i] + (p === "" ? "" : "/" + p);
    let res;
    const cut = cand.lastIndexOf("/") + 1, name = cand.slice(cut);
    if (!keepLast || name === "") res = $fsReal(cand);
    else {
      res = $fsReal(cand.slice(0, cut));
      if (name === "..") res = res.slice(0, res.lastIndexOf("/")) || "/";
      else if (name !== ".") res = (res === "/" ? "" : res) + "/" + name;
    }
    for (let k = 0; k < roots.length; k++) if ((absolute || k === i) && under(res, roots[k])) return res;
  }
  return undefined;
}
function $fsScope(fn, p) {
  if (p.includes("\0")) $fail("E499", "embedded null byte");
  if (typeof require !== "function") $fail("E499", fn + " is not available in a browser");
  const res = $fsFind(p, false);
  if (res === undefined) $fail("E499", fn + ": path escapes configured filesystem roots");
  return res;
}
// The same check for the builtins that return Err: the resolved path, or
// an $Err with the CLI's reason.
function $fsCheck(fn, p, keepLast) {
  if (p.includes("\0")) return new $Err("embedded null byte");
  if (typeof require !== "function") $fail("E499", fn + " is not available in a browser");
  const res = $fsFind(p, keepLast);
  return res === undefined ? new $Err(fn + ": path escapes configured filesystem roots") : res;
}
// A Node fs error in the CLI's words (Python's OSError text) for the
// common errno values; others keep Node's message.
const $fsErrno = {
  EPERM: [1, "Operation not permitted"], ENOENT: [2, "No such file or directory"], EIO: [5, "Input/output error"],
  ENXIO: [6, "No such device or address"], EACCES: [13, "Permission denied"], EBUSY: [16, "Device or resource busy"],
  ENOTDIR: [20, "Not a directory"], EISDIR: [21, "Is a directory"], EMFILE: [24, "Too many open files"],
  ENAMETOOLONG: [36, "File name too long"], ELOOP: [40, "Too many levels of symbolic links"],
};
function $fsOsErr(e, path) {
  const t = $fsErrno[e && e.code];
  return t ? "[Errno " + t[0] + "] " + t[1] + ": " + $repr(path) : String(e && e.message);
}
//@ $b_fs_read_text
function $b_fs_read_text(p) {
  $cap("fs", "fs_read_text");
  const path = $fsScope("fs_read_text", p), fs = require("fs");
  let fd;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    return fs.readFileSync(fd, "utf8").replace(/\r\n?/g, "\n");
  } catch (e) { $fail("E499", e.message); } finally { if (fd !== undefined) fs.closeSync(fd); }
}
//@ $b_fs_write_text
function $b_fs_write_text(p, s) {
  $cap("fs", "fs_write_text");
  if (typeof process !== "undefined" && /^\s*(1|true|yes|on)\s*$/i.test(process.env.GENO_FS_READ_ONLY || "")) $fail("E499", "fs_write_text: filesystem writes are not allowed");
  const path = $fsScope("fs_write_text", p), fs = require("fs");
  let fd;
  try {
    fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, 0o666);
    fs.writeFileSync(fd, s);
  } catch (e) { $fail("E499", e.message); } finally { if (fd !== undefined) fs.closeSync(fd); }
}
//@ $b_fs_exists
function $b_fs_exists(p) { $cap("fs", "fs_exists"); if (typeof require !== "function") return false; return require("fs").existsSync($fsScope("fs_exists", p)); }
//@ $b_fs_list_dir
// The names in a directory (not . and ..), in code-point order. The
// directory is opened without following a final link and read through
// the open descriptor (/proc/self/fd) where Linux offers it.
function $b_fs_list_dir(p) {
  $cap("fs", "fs_list_dir");
  if (p.includes("\0")) $fail("E499", "embedded null byte");
  const path = $fsCheck("fs_list_dir", p, false);
  if (path instanceof $Err) return path;
  const fs = require("fs"), c = fs.constants;
  let fd, names;
  try {
    fd = fs.openSync(path, c.O_RDONLY | c.O_DIRECTORY | c.O_NOFOLLOW | c.O_NONBLOCK);
    try { names = fs.readdirSync("/proc/self/fd/" + fd); } catch (e) { names = fs.readdirSync(path); }
  } catch (e) { return new $Err($fsOsErr(e, path)); } finally { if (fd !== undefined) fs.closeSync(fd); }
  if (names.length > $CFG.coll) $fatal("E504", "List size exceeds limit (" + names.length + " > " + $CFG.coll + ")");
  return new $Ok(names.sort($scmp));
}
//@ $fsMeta $b_fs_metadata $b_fs_symlink_metadata
// Ok(FileMetadata(kind, size, modified_ms)); fs_symlink_metadata reports a
// final link itself.
function $fsMeta(fn, p, follow) {
  $cap("fs", fn);
  const path = $fsCheck(fn, p, !follow);
  if (path instanceof $Err) return path;
  let st;
  try { st = require("fs").lstatSync(path, { bigint: true }); } catch (e) { return new $Err($fsOsErr(e, path)); }
  const kind = st.isFile() ? C_FileKindFile : st.isDirectory() ? C_FileKindDirectory : st.isSymbolicLink() ? C_FileKindSymlink : C_FileKindOther;
  const ns = st.mtimeNs;
  let ms = ns / 1000000n;
  if (ns < 0n && ms * 1000000n !== ns) ms -= 1n;
  const safe = 9007199254740991n;
  if (st.size > safe) $fail("E499", fn + " size exceeds JavaScript safe integer range");
  if (ms > safe || ms < -safe) $fail("E499", fn + " modified_ms exceeds JavaScript safe integer range");
  return new $Ok(new C_FileMetadata(kind, st.size, ms));
}
function $b_fs_metadata(p) { return $fsMeta("fs_metadata", p, true); }
function $b_fs_symlink_metadata(p) { return $fsMeta("fs_symlink_metadata", p, false); }
//@ $b_fs_canonicalize
// The path with every link resolved, when it exists inside a root.
function $b_fs_canonicalize(p) {
  $cap("fs", "fs_canonicalize");
  const path = $fsCheck("fs_canonicalize", p, false);
  if (path instanceof $Err) return path;
  try { require("fs").lstatSync(path); } catch (e) { return new $Err("fs_canonicalize: path does not exist: " + p); }
  return new $Ok(path);
}
