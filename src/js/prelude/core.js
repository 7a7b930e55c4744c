// geno-c JavaScript runtime, core part. Written for geno-c (not derived from
// any other implementation). The file is a list of units; a unit starts at a
// line `//@ NAME...` naming what it defines. src/js/prelude.c keeps only the
// units a program reaches: the names the generated code uses, and then every
// `$name` token inside a kept unit, transitively.

//@ $rt $S $M $D $MD $GErr $fail $fatal $step $deep
// Steps: one per loop back-edge and per call. Depth: nested Geno calls.
// $M is the next checkpoint, not the limit: $step checks the step limit
// and the wall-clock deadline every 1 to 65536 steps ($K, below).
let $S = 0, $D = 0;
const $LIM = typeof globalThis.__GENO_MAX_STEPS === "number" ? globalThis.__GENO_MAX_STEPS : $CFG.steps;
let $M = Math.min($LIM, 1);
const $MD = $CFG.depth;
let $T0 = Date.now();
class $GErr extends Error {
  constructor(code, msg, fatal) { super(msg); this.code = code; this.fatal = fatal; }
}
function $fail(code, msg) { throw new $GErr(code, msg, false); }
function $fatal(code, msg) { throw new $GErr(code, msg, true); }
// The interval between checkpoints adapts so the deadline is looked at
// about every 10 ms: cheap steps (a tight loop) stretch it up to 65536,
// steps that each run a costly builtin (a replace over megabytes) shrink it
// down to 1, so such a loop still ends at its timeout.
let $K = 1, $TK = Date.now();
function $step() {
  if ($S > $LIM) $fatal("E503", "Step limit exceeded (" + $LIM + " steps)");
  const now = Date.now();
  if ($CFG.timeout > 0 && now - $T0 > $CFG.timeout * 1000) {
    const t = $CFG.timeout;
    $fatal("E501", "Execution timed out after " + (Number.isInteger(t) ? t.toFixed(1) : String(t)) + " seconds");
  }
  if (now - $TK > 20) $K = Math.max(1, $K >> 2);
  else if (now - $TK < 5 && $K < 65536) $K *= 2;
  $TK = now;
  $M = Math.min($LIM, $S + $K);
}
function $deep() { $D = 0; $fatal("E502", "Maximum recursion depth exceeded (" + $MD + ")"); }

//@ $V $T $Some $None $Ok $Err $fk
// Constructor values: one class per variant, extending its type's class,
// which extends $V. The prototype carries the variant name ($n) and its
// field names ($f). Tuples are $T (items in `a`). A field named __proto__
// is kept as the property "__proto__$" (assigning "__proto__" would set
// the prototype); $fk gives the name a program wrote, for display.
function $fk(k) { return k === "__proto__$" ? "__proto__" : k; }
class $V {}
class $T { constructor(a) { this.a = a; } }
class $Option extends $V {}
class $Result extends $V {}
class $Some extends $Option { constructor(v) { super(); this.value = v; } }
$Some.prototype.$n = "Some"; $Some.prototype.$f = ["value"];
class $None$ extends $Option {}
$None$.prototype.$n = "None"; $None$.prototype.$f = [];
const $None = new $None$();
class $Ok extends $Result { constructor(v) { super(); this.value = v; } }
$Ok.prototype.$n = "Ok"; $Ok.prototype.$f = ["value"];
class $Err extends $Result { constructor(v) { super(); this.error = v; } }
$Err.prototype.$n = "Err"; $Err.prototype.$f = ["error"];

//@ $Arr $Vec
// Mutable sequences (shared references). Each container class brings its
// own text ($show) and equality ($same), so $render and $eq need no unit
// of a container the program never makes.
class $Arr { constructor(a) { this.a = a; } }
class $Vec { constructor(a) { this.a = a; } }
$Arr.prototype.$show = function () { return "Array([" + this.a.map((x) => $render(x, false)).join(", ") + "])"; };
$Vec.prototype.$show = function () { return "Vec([" + this.a.map((x) => $render(x, false)).join(", ") + "])"; };
$Arr.prototype.$same = $Vec.prototype.$same = function (b) { return $eq(this.a, b.a); };

