// Regenerates the small tokenizer fixtures of tests/engine/test_hf_tokenizer.cpp with the real
// Hugging Face `tokenizers` (its Rust core through the Node binding): every tokenizer.json here
// is trained or built and saved by the reference, and every expected id, token and decode in
// cases.json comes from it. Run by hand when the cases change:
//   d=$(mktemp -d) && (cd $d && npm install @anush008/tokenizers@0.6.0) &&
//   (cd $d && node /path/to/tests/data/tokenizers/make_fixtures.js /path/to/tests/data/tokenizers [NAME...])
// (Training may break ties differently from run to run; the cases always match their file.)
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const tk = require('module').createRequire(path.join(process.cwd(), 'x.js'))('@anush008/tokenizers');

const out = path.resolve(process.argv[2] || '.');
const corpus = [
  "The quick brown fox jumps over the lazy dog. I'm sure you're right; they've said it's fine.",
  'Hello world! Hello tokenizers, hello 2024 and 1234567 numbers: 3.14, 42, 1e10.',
  'Café crème brûlée, naïve façade. Straße und Größe. Привет мир. こんにちは世界。你好世界。',
  'def tokenize(text):\n    return [t for t in text.split()]  # comment\n',
  'Emoji 😀 👍🏽 and spaces   between    words\tand\ttabs\nnew lines\n\n',
  'New York is a city; new york is lowercase. HELLO WORLD in caps. hello-world hello_world',
].join('\n');
const texts = [
  'Hello world', 'hello world', ' Hello world', 'Hello  world', 'HELLO WORLD', "I'm sure you're right",
  'The quick brown fox', 'unseen wörds ünd zebras', 'Café crème', 'Привет мир', '你好世界', '😀 👍🏽',
  'numbers 1234567 and 3.14', 'tabs\tand\nnew lines\n\n', '   leading and trailing   ', 'a', '', ' ',
  'def f(x):\n    return x', 'hello-world hello_world', 'New York new york NEW YORK',
  '<sep>Hello', 'Hello<sep>world', 'Hello <sep> world', '<sep> Hello', 'x<sep><sep>y',
  '[MASK]hello', 'hello [MASK] world', 'say hello world now', 'sayhello worldnow', 'HELLO WORLD again',
  'Hello  <sep>  world', 'hello\u2581world \u2581x', '<0x41> <unk> [UNK]', 'ﬁne ① Ⅻ ＡＢＣ',
  'Hello世界 abc123def', 'カタカナとひらがなと漢字ーです', 'Привет,мир! and ascii', 'x  \u0301é 😀a',
];

// Texts of the Precompiled fixtures: compatibility forms, graphemes of a few characters (the
// reference replaces a short grapheme by its shortest matching prefix), whitespace and controls.
const precompiledFragments = [
  'ＡＢＣ ａｂｃ １２３', 'Ｈｅｌｌｏ　Ｗｏｒｌｄ', 'ﬁne ﬂow ﬀ ﬃ ﬄ', '① ② ⑩ Ⅻ ㎏ ℃ ™ ½ ¼ ²',
  'Cafe\u0301 A\u0301 Ａ\u0301 e\u0301\u0301 e\u0301\u0301\u0301 n\u0303', 'Å vs A\u030A and Ω vs Ω',
  '👩‍💻 👨‍👩‍👧 🏳️‍🌈 👍🏽 👍 😀', 'a\u200Db \u200D x\u200By', '日本語のテキスト 中文 한국어', 'ｶﾀｶﾅ ﾊﾟﾋﾟ ｶﾞ',
  '\u1100\u1161 \u1100\u1161\u11A8 가', 'a  b   c\t\td', 'line1\r\nline2\rline3\nline4', '\r\n', '\r\r\n\n',
  'ctrl\u0001\u0007\u007F\u0080\u009F end', 'nbsp\u00A0here\u2003em\u3000ideo', '\u2581 meta \u2581\u2581',
  '123 1234 12 3123', 'x\u0000y', 'नमस्ते क्षत्रिय', 'สวัสดีครับ', 'مرحبا بالعالم', 'Привет мир',
  '   leading', 'trailing   ', ' ', '', 'Hello world', 'The quick brown fox', 'ＡＢＣ１２３ﬁ',
  '\uFEFFbom', 'soft\u00ADhyphen', 'Ǆ ǅ ǆ ĳ Ŀ ŉ ſ', '＂quotes＂ ＜tag＞ （paren） ［x］', '…‥ ゛゜',
  '\u0301 lone mark', 'A\u0301\u0301', 'Ａ\u0301\u0301', 'e\u0308\u0301', 'i\u0307', '\uD55C\u11A8',
  '🇯🇵🇺🇸 flags', '#️⃣ 1️⃣ keycaps', 'ℌ𝔢𝔩𝔩𝔬 𝐁𝐨𝐥𝐝', '㍻ ㋿ ㈱ ㊤', '</s> in text <pad> <unk>',
];
const precompiledTexts = (() => {
  const f = precompiledFragments;
  const all = [...f];
  for (let i = 0; i < f.length; ++i) {
    all.push(f[i] + ' ' + f[(i * 7 + 3) % f.length]);
    all.push(f[i] + f[(i * 11 + 5) % f.length]);
    all.push(f[(i * 13 + 1) % f.length] + '  ' + f[i] + '\n');
    all.push(f[i].toUpperCase() + '\t' + f[(i * 5 + 2) % f.length].toLowerCase());
    all.push(f[i] + f[i]);
  }
  return all;
})();
const textsOf = { unigram_precompiled: precompiledTexts, unigram_precompiled_nmt_nfkc: precompiledTexts };

