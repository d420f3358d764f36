#!/usr/bin/env python3
"""Renders the chat-template reference with Jinja2, set up the way Hugging Face transformers
renders chat templates (apply_chat_template), and computes the spans a trainer would train on.

  render_reference.py REFERENCE_DIR

Reads REFERENCE_DIR/templates/<name>.json (written by generate.js), renders the cases of
conversations.py and writes REFERENCE_DIR/cases.raw.jsonl; generate.js then adds the
@huggingface/jinja comparison and the token ids. Needs only Debian's python3-jinja2.

The environment (written here, after transformers' documented behaviour):
  ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) with loopcontrols and
  a {% generation %}...{% endgeneration %} extension; the filter tojson is json.dumps with
  ensure_ascii=False (indent, separators, sort_keys passed on); the globals raise_exception
  (raises) and strftime_now (formats the fixed time 2026-01-15 10:30:00). Variables: the
  special tokens (strings), the case's chat_template_kwargs, messages, add_generation_prompt,
  and tools only when the case has tools (documents is never set).

Trained spans (add_generation_prompt=false cases; UTF-8 byte offsets into the text, all
comparisons on bytes). F = render(all messages).
  generation: the template has {% generation %} blocks: the spans written inside them.
  prefix: for assistant message i, P = render(messages[:i], add_generation_prompt=True),
    A = render(messages[:i+1], add_generation_prompt=False); when P is a prefix of A and A a
    prefix of F, the span is [len(P), len(A)).
  fallback: otherwise F0 = render(messages with message i's content set to "" and its
    reasoning_content removed); p = common prefix of F and F0, s = common suffix (capped so
    that p + s <= min(len(F), len(F0))); E = the end-of-turn text of the template, learned
    once from the probes [user "Hi", assistant "Hello"] and [user "Hi", assistant "Hello",
    user "Bye"]: what both renderings hold after the last "Hello" (the common prefix of the
    two tails; the first tail alone when the second probe is refused; empty when "Hello" is
    not there), so an end-of-text written only after the last turn is left out. When F continues
    with E at len(F) - s the span is [p, len(F) - s + len(E)), else [p, len(F) - s).
"""
import copy
import datetime
import json
import os
import re
import sys

import jinja2
import jinja2.ext
import jinja2.nodes
import jinja2.sandbox

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conversations  # noqa: E402

FIXED_NOW = datetime.datetime(2026, 1, 15, 10, 30, 0)
# Private-use characters around the output of a generation block, removed after rendering.
GEN_START, GEN_END = "\ue000", "\ue001"
SPECIAL_KEYS = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]
PROBE = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
PROBE_NEXT = PROBE + [{"role": "user", "content": "Bye"}]


class RaisedException(jinja2.exceptions.TemplateError):
    """What the template's raise_exception() raises (other errors are generator bugs)."""