//@ $MMap $GMap $GSet
// Keyed containers: a JavaScript Map from a key (see $hk) to [key, value].
// The Map and Set are immutable values; MutableMap is a shared reference.
class $MMap { constructor(m) { this.m = m; } }
class $GMap { constructor(m) { this.m = m; } }
class $GSet { constructor(m) { this.m = m; } }
function $renderEntries(m) {
  const out = [];
  for (const e of m.values()) out.push($render(e[0], false) + ": " + $render(e[1], false));
  return out.join(", ");
}
$GMap.prototype.$show = function () { return "{" + $renderEntries(this.m) + "}"; };
$MMap.prototype.$show = function () { return "MutableMap({" + $renderEntries(this.m) + "})"; };
$GSet.prototype.$show = function () {
  const items = [...this.m.values()].map((e) => e[0]).sort($cmp);
  return "Set({" + items.map((x) => $render(x, false)).join(", ") + "})";
};
$GMap.prototype.$same = $MMap.prototype.$same = $GSet.prototype.$same = function (b) {
  if (this.m.size !== b.m.size) return false;
  for (const [k, e] of this.m) {
    const o = b.m.get(k);
    if (o === undefined || !$eq(e[1], o[1])) return false;
  }
  return true;
};

//@ $hk
// A primitive stands for itself as a Map key; other values by their text.
// Equal numbers are one key (1 and 1.0, as in the VM), so an integral
// Float's key is the BigInt of the same value.
function $hk(v) {
  const t = typeof v;
  if (t === "bigint" || t === "string") return v;
  if (t === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (t === "boolean") return v ? 1n : 0n;
  return "\u0000" + $keytext(v);
}
function $keytext(v) {
  if (typeof v === "number" && Number.isInteger(v)) return String(v);
  if (typeof v !== "object") return $render(v, false);
  if (Array.isArray(v)) return "[" + v.map($keytext).join(",") + "]";
  if (v instanceof $T) return "(" + v.a.map($keytext).join(",") + ")";
  if (v instanceof $V) return v.$n + "(" + v.$f.map((k) => $keytext(v[k])).join(",") + ")";
  return $render(v, false);
}

//@ $mset
// Insert into a key map: a key already present keeps its first form.
function $mset(m, k, v) {
  const h = $hk(k), e = m.get(h);
  m.set(h, [e === undefined ? k : e[0], v]);
}

//@ $fmtF
// A Float as Python's repr writes it: shortest round trip, positional
// between 1e-4 and 1e16, else d.ddde+XX.
function $fmtF(x) {
  if (x !== x) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const e = x.toExponential();
  const i = e.indexOf("e");
  let mant = e.slice(0, i), exp = +e.slice(i + 1);
  const neg = mant[0] === "-";
  if (neg) mant = mant.slice(1);
  const digits = mant.replace(".", "");
  const decpt = exp + 1;
  let s;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) s = "0." + "0".repeat(-decpt) + digits;
    else if (decpt < digits.length) s = digits.slice(0, decpt) + "." + digits.slice(decpt);
    else s = digits + "0".repeat(decpt - digits.length) + ".0";
  } else {
    s = digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "") + "e" + (exp < 0 ? "-" : "+") +
      (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
  }
  return neg ? "-" + s : s;
}

//@ $quote
function $quote(s) {
  return "\"" + s.replace(/[\\"\u0000-\u001f]/g, (c) => {
    switch (c) {
      case "\\": return "\\\\"; case "\"": return "\\\""; case "\b": return "\\b";
      case "\f": return "\\f"; case "\n": return "\\n"; case "\r": return "\\r"; case "\t": return "\\t";
    }
    return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
  }) + "\"";
}

//@ $itxt
// An Int's decimal text: more than 4300 digits is refused, as in the VM
// (and Python's int-to-str limit).
function $itxt(v) {
  const s = v.toString(), n = s.length - (v < 0n ? 1 : 0);
  if (n > 4300) $fail("E499", "Integer too large to convert to text (" + n + " digits; the limit is 4300 digits)");
  return s;
}

//@ $render
// The canonical text of a value (print, to_string, f-strings, `=>`).
function $render(v, top) {
  switch (typeof v) {
    case "bigint": return $itxt(v);
    case "number": return $fmtF(v);
    case "string": return top ? v : $quote(v);
    case "boolean": return v ? "true" : "false";
    case "undefined": return "()";
    case "function": return v.$builtin ? "<builtin " + v.$builtin + ">" : "<function " + (v.$name || "anonymous") + ">";
  }
  if (Array.isArray(v)) return "[" + v.map((x) => $render(x, false)).join(", ") + "]";
  if (v instanceof $T) return "(" + v.a.map((x) => $render(x, false)).join(", ") + (v.a.length === 1 ? ",)" : ")");
  if (v instanceof $V) {
    const f = v.$f;
    if (f.length === 0) return v.$n;
    return v.$n + "(" + f.map((k) => $fk(k) + ": " + $render(v[k], false)).join(", ") + ")";
  }
  if (v.$show) return v.$show();
  return String(v);
}