function withJson(t, edit) {
  const file = path.join(os.tmpdir(), `headroom-fixture-${process.pid}.json`);
  t.save(file, false);
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.unlinkSync(file);
  if (edit) edit(json);
  return json;
}

function trained(model, setup) {
  const file = path.join(os.tmpdir(), `headroom-corpus-${process.pid}.txt`);
  fs.writeFileSync(file, corpus);
  const t = new tk.Tokenizer(model);
  setup(t);
  t.train([file]);
  fs.unlinkSync(file);
  return t;
}

function addTokens(json, tokens) {
  // Appends model tokens (ids after the trained vocabulary).
  const vocab = json.model.vocab;
  if (Array.isArray(vocab)) {
    for (const [t, s] of tokens) vocab.push([t, s]);
  } else {
    let next = Math.max(-1, ...Object.values(vocab)) + 1;
    for (const t of tokens) if (!(t in vocab)) vocab[t] = next++;
  }
}

function addedTokens(json, list) {
  const vocabSize = Array.isArray(json.model.vocab) ? json.model.vocab.length : Math.max(...Object.values(json.model.vocab)) + 1;
  json.added_tokens = list.map((a, i) => ({
    id: a.id !== undefined ? a.id : vocabSize + i, content: a.content, single_word: !!a.single_word,
    lstrip: !!a.lstrip, rstrip: !!a.rstrip, normalized: !!a.normalized, special: !!a.special,
  }));
}

