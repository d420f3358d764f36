"""Deterministic conversations for the chat-template reference (render_reference.py).

cases(name) gives the cases of one template: dicts with messages, tools (or None),
chat_template_kwargs and add_generation_prompt. Every choice comes from random.Random seeded
with "<template>:<case>" (string seeds are hashed with SHA-512, so the cases are the same on
every machine and Python run). FEATURES says what each template handles; combinations a
template does not support are not generated, except the few cases meant to make it call
raise_exception().
"""
import json
import random

USER = [
    "What is the capital of France?",
    "Explain recursion in one sentence.",
    "Write a haiku about autumn leaves.",
    "How do I reverse a list in Python?",
    "Translate 'good morning' into German.",
    "Give me three tips for better sleep.",
    "Why is the sky blue?",
    "What's 17 * 23?",
    "Can you summarize the plot of Hamlet in two lines?",
    "List the planets of the solar system.",
    "Is a tomato a fruit or a vegetable?",
    "Suggest a name for a grey cat.",
]
ASSISTANT = [
    "The capital of France is Paris.",
    "Recursion is when a function solves a problem by calling itself on smaller parts of it.",
    "Crimson leaves drifting\nwhispers of the cooling wind\nautumn settles in",
    "Use `my_list[::-1]` for a reversed copy, or `my_list.reverse()` to reverse in place.",
    "'Good morning' is 'Guten Morgen' in German.",
    "1. Keep a regular schedule.\n2. Avoid screens before bed.\n3. Keep the room cool and dark.",
    "Sunlight is scattered by air molecules, and blue light scatters the most (Rayleigh scattering).",
    "17 * 23 = 391.",
    "Prince Hamlet seeks revenge for his father's murder.\nNearly everyone dies by the end.",
    "Mercury, Venus, Earth, Mars, Jupiter, Saturn, Uranus and Neptune.",
    "Botanically a fruit; in the kitchen it is used as a vegetable.",
    "How about \"Pebble\"?",
]
SYSTEM = [
    "You are a helpful assistant.",
    "You are a concise assistant. Answer in at most two sentences.",
    "You are a pirate. Answer like one, matey.",
    "Always answer in JSON.",
    "You are a careful math tutor.\nShow your steps.",
]
UNICODE = [
    "你好，世界！请用中文回答这个问题。",
    "こんにちは、お元気ですか？ 今日はいい天気ですね。",
    "안녕하세요, 반갑습니다.",
    "Emoji: 👋🏽🚀✨ and a family 👨‍👩‍👧 and a flag 🇫🇷",
    "Combining marks: e\u0301 a\u0308 n\u0303 o\u0302\u0323 (decomposed) next to é ä ñ (composed)",
    "مرحبا بالعالم، كيف حالك اليوم؟",
    "שלום עולם! מה שלומך?",
    "Mixed scripts: English, русский, ελληνικά, हिन्दी, ไทย",
    "Math: ∑ᵢ xᵢ² ≤ ∞ over ℝ³, and ½ + ¼ = ¾",
    "Zero-width: a\u200bb\u200dc and a soft\u00adhyphen",
    "Right-to-left mark \u200fבתוך\u200e English text",
]
WHITESPACE = [
    "  two leading spaces",
    "trailing spaces   ",
    "\n\nleading newlines",
    "trailing newlines\n\n",
    "  \n both sides \n  ",
    " ",
    "\n",
    "line one\nline two\n\nline four",
    "\t tabs \t",
    "ends with a single space ",
]

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Zürich"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
SEARCH = {
    "type": "function",
    "function": {
        "name": "search_documents",
        "description": "Search the knowledge base.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                "filters": {
                    "type": "object",
                    "properties": {
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "after": {"type": "string", "format": "date"},
                    },
                },
            },
            "required": ["query"],
        },
    },
}
CONVERT = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "Convert an amount between currencies (ISO 4217 codes).",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number"},
                "from": {"type": "string"},
                "to": {"type": "string"},
            },
            "required": ["amount", "from", "to"],
        },
    },
}
TOOLS = [WEATHER, SEARCH, CONVERT]
CALLS = {
    "get_weather": [
        ({"city": "Paris"}, '{"temperature": 18, "condition": "sunny"}'),
        ({"city": "東京", "unit": "celsius"}, '{"temperature": 22.5, "condition": "曇り"}'),
        ({"city": "Zürich", "unit": "fahrenheit"}, "It is 61°F and raining."),
    ],
    "search_documents": [
        ({"query": "vacation policy", "limit": 3}, '[{"title": "Leave", "id": 7}]'),
        ({"query": "émojis 🚀", "filters": {"tags": ["a", "b"], "after": "2025-01-01"}}, "No results."),
    ],
    "convert_currency": [
        ({"amount": 100, "from": "EUR", "to": "USD"}, '{"result": 108.25}'),
        ({"amount": 2.5, "from": "JPY", "to": "GBP"}, '{"result": 0.013}'),
    ],
}
REASONING = [
    "The user wants a simple fact. Paris is the capital.",
    "Let me compute: 17 * 20 = 340, 17 * 3 = 51, total 391.",
    "\nI should think about this carefully.\nFirst, recall the facts.\n",
    "思考：用户问的是一个简单的问题。",
    "",
]