//@ $repr
// Python's repr, where the VM shows one (a thrown value caught as String):
// a string escapes what Python's str.isprintable refuses.
function $repr(v) {
  switch (typeof v) {
    case "string": {
      const q = v.includes("'") && !v.includes("\"") ? "\"" : "'";
      let s = q;
      for (const ch of v) {
        const c = ch.codePointAt(0);
        if (ch === q || ch === "\\") s += "\\" + ch;
        else if (ch === "\n") s += "\\n";
        else if (ch === "\r") s += "\\r";
        else if (ch === "\t") s += "\\t";
        else if (c < 0x20 || c === 0x7f) s += "\\x" + c.toString(16).padStart(2, "0");
        else if (c < 0x7f || !/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u.test(ch)) s += ch;
        else s += c <= 0xff ? "\\x" + c.toString(16).padStart(2, "0") : c <= 0xffff ? "\\u" + c.toString(16).padStart(4, "0") : "\\U" + c.toString(16).padStart(8, "0");
      }
      return s + q;
    }
    case "boolean": return v ? "True" : "False";
  }
  if (Array.isArray(v)) return "[" + v.map($repr).join(", ") + "]";
  if (v instanceof $T) return "(" + v.a.map($repr).join(", ") + (v.a.length === 1 ? ",)" : ")");
  if (v instanceof $V) {
    const f = v.$f;
    if (f.length === 0) return v.$n;
    return v.$n + "(" + f.map((k) => $fk(k) + ": " + $repr(v[k])).join(", ") + ")";
  }
  return $render(v, false);
}

//@ $apIn $rd
// `x = append(x, e)` in a loop: a list that only that variable holds (made
// by $apIn, marked $own) grows in place; any other read of the variable
// ($rd) gives the mark up, so a list that has been seen elsewhere is copied
// first, as append always does.
function $apIn(a, x) {
  if (a.$own === true) { a.push(x); return $lc(a); }
  const c = a.slice();
  c.push(x);
  c.$own = true;
  return $lc(c);
}
function $rd(a) { if (a !== null && typeof a === "object" && a.$own === true) a.$own = false; return a; }

//@ $U0
// Unit is undefined, except a `()` written in the source or a bare
// `return`: $U0, the same value to every operation but json_to_string
// (`[]` for it, `null` for the other, as in the VM and the reference).
const $U0 = Object.freeze({ $u: true, $show() { return "()"; } });

//@ $eq
// Structural equality.
function $eq(a, b) {
  if (a === b) return true;
  const t = typeof a;
  if (a === undefined || b === undefined) return (a === undefined ? b : a).$u === true;
  if (t !== "object" || a === null || typeof b !== "object" || b === null) {
    if (t === "bigint" && typeof b === "number") return Number(a) === b;
    if (t === "number" && typeof b === "bigint") return a === Number(b);
    return false;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!$eq(a[i], b[i])) return false;
    return true;
  }
  if (a.constructor !== b.constructor) return false;
  if (a instanceof $V) {
    for (const k of a.$f) if (!$eq(a[k], b[k])) return false;
    return true;
  }
  if (a instanceof $T) return $eq(a.a, b.a);
  if (a.$same) return a.$same(b);
  return false;
}

//@ $eqa
// Equality of an example check: Floats compare approximately (within a
// relative 1e-9 or an absolute 1e-12, as the VM does), also inside
// containers; the elements of two Sets must pair up one to one (a perfect
// matching, found by augmenting paths).
function $close(x, y) {
  x = Number(x); y = Number(y);
  if (x === y) return true;
  if (!isFinite(x) || !isFinite(y)) return false;
  const d = Math.abs(x - y);
  return d <= 1e-9 * Math.max(Math.abs(x), Math.abs(y)) || d <= 1e-12;
}
function $eqa(a, b) {
  const t = typeof a, u = typeof b;
  if ((t === "bigint" || t === "number") && (u === "bigint" || u === "number")) return $close(a, b);
  if (a === undefined || b === undefined) return $eq(a, b);
  if (t !== "object" || a === null || u !== "object" || b === null) return a === b;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!$eqa(a[i], b[i])) return false;
    return true;
  }
  if (a.constructor !== b.constructor) return false;
  if (a instanceof $V) {
    for (const k of a.$f) if (!$eqa(a[k], b[k])) return false;
    return true;
  }
  if (a instanceof $T || a.a !== undefined) return $eqa(a.a, b.a);
  if (!(a.m instanceof Map)) return $eq(a, b);
  if (a.m.size !== b.m.size) return false;
  if (a instanceof $GSet) {
    const l = [...a.m.values()].map((e) => e[0]), r = [...b.m.values()].map((e) => e[0]);
    const cand = l.map((x) => r.map((y, j) => ($eqa(x, y) ? j : -1)).filter((j) => j >= 0));
    if (cand.some((c) => c.length === 0)) return false;
    const owner = new Array(r.length).fill(-1);
    const tryL = (i, seen) => {
      for (const j of cand[i]) {
        if (seen[j]) continue;
        seen[j] = true;
        if (owner[j] < 0 || tryL(owner[j], seen)) { owner[j] = i; return true; }
      }
      return false;
    };
    for (let i = 0; i < l.length; i++) if (!tryL(i, [])) return false;
    return true;
  }
  for (const [k, e] of a.m) {
    const o = b.m.get(k);
    if (o === undefined || !$eqa(e[1], o[1])) return false;
  }
  return true;
}

