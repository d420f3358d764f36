// Tokenization in real llama.cpp (node-llama-cpp's prebuilt CPU build), for the GGUF interop
// test:
//   node tokenize.js MODULES_DIR FILE.gguf SPECIALS_JSON [nfc]
// prints {"texts":[…],"ids":[[…],…]}: two texts from the tokenizer interop test's
// (tests/interop/tokenizers/texts.js: all its fragments, then 5 random mixes with the special
// tokens SPECIALS_JSON names inside), each tokenized with special tokens parsed, as Hugging Face does,
// and the BOS the file asks for in front. nfc: the texts NFC-normalized first (llama.cpp has no
// normalizer; a tokenizer that NFC-normalizes matches it on composed text only).
const path = require("path");
const { makeTexts, fragments } = require(path.join(__dirname, "..", "tokenizers", "texts.js"));
const [modules, file, specialsJson, nfc] = process.argv.slice(2);

async function main() {
  const specials = JSON.parse(specialsJson);
  const mixes = makeTexts(fragments.length + 8 * Math.min(specials.length, 8) + 5, specials, 29);
  // (no NUL: the texts travel as command-line arguments)
  const texts = [fragments.join("\n"), mixes.slice(-5).join("\n\n")]
    .map((t) => t.replace(/\u0000/g, ""))
    .map((t) => (nfc === "nfc" ? t.normalize("NFC") : t));
  const { getLlama, LlamaLogLevel } = await import(
    path.join(modules, "node-llama-cpp", "dist", "index.js"));
  const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.warn });
  const model = await llama.loadModel({ modelPath: file, vocabOnly: true });
  const ids = texts.map((text) => {
    const tokens = Array.from(model.tokenize(text, true));
    if (model.tokens.shouldPrependBosToken && model.tokens.bos != null) {
      tokens.unshift(model.tokens.bos);
    }
    return tokens;
  });
  process.stdout.write(JSON.stringify({ texts, ids }) + "\n");
  await model.dispose();
  await llama.dispose();
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