# What each template handles. system: "yes" (rendered), "error" (raises); alternate: the
# template raises when roles do not alternate; tools: the tool-calling style; reasoning:
# reasoning_content / <think> in assistant messages; lists: content as a list of text parts;
# thinking: takes enable_thinking; count: cases besides the rejected ones (40 unless said).
FEATURES = {
    "llama3": dict(system="yes"),
    "llama3_revised": dict(system="yes"),
    "llama3_1": dict(system="yes", tools="llama", date_kwarg=True, builtin_tools=True),
    "llama3_2": dict(system="yes", tools="llama", date_kwarg=True, builtin_tools=True),
    "qwen2_5": dict(system="yes", tools="qwen"),
    "qwen3": dict(system="yes", tools="qwen", reasoning=True, thinking=True, count=60),
    "gemma3": dict(system="yes", alternate=True, lists=True),
    "mistral": dict(system="error", alternate=True),
    "mixtral": dict(system="yes", alternate=True, tool_role_error=True),
    "phi3": dict(system="yes"),
    "phi3_5": dict(system="yes"),
    "phi4": dict(system="yes"),
    "phi4_mini": dict(system="yes", tools="phi4_mini"),
    "deepseek_v3": dict(system="yes", tools="deepseek", reasoning_ignored=True, multi_system=True),
    "smollm2": dict(system="yes"),
    "smollm3": dict(system="yes", tools="smollm3", thinking=True, smollm3=True, count=50),
}


def _pick(rng, pool):
    return pool[rng.randrange(len(pool))]


def _text(rng, role, style):
    base = USER if role == "user" else ASSISTANT if role == "assistant" else SYSTEM
    if style == "unicode" and rng.random() < 0.7:
        return _pick(rng, UNICODE)
    if style == "whitespace" and rng.random() < 0.7:
        if rng.random() < 0.4:
            return _pick(rng, WHITESPACE)
        return _pick(rng, [" ", "  ", "\n", "\n\n", " \n"]) + _pick(rng, base) + _pick(rng, [" ", "\n", "  \n\n", "\t"])
    if style == "empty" and rng.random() < 0.5:
        return ""
    return _pick(rng, base)


def _content(rng, text, feat):
    """Content as a string, or (where the template handles it) a list of text parts."""
    if not feat.get("lists") or rng.random() < 0.5:
        return text
    if not text or rng.random() < 0.5:
        return [{"type": "text", "text": text}]
    cut = rng.randrange(len(text) + 1)
    return [{"type": "text", "text": text[:cut]}, {"type": "text", "text": text[cut:]}]