//@ $cmp
// The total order used for sorting and for < on structured values.
function $cmp(a, b) {
  const t = typeof a;
  if (t === "bigint" || t === "number") {
    if (typeof b === "string") return -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (t === "string") return typeof b === "string" ? $scmp(a, b) : 1;
  if (t === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) || a instanceof $T) {
    const x = Array.isArray(a) ? a : a.a, y = Array.isArray(b) ? b : b.a;
    const n = Math.min(x.length, y.length);
    for (let i = 0; i < n; i++) {
      const c = $cmp(x[i], y[i]);
      if (c) return c;
    }
    return x.length - y.length;
  }
  if (a instanceof $V) {
    if (a.$n !== b.$n) return a.$n < b.$n ? -1 : 1;
    for (const k of a.$f) {
      const c = $cmp(a[k], b[k]);
      if (c) return c;
    }
    return 0;
  }
  return 0;
}

//@ $scmp
// Strings compare by code point (JavaScript's < compares UTF-16 units).
function $scmp(a, b) {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x !== y) {
      if ((x >= 0xd800 && x < 0xe000) || (y >= 0xd800 && y < 0xe000)) {
        const p = a.codePointAt(i), q = b.codePointAt(i);
        return p < q ? -1 : 1;
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

//@ $bits $big
// Int results are bounded by max_integer_bits (E504, like the VM).
// Both bounds are constants: negating the huge limit inside $bits made a
// new BigInt of max_integer_bits bits on every Int operation. A result
// that fits 64 bits (when the limit is at least 64) is let through by
// BigInt.asIntN, which V8 compiles to a machine-word test.
const $BITLIM = 1n << BigInt($CFG.bits), $NBITLIM = -$BITLIM, $B64 = $CFG.bits >= 64;
function $big(v) {
  if (v >= $BITLIM || v <= $NBITLIM) $fatal("E504", "Integer exceeds maximum size (" + v.toString(2).replace("-", "").length + " bits)");
  return v;
}
function $bits(v) { return $B64 && BigInt.asIntN(64, v) === v ? v : $big(v); }

//@ $add
// Int + Int, - and *: exact and bounded by max_integer_bits. An Int-typed
// value can be a Float at run time (Int ** negative Int is one), so other
// operands get the VM's Float arithmetic.
function $add(a, b) {
  if (typeof a === "bigint" && typeof b === "bigint") { const r = a + b; return $B64 && BigInt.asIntN(64, r) === r ? r : $big(r); }
  return $fadd(a, b);
}
//@ $sub
function $sub(a, b) {
  if (typeof a === "bigint" && typeof b === "bigint") { const r = a - b; return $B64 && BigInt.asIntN(64, r) === r ? r : $big(r); }
  return $fsub(a, b);
}
//@ $mul
function $mul(a, b) {
  if (typeof a === "bigint" && typeof b === "bigint") return $bits(a * b);
  return $fmul(a, b);
}
//@ $band $bxor $bnot $pyty $badop
// Int & Int and Int ^ Int; a Float operand (Int ** negative Int) is the
// VM's type error.
function $pyty(v) {
  const t = typeof v;
  return t === "bigint" ? "int" : t === "number" ? "float" : t === "string" ? "str" : t === "boolean" ? "bool" :
    v === undefined || v.$u === true ? "NoneType" : "object";
}
function $badop(op, a, b) { $fail("E410", "unsupported operand type(s) for " + op + ": '" + $pyty(a) + "' and '" + $pyty(b) + "'"); }
function $band(a, b) { if (typeof a !== "bigint" || typeof b !== "bigint") $badop("&", a, b); return a & b; }
function $bxor(a, b) { if (typeof a !== "bigint" || typeof b !== "bigint") $badop("^", a, b); return a ^ b; }
function $bnot(a) {
  if (typeof a !== "bigint") $fail("E410", "bad operand type for unary ~: '" + $pyty(a) + "'");
  return $bits(~a);
}

//@ $div
function $div(a, b) {
  if (typeof a !== "bigint" || typeof b !== "bigint") return $fdiv(a, b);
  if (b === 0n) $fail("E400", "Division by zero: cannot compute " + a + " / 0");
  return a / b;
}
//@ $mod
function $mod(a, b) {
  if (typeof a !== "bigint" || typeof b !== "bigint") return $fmod(a, b);
  if (b === 0n) $fail("E400", "Division by zero: cannot compute " + a + " % 0");
  return a % b;
}
//@ $nf
// An Int operand of Float arithmetic: too large for a double is an error
// (Python's OverflowError), not infinity.
function $nf(x) {
  if (typeof x !== "bigint") return x;
  const d = Number(x);
  if (d === Infinity || d === -Infinity) $fail("E499", "int too large to convert to float");
  return d;
}
//@ $fadd
// Arithmetic where a static type is Float: the values decide (a Float
// parameter may hold an Int), Int op Int stays an exact Int.
function $fadd(a, b) { return typeof a === "bigint" && typeof b === "bigint" ? $bits(a + b) : $nf(a) + $nf(b); }
//@ $fsub
function $fsub(a, b) { return typeof a === "bigint" && typeof b === "bigint" ? $bits(a - b) : $nf(a) - $nf(b); }
//@ $fmul
function $fmul(a, b) { return typeof a === "bigint" && typeof b === "bigint" ? $bits(a * b) : $nf(a) * $nf(b); }
//@ $fdiv
function $fdiv(a, b) {
  if (typeof a === "bigint" && typeof b === "bigint") return $div(a, b);
  if (b == 0) $fail("E400", "Division by zero: cannot compute " + $render(a) + " / " + $render(b));
  return $nf(a) / $nf(b);
}
//@ $fmod
// Float % truncates (C's fmod), as the VM's does.
function $fmod(a, b) {
  if (typeof a === "bigint" && typeof b === "bigint") return $mod(a, b);
  if (b == 0) $fail("E400", "Division by zero: cannot compute " + $render(a) + " % " + $render(b));
  return $nf(a) % $nf(b);
}
//@ $pow
// Int ** Int: exact when the exponent is >= 0, else a Float.
function $pow(a, b) {
  if (typeof a !== "bigint" || typeof b !== "bigint") return $fpow(a, b);
  if (b < 0n) {
    if (a === 0n) $fail("E400", "Division by zero: cannot compute 0 ** " + b);
    const x = Number(a), y = Number(b);
    if (!isFinite(x) || !isFinite(y)) $fail("E499", "Exponentiation result too large");
    return $fpow(x, y);
  }
  // 0, 1 and -1 to any power are one bit; other bases are refused before
  // computing when bits(base) * exponent exceeds the limit.
  if (a === 0n || a === 1n) return b === 0n ? 1n : a;
  if (a === -1n) return b & 1n ? -1n : 1n;
  const est = BigInt((a < 0n ? -a : a).toString(2).length) * b;
  if (b >= 1n << 63n || est >= 1n << 64n) $fatal("E504", "Exponentiation result too large (estimated more than " + $CFG.bits + " bits)");
  if (est > BigInt($CFG.bits)) $fatal("E504", "Exponentiation result too large (estimated " + est + " bits)");
  return $bits(a ** b);
}
//@ $fpow
// Float ** with the VM's rules (C's pow, Python's errors): an overflowing
// finite power and a negative base with a fractional exponent are errors,
// 0.0 ** negative divides by zero; inf and NaN operands propagate.
function $fpow(a, b) {
  if (typeof a === "bigint" && typeof b === "bigint") return $pow(a, b);
  let x, y;
  try { x = $nf(a); y = $nf(b); } catch (e) { $fail("E499", "Exponentiation result too large"); }
  if (y === 0 || x === 1) return 1.0;
  if (x === 0 && y < 0) $fail("E400", "Division by zero: cannot compute " + $render(a, false) + " ** " + $render(b, false));
  if (x < 0 && isFinite(x) && isFinite(y) && y !== Math.floor(y)) {
    if (!isFinite(Math.pow(-x, y))) $fail("E499", "Exponentiation result too large");
    $fail("E499", "Exponentiation result is not a real number");
  }
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1.0;
  const r = Math.pow(x, y);
  if ((r === Infinity || r === -Infinity) && isFinite(x) && isFinite(y)) $fail("E499", "Exponentiation result too large");
  return r;
}
//@ $shl $shr
// The count is checked first, then the shifted value, as in the VM.
function $shcount(op, a, b) {
  if (typeof b !== "bigint") $badop(op, a, b);
  if (b < 0n) $fail("E499", "Negative shift count");
  if (b > BigInt($CFG.bits)) $fatal("E504", (op === "<<" ? "Left" : "Right") + " shift amount too large (" + b + " bits)");
  if (typeof a !== "bigint") $badop(op, a, b);
}
function $shl(a, b) {
  $shcount("<<", a, b);
  return $bits(a << b);
}
function $shr(a, b) {
  $shcount(">>", a, b);
  return a >> b;
}

//@ $num
// Operators on values whose static type is not known to be Int or Float
// (generic code): Int stays exact, any Float makes the result a Float.
function $num(op, a, b) {
  if (typeof a === "bigint" && typeof b === "bigint") {
    switch (op) {
      case "+": return $bits(a + b);
      case "-": return $bits(a - b);
      case "*": return $bits(a * b);
      case "/": return $div(a, b);
      case "%": return $mod(a, b);
      case "<<": return $shl(a, b);
      case ">>": return $shr(a, b);
      case "&": return a & b;
      case "^": return a ^ b;
      case "**": return $pow(a, b);
    }
  }
  if (typeof a === "string") return $sc(a + b);
  const x = $nf(a), y = $nf(b);
  switch (op) {
    case "+": return x + y;
    case "-": return x - y;
    case "*": return x * y;
    case "/": return $fdiv(x, y);
    case "%": return $fmod(x, y);
    case "**": return $fpow(x, y);
  }
  $fail("E410", "unsupported operand type(s) for " + op);
}

//@ $sc
// A string result, bounded by max_collection_size code points.
function $sc(s) {
  if (s.length > $CFG.coll && $slen(s) > $CFG.coll) $fatal("E504", "String size exceeds limit (" + $slen(s) + " > " + $CFG.coll + ")");
  return s;
}
//@ $lc
// A list result, bounded by max_collection_size elements.
function $lc(a) {
  if (a.length > $CFG.coll) $fatal("E504", "List size exceeds limit (" + a.length + " > " + $CFG.coll + ")");
  return a;
}

//@ $slen
// Code-point length of a string.
function $slen(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) { n--; i++; }
    }
  }
  return n;
}
//@ $cps
// The code points of s (s itself when it has no surrogates); the last
// string split is remembered, so indexing a loop over one string is linear.
let $cpsOf = "", $cpsArr = "";
function $cps(s) {
  if (s === $cpsOf) return $cpsArr;
  $cpsOf = s;
  $cpsArr = $astral(s) ? Array.from(s) : s;
  return $cpsArr;
}
//@ $astral
function $astral(s) { return /[\ud800-\udfff]/.test(s); }

