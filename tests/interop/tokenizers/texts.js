// Deterministic test texts for the tokenizer interop test: multilingual prose, emoji, CJK,
// code, whitespace runs, digits, contractions, and the tokenizer's own special tokens inside
// the text. Shared by generate.js (reference ids) and benchmark.js (throughput).
'use strict';

const fragments = [
  'Hello world', 'The quick brown fox jumps over the lazy dog.', "I'm sure you're right, they've said it's fine; we'll see.",
  "DON'T SHOUT! It'S OK, I'LL try.", 'Café crème brûlée à la française — naïve coöperation.', 'Straße, Größe, Fuß.',
  'Привет, как дела? Всё хорошо.', 'Γειά σου Κόσμε! ΣΊΣΥΦΟΣ ς σ', 'مرحبا بالعالم', 'שלום עולם', 'नमस्ते दुनिया, क्या हाल है?',
  'こんにちは世界、今日はいい天気ですね。', '你好，世界！我们今天学习分词器。', '안녕하세요 세계', 'สวัสดีชาวโลก', 'Xin chào thế giới',
  '😀😃😄 👍🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ ✨', '🤖 tokens: 🧪🧬', 'İstanbul ıı İİ', 'ﬁnancial ﬀ ①②③ ½ ² ㎏ Ⅻ', 'ＦＵＬＬＷＩＤＴＨ　ｔｅｘｔ',
  'def f(x):\n    return x ** 2  # square\n', 'for (int i = 0; i < 10; ++i) {\n\tsum += a[i];\n}\n', '<div class="x">&nbsp;</div>',
  '{"key": [1, 2, 3], "nested": {"a": null}}', 'SELECT * FROM users WHERE id = 42;', 'https://example.com/path?q=1&r=two#frag',
  'user@example.org', '$ git commit -m "fix: tokens"', '1234567890', '3.14159265358979', '-42 +17 1e10 0x1F 1,000,000.00',
  '2024-05-17T12:34:56Z', 'Version 1.2.3-rc.4', 'a1b2c3 123abc abc123', '   leading spaces', 'trailing spaces   ',
  'multiple     spaces     inside', 'tabs\t\tand\ttabs', 'new\nlines\n\n\nmany', '\r\nwindows\r\nline ends', ' \n \n ',
  '  \t \u00a0 \u3000 mixed\u2003spaces', 'zero\u200bwidth\u200djoiner', 'combining e\u0301 a\u0308 n\u0303', 'Ǆ ǅ ǆ ẞ ß',
  '...!!!???', '--- *** ___ ===', '«quotes» „Anführungszeichen" “curly” ‘single’', '(parentheses) [brackets] {braces}',
  "it's rock'n'roll ma'am", "'s 't 're 've 'm 'll 'd", 'ALL CAPS SENTENCE HERE', 'MiXeD CaSe WoRdS', 'x', ' ', '',
  'supercalifragilisticexpialidocious', 'pneumonoultramicroscopicsilicovolcanoconiosis', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  '\u2581already\u2581has\u2581metaspace', 'Ġalready Ġbyte Ċlevel', '<0x41> <unk> [UNK] ##ing', '\u0000nul\u0001ctl\u007f',
  '\ufffd replacement \ufeff bom', 'math: ∑ ∫ √ ∞ ≤ ≥ ≠ ± × ÷', 'arrows → ← ↑ ↓ ⇒', 'currency € £ ¥ ₹ ₿',
];

// xorshift32, seeded: the same texts on every machine.
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

// Blocks for random strings: letters, marks, symbols, CJK, emoji, math, tags, specials. Only
// characters assigned by Unicode 15.0 (ICU's tables here; Unicode 16 characters such as
// U+1FA89 are a known difference of Debian 12's PCRE2/ICU against the reference).
const blocks = [
  [0x20, 0x7e], [0x09, 0x0d], [0x80, 0x2ff], [0x300, 0x36f], [0x370, 0x3ff], [0x400, 0x4ff],
  [0x590, 0x6ff], [0x900, 0x97f], [0xe00, 0xe7f], [0x1100, 0x11ff], [0x1e00, 0x1fff],
  [0x2000, 0x206f], [0x2070, 0x218f], [0x2190, 0x2426], [0x242a, 0x2bff], // 2427-9: 16.0 [0x3000, 0x30ff], [0x3400, 0x4dbf],
  [0x4e00, 0x9fff], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfb00, 0xfb4f], [0xfe00, 0xfe6f],
  [0xff00, 0xffef], [0x1f300, 0x1f64f], [0x20000, 0x2a6df], [0x1d400, 0x1d7ff],
  [0xe0000, 0xe007f], [0xfff0, 0xfffd], [0x10000, 0x1007f],
];

function randomText(random) {
  let text = '';
  const n = 1 + Math.floor(random() * 30);
  for (let i = 0; i < n; ++i) {
    const block = random() < 0.4 ? blocks[Math.floor(random() * 2)] : blocks[Math.floor(random() * blocks.length)];
    text += String.fromCodePoint(block[0] + Math.floor(random() * (block[1] - block[0] + 1)));
    if (random() < 0.1) text += ' ';
  }
  return text;
}

const joiners = [' ', '', '  ', '\n', '\n\n', '\t', ' \n', '. ', ', ', '   '];

// `count` texts; `specials` are the tokenizer's added tokens, put inside some texts.
function makeTexts(count, specials, seed = 17) {
  const random = rng(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const texts = fragments.slice();
  for (const s of specials.slice(0, 8)) {
    texts.push(s, `${s}Hello`, `${s} Hello`, `Hello${s}`, `Hello ${s} world`, `${s}\nHello`, `a${s}${s}b`, ` ${s}  x`);
  }
  while (texts.length < count) {
    if (random() < 0.25) {
      texts.push(randomText(random)); // a quarter: random code points
      continue;
    }
    const parts = [];
    const n = 1 + Math.floor(random() * 5);
    for (let i = 0; i < n; ++i) {
      if (specials.length > 0 && random() < 0.12) {
        parts.push(pick(specials));
      } else {
        let f = pick(fragments);
        if (random() < 0.3) {
          const chars = Array.from(f); // whole code points: no lone surrogates
          const a = Math.floor(random() * chars.length);
          f = chars.slice(a, a + 1 + Math.floor(random() * 20)).join('');
        }
        parts.push(f);
      }
      parts.push(pick(joiners));
    }
    let text = parts.join('');
    if (random() < 0.1) text = ' ' + text;
    if (random() < 0.05) text = text.toUpperCase();
    texts.push(text);
  }
  return texts.slice(0, count);
}

module.exports = { makeTexts, fragments };