def _chat(rng, feat, style, turns, gen_prompt, system):
    msgs = []
    if system:
        msgs.append({"role": "system", "content": _content(rng, _text(rng, "system", style), feat)})
        if feat.get("multi_system") and rng.random() < 0.3:
            msgs.append({"role": "system", "content": _text(rng, "system", style)})
    for t in range(turns):
        msgs.append({"role": "user", "content": _content(rng, _text(rng, "user", style), feat)})
        last = t == turns - 1
        if last and gen_prompt:
            break
        msgs.append({"role": "assistant", "content": _content(rng, _text(rng, "assistant", style), feat)})
    return msgs


def _reasoning(rng, msgs):
    """Qwen3 / DeepSeek: reasoning_content on some assistant messages, <think> inline on others."""
    for m in msgs:
        if m["role"] != "assistant" or not isinstance(m.get("content"), str):
            continue
        r = rng.random()
        if r < 0.45:
            m["reasoning_content"] = _pick(rng, REASONING)
        elif r < 0.65:
            m["content"] = "<think>\n" + _pick(rng, REASONING) + "\n</think>\n\n" + m["content"]
    return msgs


def _tool_call(rng, style, name, args):
    if style == "deepseek":
        args = json.dumps(args, ensure_ascii=False)
    elif style == "qwen" and rng.random() < 0.2:
        args = json.dumps(args, ensure_ascii=False)  # Qwen passes a string through as it is
    return {"type": "function", "function": {"name": name, "arguments": args}}


def _tool_chat(rng, feat, style_text, gen_prompt, system, ncalls):
    """user -> assistant(tool_calls) -> tool results -> assistant answer [-> user -> assistant]."""
    style = feat["tools"]
    tools = [t for t in TOOLS if rng.random() < 0.6] or [WEATHER]
    msgs = []
    if system:
        msgs.append({"role": "system", "content": _text(rng, "system", style_text)})
    if rng.random() < 0.3:
        msgs.append({"role": "user", "content": _text(rng, "user", style_text)})
        msgs.append({"role": "assistant", "content": _text(rng, "assistant", style_text)})
    msgs.append({"role": "user", "content": "Please use the tools: " + _text(rng, "user", style_text)})
    calls, results = [], []
    for _ in range(ncalls):
        fn = _pick(rng, tools)["function"]["name"]
        args, result = _pick(rng, CALLS[fn])
        calls.append(_tool_call(rng, style, fn, args))
        results.append(result)
    if style == "deepseek":
        content = None
    elif style == "qwen":
        content = _pick(rng, ["", "", "Let me check that.", " I'll look it up.\n"])
    else:
        content = ""
    msgs.append({"role": "assistant", "content": content, "tool_calls": calls})
    for name, result in zip((c["function"]["name"] for c in calls), results):
        msg = {"role": "tool", "content": result}
        if style == "llama" and rng.random() < 0.25:
            msg["content"] = {"result": result, "ok": True}  # a mapping: the template writes tojson
        if rng.random() < 0.5:
            msg["name"] = name
        msgs.append(msg)
    if gen_prompt and rng.random() < 0.6:
        return msgs, tools
    msgs.append({"role": "assistant", "content": _text(rng, "assistant", style_text)})
    if rng.random() < 0.4:
        msgs.append({"role": "user", "content": _text(rng, "user", style_text)})
        if not gen_prompt:
            msgs.append({"role": "assistant", "content": _text(rng, "assistant", style_text)})
    return msgs, tools


def _phi4_mini_tools(rng, style_text, gen_prompt):
    """Phi-4-mini: tools as a JSON string on the system message; tool results as role 'tool'."""
    tools = [t["function"] for t in TOOLS if rng.random() < 0.6] or [WEATHER["function"]]
    msgs = [{"role": "system", "content": _text(rng, "system", style_text),
             "tools": json.dumps(tools, ensure_ascii=False)}]
    msgs.append({"role": "user", "content": _text(rng, "user", style_text)})
    fn = tools[0]["name"]
    args, result = _pick(rng, CALLS[fn])
    call = json.dumps([{"name": fn, "arguments": args}], ensure_ascii=False)
    msgs.append({"role": "assistant", "content": "<|tool_call|>" + call + "<|/tool_call|>"})
    msgs.append({"role": "tool", "content": result})
    if not gen_prompt:
        msgs.append({"role": "assistant", "content": _text(rng, "assistant", style_text)})
    return msgs