//@ $len
function $len(v) {
  if (typeof v === "string") return BigInt($slen(v));
  if (Array.isArray(v)) return BigInt(v.length);
  if (v instanceof $GMap || v instanceof $MMap || v instanceof $GSet) return BigInt(v.m.size);
  return BigInt(v.a.length);
}

//@ $idx
// xs[i] for a List, String, Array, Vec (negative i counts from the end), Map.
function $idx(t, i) {
  // an Int-typed index can be a Float at run time (Int ** negative Int)
  if (typeof i !== "bigint" && !(t instanceof $GMap || t instanceof $MMap || t instanceof $T))
    $fail("E410", (Array.isArray(t) ? "List" : typeof t === "string" ? "String" : t instanceof $Arr ? "Array" : "Vec") + " index must be integer");
  if (Array.isArray(t)) {
    let k = Number(i);
    if (k < 0) k += t.length;
    if (k < 0 || k >= t.length) $fail("E401", "Index " + i + " out of bounds for list of length " + t.length);
    return t[k];
  }
  if (typeof t === "string") {
    const cps = $cps(t);
    let k = Number(i);
    if (k < 0) k += cps.length;
    if (k < 0 || k >= cps.length) $fail("E401", "Index " + i + " out of bounds for string of length " + cps.length);
    return cps[k];
  }
  if (t instanceof $GMap || t instanceof $MMap) {
    const e = t.m.get($hk(i));
    if (e === undefined) $fail("E402", "Key not found: " + $repr(i));
    return e[1];
  }
  if (t instanceof $T) return t.a[Number(i)];
  const a = t.a, what = t instanceof $Arr ? "array" : "vec";
  let k = Number(i);
  if (k < 0) k += a.length;
  if (k < 0 || k >= a.length) $fail("E401", "Index " + i + " out of bounds for " + what + " of length " + a.length);
  return a[k];
}