const fixtures = {
  // BPE over bytes (GPT-2 style) with a prefix space, a lowercasing normalizer, and added
  // tokens normalized and not, special and not, single_word / lstrip / rstrip.
  bpe_byte_level: () => withJson(trained(tk.BPE.empty(), (t) => {
    t.setNormalizer(tk.sequenceNormalizer([tk.nfkcNormalizer(), tk.lowercase()]));
    t.setPreTokenizer(tk.byteLevelPreTokenizer(true, true));
  }), (json) => {
    json.decoder = { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true };
    json.post_processor = { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true };
    addedTokens(json, [
      { content: '<sep>', special: true, normalized: false },
      { content: 'HELLO WORLD', normalized: true }, // matched after lowercasing
      { content: 'New York', normalized: false }, // matched in the raw text only
      { content: '[MASK]', special: true, lstrip: true, rstrip: true },
      { content: 'now', single_word: true, normalized: false },
    ]);
  }),
  // The known trap: Punctuation -> ByteLevel -> Digits -> Split chain (with look-ahead).
  bpe_chain: () => withJson(trained(tk.BPE.empty(), (t) => {
    t.setPreTokenizer(tk.sequencePreTokenizer([
      tk.punctuationPreTokenizer('isolated'), tk.byteLevelPreTokenizer(false, false),
      tk.digitsPreTokenizer(true), tk.splitPreTokenizer('Ġ+(?!\\S)|Ġ', 'mergedWithNext', false)]));
  }), (json) => {
    json.decoder = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false };
    addedTokens(json, [{ content: '<sep>', special: true }]);
  }),
  // SentencePiece-style BPE with byte fallback: Metaspace with each prepend scheme.
  ...Object.fromEntries(['first', 'always', 'never'].map((scheme) => [`bpe_metaspace_${scheme}`, () => withJson(trained(tk.BPE.init({}, [], { byteFallback: true, unkToken: '<unk>', fuseUnk: true }), (t) => {
    t.setPreTokenizer(tk.metaspacePreTokenizer('\u2581', 'always'));
  }), (json) => {
    json.model.byte_fallback = true;
    json.model.fuse_unk = true;
    json.model.unk_token = '<unk>';
    addTokens(json, ['<unk>', '<s>', '</s>', ...Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`)]);
    json.pre_tokenizer = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: scheme, split: scheme !== 'first' };
    json.decoder = { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '\u2581' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] };
    if (scheme === 'always') json.decoder = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true };
    const ids = json.model.vocab;
    addedTokens(json, [{ content: '<unk>', id: ids['<unk>'], special: true }, { content: '<s>', id: ids['<s>'], special: true }, { content: '</s>', id: ids['</s>'], special: true }, { content: '<sep>', special: false, normalized: false }]);
    json.post_processor = { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }], pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }], special_tokens: { '<s>': { id: '<s>', ids: [ids['<s>']], tokens: ['<s>'] }, '</s>': { id: '</s>', ids: [ids['</s>']], tokens: ['</s>'] } } };
  })])),
  // Llama 2 style: normalizer Prepend + Replace, no pre-tokenizer.
  bpe_llama2_style: () => withJson(trained(tk.BPE.empty(), (t) => {
    t.setNormalizer(tk.sequenceNormalizer([tk.prependNormalizer('\u2581'), tk.replace(' ', '\u2581')]));
  }), (json) => {
    json.model.byte_fallback = true;
    addTokens(json, ['<unk>', '<s>', ...Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`)]);
    json.model.unk_token = '<unk>';
    const ids = json.model.vocab;
    addedTokens(json, [{ content: '<unk>', id: ids['<unk>'], special: true }, { content: '<s>', id: ids['<s>'], special: true }, { content: '<sep>', special: true }]);
    json.decoder = { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '\u2581' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] };
    json.post_processor = { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }], pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }], special_tokens: { '<s>': { id: '<s>', ids: [ids['<s>']], tokens: ['<s>'] } } };
  }),
  // BERT: WordPiece trained by the reference, BertNormalizer, BertPreTokenizer, [CLS] A [SEP].
  wordpiece_bert: () => withJson(trained(tk.WordPiece.empty(), (t) => {
    t.setNormalizer(tk.bertNormalizer({ lowercase: true }));
    t.setPreTokenizer(tk.bertPreTokenizer());
  }), (json) => {
    addTokens(json, ['[UNK]', '[CLS]', '[SEP]', '[MASK]']);
    json.model.unk_token = '[UNK]';
    json.model.max_input_chars_per_word = 12;
    const ids = json.model.vocab;
    addedTokens(json, ['[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((c) => ({ content: c, id: ids[c], special: true })));
    json.post_processor = { type: 'BertProcessing', sep: ['[SEP]', ids['[SEP]']], cls: ['[CLS]', ids['[CLS]']] };
    json.decoder = { type: 'WordPiece', prefix: '##', cleanup: true };
  }),
  // Unigram trained by the reference; NFKC, Strip, Replace; Metaspace.
  unigram: () => withJson(trained(tk.Unigram.empty(), (t) => {
    t.setNormalizer(tk.sequenceNormalizer([tk.nfkcNormalizer(), tk.stripNormalizer(true, true), tk.replace('  ', ' ')]));
    t.setPreTokenizer(tk.metaspacePreTokenizer('\u2581', 'always'));
  }), (json) => {
    json.model.vocab.push(['<unk>', 0]);
    json.model.unk_id = json.model.vocab.length - 1;
    json.decoder = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true };
    addedTokens(json, [{ content: '<sep>', special: true }]);
  }),
  // UnicodeScripts alone (a space joins either side, kana counts as Han) over a BPE trained on
  // Whitespace words, whose merges then meet the script cuts.
  bpe_unicode_scripts: () => withJson(trained(tk.BPE.empty(), (t) => {
    t.setPreTokenizer(tk.whitespacePreTokenizer());
  }), (json) => {
    json.pre_tokenizer = { type: 'UnicodeScripts' };
    addedTokens(json, [{ content: '<sep>', special: true }]);
  }),
  // FixedLength pieces of 4 characters over a BPE trained on whole lines.
  bpe_fixed_length: () => withJson(trained(tk.BPE.empty(), () => {}), (json) => {
    json.pre_tokenizer = { type: 'FixedLength', length: 4 };
    addedTokens(json, [{ content: '<sep>', special: true }]);
  }),
  // T5-style files drafted by make_precompiled.py from tiny SentencePiece models: a Precompiled
  // normalizer with custom rules (in a Sequence), and with the full nmt_nfkc map (alone).
  ...Object.fromEntries(['unigram_precompiled', 'unigram_precompiled_nmt_nfkc'].map((name) => [name,
    () => JSON.parse(fs.readFileSync(path.join(out, name, 'tokenizer.json'), 'utf8'))])),
  // Truncation (from the left, room kept for [CLS] [SEP]) and padding to a multiple.
  wordpiece_truncate_pad: () => {
    const json = JSON.parse(fs.readFileSync(path.join(out, 'wordpiece_bert', 'tokenizer.json'), 'utf8'));
    json.truncation = { direction: 'Left', max_length: 7, strategy: 'LongestFirst', stride: 0 };
    json.padding = { strategy: 'BatchLongest', direction: 'Right', pad_to_multiple_of: 4, pad_id: json.model.vocab['[UNK]'], pad_type_id: 0, pad_token: '[PAD]' };
    return json;
  },
  // BPE with continuing_subword_prefix and end_of_word_suffix (hand-made merges), Whitespace.
  bpe_suffix: () => withJson((() => {
    const vocab = {};
    const add = (t) => { if (!(t in vocab)) vocab[t] = Object.keys(vocab).length; };
    ['[UNK]', 'h', 'e', 'l', 'o', 'w', 'r', 'd', 't', 'n'].forEach(add);
    for (const c of 'helowrdtn') { add('##' + c); add('##' + c + '</w>'); add(c + '</w>'); }
    const merges = [['h', '##e'], ['##l', '##l'], ['he', '##ll'], ['##o</w>', '##r'], ['w', '##o'], ['##r', '##l'], ['##rl', '##d</w>'], ['hell', '##o</w>'], ['wo', '##rld</w>']];
    for (const [a, b] of merges) add(a + b.replace(/^##/, ''));
    const t = new tk.Tokenizer(tk.BPE.init(vocab, merges, { continuingSubwordPrefix: '##', endOfWordSuffix: '</w>', unkToken: '[UNK]' }));
    t.setPreTokenizer(tk.whitespacePreTokenizer());
    t.setDecoder(tk.bpeDecoder('</w>'));
    return t;
  })()),
};

(async () => {
  const only = process.argv.slice(3); // optional fixture names: regenerate just those
  for (const [name, make] of Object.entries(fixtures)) {
    if (only.length > 0 && !only.includes(name)) continue;
    const json = make();
    const t = tk.Tokenizer.fromString(JSON.stringify(json));
    const dir = path.join(out, name);
    fs.mkdirSync(dir, { recursive: true });
    t.save(path.join(dir, 'tokenizer.json'), true);
    const cases = [];
    for (const text of textsOf[name] || texts) {
      const a = await t.encode(text, null, { addSpecialTokens: true });
      const b = await t.encode(text, null, { addSpecialTokens: false });
      cases.push({ text, ids: a.getIds(), tokens: a.getTokens(), ids_nospecial: b.getIds(),
        decoded: await t.decode(a.getIds(), false), decoded_skip: await t.decode(a.getIds(), true) });
    }
    fs.writeFileSync(path.join(dir, 'cases.json'), JSON.stringify({ vocab_size: t.getVocabSize(true), cases }, null, 1) + '\n');
    console.log(`${name}: vocab ${t.getVocabSize(true)}, ${cases.length} cases`);
  }
})().catch((e) => { console.error(e); process.exit(1); });