STYLES = ["plain", "plain", "unicode", "whitespace", "empty"]


def cases(name):
    feat = FEATURES[name]
    count = feat.get("count", 40)
    out = []
    for k in range(count * 3):
        if len(out) >= count:
            break
        rng = random.Random(f"{name}:{k}")
        style = STYLES[k % len(STYLES)]
        gen_prompt = rng.random() < 0.3
        system = feat["system"] == "yes" and rng.random() < 0.55
        kwargs = {}
        tools = None
        kind = k % 8
        if feat.get("tools") and kind in (3, 6):
            if feat["tools"] == "phi4_mini":
                msgs = _phi4_mini_tools(rng, style, gen_prompt)
            else:
                ncalls = 1 if feat["tools"] == "llama" else rng.choice([1, 1, 2])
                msgs, tools = _tool_chat(rng, feat, style, gen_prompt, system, ncalls)
                if feat["tools"] == "deepseek":
                    tools = None  # the template has no tool list; tool calls and results only
                elif feat["tools"] == "smollm3" and rng.random() < 0.4:
                    kwargs["xml_tools"] = tools
                    tools = None
        else:
            msgs = _chat(rng, feat, style, rng.randint(1, 5), gen_prompt, system)
        if feat.get("reasoning") or feat.get("reasoning_ignored"):
            _reasoning(rng, msgs)
        if feat.get("thinking"):
            kwargs["enable_thinking"] = [True, False, None][k % 3]
            if kwargs["enable_thinking"] is None:
                del kwargs["enable_thinking"]
        if feat.get("smollm3") and msgs[0]["role"] == "system" and rng.random() < 0.4:
            msgs[0]["content"] += _pick(rng, [" /no_think", " /think", "/system_override"])
        if feat.get("date_kwarg") and rng.random() < 0.2:
            kwargs["date_string"] = "01 Feb 2025"
        if feat.get("builtin_tools") and tools is not None and rng.random() < 0.3:
            kwargs["builtin_tools"] = ["brave_search", "wolfram_alpha"]
        if feat.get("builtin_tools") and tools is not None and rng.random() < 0.3:
            kwargs["tools_in_user_message"] = False
        out.append({"messages": msgs, "tools": tools, "chat_template_kwargs": kwargs,
                    "add_generation_prompt": gen_prompt})
    out.extend(_error_cases(name, feat))
    return out


def _error_cases(name, feat):
    """Conversations the template rejects through raise_exception()."""
    out = []
    if feat.get("alternate"):
        out.append([{"role": "user", "content": "Hi"}, {"role": "user", "content": "Hello again"}])
        out.append([{"role": "assistant", "content": "I speak first."}, {"role": "user", "content": "Hi"}])
        out.append([{"role": "user", "content": "A"}, {"role": "assistant", "content": "B"},
                    {"role": "assistant", "content": "C"}])
    if feat["system"] == "error":
        out.append([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}])
    if feat.get("tool_role_error"):
        out.append([{"role": "user", "content": "Hi"}, {"role": "tool", "content": "42"}])
    result = [{"messages": m, "tools": None, "chat_template_kwargs": {}, "add_generation_prompt": False}
              for m in out]
    if feat.get("tools") == "llama":
        two = [_tool_call(random.Random(0), "llama", "get_weather", {"city": "Paris"}),
               _tool_call(random.Random(0), "llama", "get_weather", {"city": "Rome"})]
        result.append({"messages": [{"role": "user", "content": "Weather in Paris and Rome?"},
                                    {"role": "assistant", "content": "", "tool_calls": two}],
                       "tools": [WEATHER], "chat_template_kwargs": {}, "add_generation_prompt": False})
        result.append({"messages": [{"role": "system", "content": "Only a system message."}],
                       "tools": [WEATHER], "chat_template_kwargs": {}, "add_generation_prompt": True})
    return result