//@ $setIdx
// t[i] = v: Arrays, Vecs and MutableMaps change in place; a List or Map
// gives an updated copy (returned).
function $setIdx(t, i, v) {
  if (t instanceof $MMap) { t.m.set($hk(i), [i, v]); return t; }
  if (t instanceof $GMap) { const m = new Map(t.m); m.set($hk(i), [i, v]); return new $GMap(m); }
  const a = Array.isArray(t) ? t : t.a;
  let k = Number(i);
  if (k < 0 && Array.isArray(t)) k += a.length; // an Array or Vec takes no negative index
  if (k < 0 || k >= a.length)
    $fail("E401", "Index " + i + " out of bounds for " + (Array.isArray(t) ? "list" : t instanceof $Arr ? "array" : "vec") + " of length " + a.length);
  if (Array.isArray(t)) { const c = t.slice(); c[k] = v; return c; }
  a[k] = v;
  return t;
}

//@ $with
// `v with (f: x)` and field assignment: a copy with fields replaced.
function $with(v, fields) {
  const c = Object.create(Object.getPrototypeOf(v));
  for (const k of v.$f) c[k] = v[k];
  for (const k in fields) c[k] = fields[k];
  return c;
}

//@ $iter
// The items a `for` loop visits (a snapshot for mutable containers).
function $iter(v) {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") return Array.from(v);
  if (v instanceof $Arr || v instanceof $Vec) return v.a.slice();
  if (v instanceof $GMap || v instanceof $MMap) return [...v.m.values()].map((e) => e[0]);
  if (v instanceof $GSet) return [...v.m.values()].map((e) => e[0]).sort($cmp);
  if (v instanceof $T) return v.a;
  $fail("E410", "Cannot iterate over " + typeof v);
}

