#!/usr/bin/env python3
"""Renders Jinja chat templates the way Hugging Face transformers' apply_chat_template does, to
check Headroom's Jinja engine (engine/src/chat/jinja) against: jinja2's
ImmutableSandboxedEnvironment with trim_blocks and lstrip_blocks, the loop controls, transformers'
{% generation %} block, raise_exception, strftime_now, and tojson as json.dumps.

  jinja_reference.py TEMPLATE_FILE VARIABLES_JSON_FILE
      prints {"text": ..., "spans": [[begin, end], ...]} or {"error": "Type: message"}
  jinja_reference.py --batch CASES_JSON_FILE
      CASES_JSON_FILE holds [{"template": str, "variables": object}, ...]; prints a list of the
      results above, in order

Spans are byte ranges of the UTF-8 text written inside {% generation %} blocks (transformers
counts characters; the engine's API counts bytes). strftime_now(format) formats the fixed time
2024-07-09 08:05:03 so that results can be compared. Needs jinja2 (Debian: python3-jinja2).
"""
import copy
import datetime
import json
import sys
from contextlib import contextmanager

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment

FIXED_NOW = datetime.datetime(2024, 7, 9, 8, 5, 3)


class AssistantTracker(Extension):
    """transformers' {% generation %} block: records where its output lands."""

    tags = {"generation"}

    def __init__(self, environment):
        super().__init__(environment)
        environment.extend(activate_tracker=self.activate_tracker)
        self._rendered_blocks = None
        self._generation_indices = None

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        call = nodes.CallBlock(self.call_method("_generation_support"), [], [], body)
        return call.set_lineno(lineno)

    @jinja2.pass_eval_context
    def _generation_support(self, context, caller):
        rv = caller()
        if self._rendered_blocks is not None:
            start = len("".join(self._rendered_blocks))
            self._generation_indices.append((start, start + len(rv)))
        return rv

    @contextmanager
    def activate_tracker(self, rendered_blocks, generation_indices):
        self._rendered_blocks = rendered_blocks
        self._generation_indices = generation_indices
        try:
            yield
        finally:
            self._rendered_blocks = None
            self._generation_indices = None


def make_environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        # transformers' override: json.dumps without jinja2's HTML escaping
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def strftime_now(format):
        return FIXED_NOW.strftime(format)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[AssistantTracker, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def render(env, source, variables):
    # A deep copy: jinja2 filters can change their argument in place (indent does `s += "\n"`).
    variables = copy.deepcopy(variables)
    try:
        template = env.from_string(source)
        blocks, indices = [], []
        with env.activate_tracker(blocks, indices):
            for block in template.generate(**variables):
                blocks.append(block)
        text = "".join(blocks)
        text.encode()
    except Exception as error:  # the engine reports every failure as a TemplateError
        return {"error": f"{type(error).__name__}: {error}"}
    spans = [[len(text[:b].encode()), len(text[:e].encode())] for b, e in indices]
    return {"text": text, "spans": spans}


def main():
    env = make_environment()
    if len(sys.argv) == 3 and sys.argv[1] == "--batch":
        with open(sys.argv[2], encoding="utf-8") as f:
            cases = json.load(f)
        results = [render(env, case["template"], case.get("variables", {})) for case in cases]
    elif len(sys.argv) == 3:
        with open(sys.argv[1], encoding="utf-8", newline="") as f:
            source = f.read()
        with open(sys.argv[2], encoding="utf-8") as f:
            results = render(env, source, json.load(f))
    else:
        sys.exit(__doc__)
    json.dump(results, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