class GenerationExtension(jinja2.ext.Extension):
    """{% generation %}body{% endgeneration %}: writes the body between two markers."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        call = self.call_method("_mark", [])
        return jinja2.nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    def _mark(self, caller):
        return GEN_START + caller() + GEN_END


def raise_exception(message):
    raise RaisedException(message)


def strftime_now(fmt):
    return FIXED_NOW.strftime(fmt)


def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def make_env():
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True,
        extensions=[GenerationExtension, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


class Renderer:
    def __init__(self, env, template):
        self.template = env.from_string(template["chat_template"])
        self.specials = template["special_tokens"]

    def render(self, messages, tools, kwargs, gen_prompt):
        """The text (markers removed) and the generation spans as UTF-8 byte offsets."""
        context = {k: v for k, v in self.specials.items() if v is not None}
        context.update(kwargs)
        context["messages"] = messages
        context["add_generation_prompt"] = gen_prompt
        if tools is not None:
            context["tools"] = tools
        marked = self.template.render(**context)
        text, spans, pos, start = [], [], 0, None
        for piece in re.split("([\ue000\ue001])", marked):
            if piece == GEN_START:
                assert start is None, "nested generation blocks"
                start = pos
            elif piece == GEN_END:
                spans.append([start, pos])
                start = None
            else:
                text.append(piece)
                pos += len(piece.encode("utf-8"))
        return "".join(text), spans

    def text(self, messages, tools, kwargs, gen_prompt):
        return self.render(messages, tools, kwargs, gen_prompt)[0].encode("utf-8")


def common_prefix(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def common_suffix(a, b, limit):
    i = 0
    while i < limit and a[len(a) - 1 - i] == b[len(b) - 1 - i]:
        i += 1
    return i


def end_of_turn(renderer):
    try:
        a = renderer.text(PROBE, None, {}, False)
    except RaisedException:
        return b""
    at = a.rfind(b"Hello")
    if at < 0:
        return b""
    tail = a[at + len(b"Hello"):]
    try:
        b = renderer.text(PROBE_NEXT, None, {}, False)
    except RaisedException:
        return tail
    at = b.rfind(b"Hello")
    return tail[:common_prefix(tail, b[at + len(b"Hello"):])] if at >= 0 else tail


def trained_spans(renderer, case, full, eot):
    msgs, tools, kwargs = case["messages"], case["tools"], case["chat_template_kwargs"]
    spans, methods = [], []
    for i, m in enumerate(msgs):
        if m.get("role") != "assistant":
            continue
        try:
            p = renderer.text(msgs[:i], tools, kwargs, True)
            a = renderer.text(msgs[:i + 1], tools, kwargs, False)
        except RaisedException:
            p = a = None
        if p is not None and a.startswith(p) and full.startswith(a):
            spans.append([len(p), len(a)])
            methods.append("prefix")
            continue
        emptied = copy.deepcopy(msgs)
        emptied[i]["content"] = ""
        emptied[i].pop("reasoning_content", None)
        f0 = renderer.text(emptied, tools, kwargs, False)
        p = common_prefix(full, f0)
        s = common_suffix(full, f0, min(len(full), len(f0)) - p)
        end = len(full) - s
        if eot and full[end:end + len(eot)] == eot:
            end += len(eot)
        spans.append([p, end])
        methods.append("fallback")
    return spans, methods


def main():
    ref = sys.argv[1]
    env = make_env()
    names = sorted(f[:-5] for f in os.listdir(os.path.join(ref, "templates")) if f.endswith(".json"))
    skipped = 0
    with open(os.path.join(ref, "cases.raw.jsonl"), "w", encoding="utf-8") as out:
        for name in names:
            with open(os.path.join(ref, "templates", name + ".json"), encoding="utf-8") as f:
                template = json.load(f)
            renderer = Renderer(env, template)
            has_generation = re.search(r"{%-?\s*generation\s*-?%}", template["chat_template"]) is not None
            eot = end_of_turn(renderer)
            template["end_of_turn"] = eot.decode("utf-8")
            template["has_generation"] = has_generation
            with open(os.path.join(ref, "templates", name + ".json"), "w", encoding="utf-8") as f:
                json.dump(template, f, ensure_ascii=False, indent=1)
            k = 0
            for case in conversations.cases(name):
                assert GEN_START not in json.dumps(case) and GEN_END not in json.dumps(case)
                try:
                    text, gen = renderer.render(case["messages"], case["tools"],
                                                case["chat_template_kwargs"], case["add_generation_prompt"])
                    error = None
                except RaisedException as e:
                    text, gen, error = None, None, str(e)
                except Exception as e:  # a combination the template does not handle: not recorded
                    print(f"{name}: skipped a case: {type(e).__name__}: {e}", file=sys.stderr)
                    skipped += 1
                    continue
                spans, methods = [], []
                if text is not None and not case["add_generation_prompt"]:
                    if has_generation:
                        spans = gen
                        methods = ["generation" for m in case["messages"] if m.get("role") == "assistant"]
                    else:
                        spans, methods = trained_spans(renderer, case, text.encode("utf-8"), eot)
                record = {"template": name, "case": k, "messages": case["messages"], "tools": case["tools"],
                          "chat_template_kwargs": case["chat_template_kwargs"],
                          "add_generation_prompt": case["add_generation_prompt"], "text": text, "error": error,
                          "generation_spans": (gen if text is not None else None) if has_generation else None,
                          "trained_spans": spans, "methods": methods}
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                k += 1
            print(f"{name}: {k} cases rendered")
    if skipped:
        print(f"{skipped} cases skipped (see above)")


if __name__ == "__main__":
    main()
