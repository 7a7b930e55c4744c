// Export a tiktoken vocabulary (token id -> bytes) and, optionally, the
// token ids of files, for the constrained-decoding tests and bench.
//
// usage: node export.js ENCODING OUT_DIR [FILE...]
//   ENCODING: cl100k_base or o200k_base (shipped by js-tiktoken)
// writes OUT_DIR/ENCODING.vocab: one line per token id, its bytes in hex
// (ids without bytes, none in these encodings, would be empty lines), and
// OUT_DIR/ENCODING.tokens: per FILE one line "PATH<TAB>id id id ...".
"use strict";
const fs = require("fs");
const path = require("path");
const { Tiktoken } = require("js-tiktoken/lite");

const [encoding, outDir, ...files] = process.argv.slice(2);
if (!encoding || !outDir) {
  console.error("usage: node export.js ENCODING OUT_DIR [FILE...]");
  process.exit(2);
}
const ranks = require(`js-tiktoken/ranks/${encoding}`);
const data = ranks.default || ranks;
// bpe_ranks: lines "<marker> <first rank> <base64 token> <base64 token> ..."
const vocab = [];
for (const line of data.bpe_ranks.split("\n")) {
  const parts = line.split(" ");
  if (parts.length < 2) continue;
  let rank = Number.parseInt(parts[1], 10);
  for (const b64 of parts.slice(2)) vocab[rank++] = Buffer.from(b64, "base64");
}
fs.mkdirSync(outDir, { recursive: true });
const lines = [];
for (let i = 0; i < vocab.length; i++) lines.push(vocab[i] ? vocab[i].toString("hex") : "");
fs.writeFileSync(path.join(outDir, `${encoding}.vocab`), lines.join("\n") + "\n");
const enc = new Tiktoken(data);
const out = [];
for (const f of files) {
  const text = fs.readFileSync(f);
  // tiktoken encodes text; the corpus is UTF-8, and a file that is not
  // round-trips through U+FFFD, so only files whose tokens give back
  // their exact bytes are kept.
  const ids = enc.encode(text.toString("utf8"), "all");
  const back = Buffer.concat(ids.map((i) => vocab[i]));
  if (Buffer.compare(back, text) === 0) out.push(`${f}\t${ids.join(" ")}`);
}
fs.writeFileSync(path.join(outDir, `${encoding}.tokens`), out.join("\n") + (out.length ? "\n" : ""));
console.log(`${encoding}: ${vocab.length} tokens, ${out.length} of ${files.length} files tokenized`);
