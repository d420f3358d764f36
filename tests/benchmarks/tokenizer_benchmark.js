// Node side of tokenizer_benchmark.sh: encodes the documents of a text file (one per line,
// "\n" escaped as \n) with the reference (Hugging Face tokenizers' Rust core through its Node
// binding), one at a time on one thread, and prints MB/s and the total token count.
//   node tokenizer_benchmark.js TOKENIZER_JSON DOCUMENTS_FILE [REPEATS=3]
'use strict';
const fs = require('fs');
const path = require('path');
const tk = require('module').createRequire(path.join(process.cwd(), 'x.js'))('@anush008/tokenizers');

(async () => {
  const [file, docsFile, repeats = '3'] = process.argv.slice(2);
  const t = tk.Tokenizer.fromFile(file);
  const docs = fs.readFileSync(docsFile, 'utf8').split('\n').filter((l) => l).map((l) => l.replace(/\\n/g, '\n'));
  const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d), 0);
  let best = Infinity;
  let tokens = 0;
  for (let r = 0; r < Number(repeats); ++r) {
    tokens = 0;
    const start = process.hrtime.bigint();
    for (const d of docs) {
      const e = await t.encode(d, null, { addSpecialTokens: false });
      tokens += e.getIds().length;
    }
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
  }
  console.log(JSON.stringify({ mb_per_s: bytes / 1e6 / best, tokens, bytes, seconds: best }));
})().catch((e) => { console.error(e); process.exit(1); });
