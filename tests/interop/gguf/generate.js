// Greedy generation in real llama.cpp (node-llama-cpp's prebuilt CPU build), for the GGUF
// interop test:
//   node generate.js MODULES_DIR FILE.gguf PROMPT MAX_TOKENS
// prints {"prompt_tokens":[…],"tokens":[…],"stopped":bool}: the prompt as llama.cpp tokenizes it
// (with the BOS it adds when the file says so) and up to MAX_TOKENS argmax tokens; stopped: the
// generation ended at an end-of-generation token, which llama.cpp does not yield (Headroom's
// generate includes it).
const path = require("path");
const [modules, file, prompt, maxTokens] = process.argv.slice(2);

async function main() {
  const { getLlama, LlamaLogLevel } = await import(
    path.join(modules, "node-llama-cpp", "dist", "index.js"));
  const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.warn });
  const model = await llama.loadModel({ modelPath: file });
  const ids = Array.from(model.tokenize(prompt, false));
  if (model.tokens.shouldPrependBosToken && model.tokens.bos != null) {
    ids.unshift(model.tokens.bos);
  }
  const context = await model.createContext({ contextSize: Math.min(128, model.trainContextSize), batchSize: 64, threads: 1 });
  const sequence = context.getSequence();
  const tokens = [];
  for await (const token of sequence.evaluate(ids, { temperature: 0 })) {
    tokens.push(token);
    if (tokens.length >= Number(maxTokens)) {
      break;
    }
  }
  const stopped = tokens.length < Number(maxTokens);
  process.stdout.write(JSON.stringify({ prompt_tokens: ids, tokens, stopped }) + "\n");
  await context.dispose();
  await model.dispose();
  await llama.dispose();
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