//@ $q
// e? : unwrap Some/Ok, or end the enclosing function with None/Err.
function $q(v) {
  if (v instanceof $Some || v instanceof $Ok) return v.value;
  if (v === $None || v instanceof $Err) throw new $Prop(v);
  $fail("E410", "'?' requires Option or Result value");
}

//@ $nomatch
function $nomatch(kind, v) { $fail("E406", "No matching pattern in match " + kind + " for value " + $render(v, false)); }

//@ $Thrown
// A thrown value on its way to a handler (or to the end of the run).
class $Thrown { constructor(v) { this.v = v; } }
$Thrown.prototype.$uncaught = function () { return "error[E499]: Uncaught throw: " + $repr(this.v); };

//@ $Prop
// `e?` on None/Err: the value the enclosing function returns.
class $Prop { constructor(v) { this.v = v; } }

//@ $throw
// Throwing a String raises a runtime error with that message (its code
// recovered from the message, as the VM does); other values are carried.
function $throw(v) {
  if (typeof v === "string") {
    const code = v.startsWith("Division by zero") ? "E400" : /^Index .* out of bounds /.test(v) ? "E401" : v.startsWith("Key not found:") ? "E402" : "E499";
    throw new $GErr(code, v, false);
  }
  throw new $Thrown(v);
}

//@ $Async $aw
// A call of an async function, made when awaited (each await makes it).
class $Async { constructor(f, a, n) { this.f = f; this.a = a; this.n = n; } }
$Async.prototype.$show = function () { return "<async " + this.n + ">"; };
$Async.prototype.$run = function () { return this.f(...this.a); };
function $aw(v) { return v instanceof $Async ? v.f(...v.a) : v; }

//@ $bv
function $bv(f, name) { f.$builtin = name; return f; }

//@ $caught
// What `catch e: T` binds, or undefined when the handler does not apply.
// String catches runtime errors (their message) and thrown values (their
// repr); an ADT type catches thrown values of that type. Limits, contract
// failures and internal signals are never caught.
function $caught(e, cls) {
  if (e && e.$uncaught) {
    if (cls === null) return $repr(e.v);
    return e.v instanceof cls ? e.v : undefined;
  }
  if (e instanceof $GErr) return e.fatal || cls !== null ? undefined : e.message;
  if (e instanceof RangeError) return undefined;
  if (cls === null && e instanceof Error) return e.message;
  return undefined;
}

