"""The Python side of chat_benchmark.sh: the conversations of FILE rendered one at a time with
a template by Jinja2 set up as transformers' apply_chat_template sets it up
(tests/interop/chat/render_reference.py's environment). Prints {"seconds": ..., "bytes": ...}.
Usage: chat_benchmark.py TEMPLATE.json CONVERSATIONS.jsonl ROUNDS"""
import json
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop", "chat"))
import render_reference  # noqa: E402


def main():
    template_path, conversations_path, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(template_path, encoding="utf-8") as f:
        description = json.load(f)
    template = render_reference.make_env().from_string(description["chat_template"])
    specials = {k: v for k, v in description["special_tokens"].items() if isinstance(v, str)}
    with open(conversations_path, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    best, size = None, 0
    for _ in range(rounds):
        started = time.perf_counter()
        size = 0
        for record in records:
            context = dict(specials)
            context.update(record.get("chat_template_kwargs") or {})
            context["messages"] = record["messages"]
            context["add_generation_prompt"] = False
            if record.get("tools") is not None:
                context["tools"] = record["tools"]
            size += len(template.render(**context).encode("utf-8"))
        seconds = time.perf_counter() - started
        best = seconds if best is None else min(best, seconds)
    print(json.dumps({"seconds": best, "bytes": size}))


main()