//@ $out $outN $print $flush
// Output: buffered, bounded by max_output_length (characters).
let $out = [], $outN = 0, $outB = 0, $quiet = false;
function $print(s) {
  if ($quiet) return;
  $outN += $slen(s) + 1;
  if ($outN > $CFG.output) $fatal("E505", "Output limit exceeded (" + $CFG.output + " characters)");
  $out.push(s + "\n");
  $outB += s.length;
  if ($outB > 65536) $flush();
}
function $flush() {
  if ($out.length === 0) return;
  const text = $out.join("");
  $out = []; $outB = 0;
  if (typeof process !== "undefined" && process.stdout && typeof require === "function") require("fs").writeSync(1, text);
  else console.log(text.endsWith("\n") ? text.slice(0, -1) : text);
}

//@ $report
// How a run that failed ends: the error on stderr, exit status 1.
function $report(e) {
  $flush();
  let msg;
  if (e instanceof $GErr) msg = "error[" + e.code + "]: " + e.message;
  else if (e && e.$uncaught) msg = e.$uncaught();
  else if (e instanceof RangeError && /call stack/.test(e.message)) msg = "error[E502]: Maximum recursion depth exceeded";
  else if (e instanceof RangeError && /BigInt|Invalid string length|Invalid array length/.test(e.message)) msg = "error[E504]: Memory limit exceeded (" + e.message + ")";
  else msg = "error[E499]: " + (e && e.message ? e.message : String(e));
  if (typeof process !== "undefined" && process.stderr) {
    process.stderr.write(msg + "\n");
    process.exitCode = 1;
  } else {
    console.error(msg);
  }
}

//@ $restack
// Node's default stack (984 KB) holds some thousands of Geno calls. When
// the program was compiled for a deeper max_recursion_depth, the script
// started as node's entry runs itself again in a child node whose
// --stack-size fits that depth (bounded by the stack rlimit, less 1 MB),
// and ends with the child's status. A node started with its own
// --stack-size (the child, or a user's choice) runs the program itself.
// The emitter calls it only for a depth above 2000.
function $restack() {
  if ( typeof process === "undefined" || !Array.isArray(process.execArgv) || !process.argv[1] ||
      typeof require !== "function" || process.execArgv.some((a) => a.startsWith("--stack-size"))) return false;
  try {
    const fs = require("fs");
    // a CommonJS script loaded by another (require) is not the entry
    if (typeof __filename === "string" && fs.realpathSync(process.argv[1]) !== fs.realpathSync(__filename)) return false;
    let lim = 8192;
    const m = /^Max stack size\s+(\d+|unlimited)/m.exec(fs.readFileSync("/proc/self/limits", "utf8"));
    if (m) lim = m[1] === "unlimited" ? 1 << 20 : Math.floor(Number(m[1]) / 1024);
    const kb = Math.min(1024 + Math.ceil($MD * 0.6), lim - 1024, 1 << 20);
    if (kb <= 984) return false;
    const r = require("child_process").spawnSync(process.execPath,
      [...process.execArgv, "--stack-size=" + kb, ...process.argv.slice(1)], { stdio: "inherit" });
    if (r.error) return false;
    if (r.signal) process.kill(process.pid, r.signal);
    process.exitCode = r.status === null ? 1 : r.status;
    return true;
  } catch (e) {
    return false;
  }
}
//@ $main
// Runs main (sync or async), then shows its value as `=> value`.
function $main(f, show) {
  const done = (r) => {
    try { if (show && r !== undefined && r.$u !== true) $print("=> " + $render(r, false)); } catch (e) { $report(e); return; }
    $flush();
  };
  try {
    let r = f();
    if (r && r.$run) r = r.$run();
    if (r instanceof Promise) r.then(done, $report);
    else done(r);
  } catch (e) {
    $report(e);
  }
}

//@ $await
function $await(v) { return v; }

//@ $MISS
// An argument left out (the callee evaluates the parameter's default).
const $MISS = Symbol("missing");

//@ $example
// `example` clauses are checked before main, with output discarded, as
// `geno run` does: the first failure ends the run (E409).
function $example(fname, call, want) {
  const saved = $out.length, savedN = $outN;
  const restore = () => { $quiet = false; $out.length = saved; $outN = savedN; };
  const check = (got) => {
    const w = want();
    if (!$eqa(got, w))
      $fatal("E409", "Example verification failed for " + fname + ": expected " + $render(w, false) + ", got " + $render(got, false));
  };
  $quiet = true;
  let got;
  try { got = call(); } catch (e) { restore(); throw e; }
  // an async function's example compares the awaited value
  if (got && got.$run) return got.$run().then((v) => { restore(); check(v); }, (e) => { restore(); throw e; });
  restore();
  check(got);
}
