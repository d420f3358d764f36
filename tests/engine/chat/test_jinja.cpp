// The chat-template Jinja engine against jinja2 as transformers sets it up. Every expected
// string was rendered by tests/interop/chat/jinja_reference.py (jinja2 3.1), not by the engine.
#include "chat/jinja/template.h"

#include <QtTest/QtTest>

#include <atomic>
#include <chrono>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

using headroom::chat::jinja::Rendered;
using headroom::chat::jinja::RenderOptions;
using headroom::chat::jinja::Template;
using headroom::chat::jinja::TemplateError;
using Json = nlohmann::ordered_json;

namespace {

// strftime_now() as the reference script fixes it: 2024-07-09 08:05:03.
RenderOptions fixedClock() {
    RenderOptions options;
    options.strftime_now = [](const std::string &format) {
        std::tm t{};
        t.tm_year = 124;
        t.tm_mon = 6;
        t.tm_mday = 9;
        t.tm_hour = 8;
        t.tm_min = 5;
        t.tm_sec = 3;
        t.tm_wday = 2;
        t.tm_yday = 190;
        char buffer[256];
        return std::string(buffer, std::strftime(buffer, sizeof buffer, format.c_str(), &t));
    };
    return options;
}

// The variables every row of rendersLikeJinja2 renders with.
const Json &caseVariables() {
    static const Json variables = Json::parse(
        R"({"xs": [1, 2, 3], "d": {"a": 1, "b": [1, 2]}, "s": "héllo", "n": null, "f": 1.5, "msgs": [{"role": "system", "content": " Be brief. "}, {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}], "add_generation_prompt": true})");
    return variables;
}

std::string renderText(const std::string &source, const Json &variables = Json::object(),
                       const RenderOptions &options = {}) {
    return Template(source).render(variables, options).text;
}

// Runs `f`, which must throw TemplateError; returns the error.
template <class F> TemplateError expectError(F f) {
    try {
        f();
    } catch (const TemplateError &error) {
        return error;
    }
    QTest::qFail("no TemplateError was thrown", __FILE__, __LINE__);
    return TemplateError("", 0);
}

} // namespace

class TestJinja : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rendersLikeJinja2_data();
    void rendersLikeJinja2();
    void generationSpansAreByteRanges();
    void raiseExceptionCarriesTheMessage();
    void syntaxErrorsReportTheLine_data();
    void syntaxErrorsReportTheLine();
    void runtimeErrorsAreTemplateErrors_data();
    void runtimeErrorsAreTemplateErrors();
    void sandboxRefusesMutation();
    void keyOrderIsKept();
    void loopsAreBounded();
    void recursionIsBounded();
    void outputIsBounded();
    void nestingIsBounded();
    void rendersConcurrently();
};

void TestJinja::rendersLikeJinja2_data() {
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("print")
        << QByteArray("{{ s }} {{ xs }} {{ d }} {{ n }} {{ f }} {{ true }} {{ false }} {{ none }}")
        << QByteArray("héllo [1, 2, 3] {'a': 1, 'b': [1, 2]} None 1.5 True False None");
    QTest::newRow("str-floats") << QByteArray("{{ 1.0 }} {{ 1e-5 }} {{ 1e16 }} {{ 1e15 }} {{ 0.1 + "
                                              "0.2 }} {{ 1/3 }} {{ -0.0 }} {{ 2.5e-300 }}")
                                << QByteArray(
                                       "1.0 1e-05 1e+16 1000000000000000.0 0.30000000000000004 "
                                       "0.3333333333333333 -0.0 2.5e-300");
    QTest::newRow("str-containers")
        << QByteArray("{{ (1,) }} {{ () }} {{ ('a', 1) }} {{ {'k': [1, 'x', none, true, 1.5]} }} "
                      "{{ d.items() }} {{ d.keys() }} {{ range(3) }}")
        << QByteArray("(1,) () ('a', 1) {'k': [1, 'x', None, True, 1.5]} dict_items([('a', 1), "
                      "('b', [1, 2])]) dict_keys(['a', 'b']) range(0, 3)");
    QTest::newRow("str-repr-quotes")
        << QByteArray("{{ ['a\"b', \"a'b\", 'a\\'b\"c', '\\n\\t\\\\'] }}")
        << QByteArray("['a\"b', \"a'b\", 'a\\'b\"c', '\\n\\t\\\\']");
    QTest::newRow("str-repr-unicode")
        << QByteArray("{{ ['\\x85\\xa0\\u3000é\\u200b\\U0001F600\\x7f\\x01'] }}")
        << QByteArray("['\\x85\\xa0\\u3000é\\u200b😀\\x7f\\x01']");
    QTest::newRow("arith")
        << QByteArray("{{ 1/2 }} {{ 4/2 }} {{ 7//2 }} {{ -7//2 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ "
                      "2**10 }} {{ 2 ** -1 }} {{ 10.5 // 3 }} {{ -10.5 % 3 }} {{ 1 + 2 * 3 - 4 }}")
        << QByteArray("0.5 2.0 3 -4 2 -2 1024 0.5 3.0 1.5 3");
    QTest::newRow("concat") << QByteArray("{{ 'a' ~ 1 ~ none ~ true ~ undefined_name }} {{ 'ab' * "
                                          "3 }} {{ [1] * 2 }} {{ [1] + [2] }} {{ 'a' + 'b' }}")
                            << QByteArray("a1NoneTrue ababab [1, 1] [1, 2] ab");
    QTest::newRow("compare")
        << QByteArray("{{ 1 == 1.0 }} {{ (1, 2) == [1, 2] }} {{ 'a' < 'b' }} {{ 1 < 2 < 3 }} {{ "
                      "[1, 2] < [1, 3] }} {{ 3 in xs }} {{ 'é' in s }} {{ 'z' not in d }}")
        << QByteArray("True False True True True True True True");
    QTest::newRow("logic") << QByteArray("{{ true and 'a' or 'b' }} {{ none or 'z' }} {{ not none "
                                         "}} {{ 'a' if false }}|{{ 1 if 0 else 2 }}")
                           << QByteArray("a z True |2");
    QTest::newRow("percent-format")
        << QByteArray("{{ '%05.1f|%-4d|%+d|%x|%s|%r|%%' % (3.14159, 7, 5, 255, [1], 'q') }} {{ "
                      "'%(a)s-%(b)d'|format(a='x', b=2) }}")
        << QByteArray("003.1|7   |+5|ff|[1]|'q'|% x-2");
    QTest::newRow("str-format")
        << QByteArray("{{ '{} {}'.format(1, 'a') }} {{ '{0}{1}{0}'.format('x', 'y') }} {{ "
                      "'{:>5}|{:^5}|{:05d}|{:.2f}'.format('a', 'b', 42, 3.14159) }}")
        << QByteArray("1 a xyx     a|  b  |00042|3.14");
    QTest::newRow("slicing")
        << QByteArray(
               "{{ s[1] }} {{ s[::-1] }} {{ s[1:3] }} {{ xs[-1] }} {{ xs[::-1] }} {{ xs[1:] }} {{ "
               "xs[::2] }} {{ xs[10] }}|{{ msgs[::-1]|map(attribute='role')|join(',') }}")
        << QByteArray("é olléh él 3 [3, 2, 1] [2, 3] [1, 3] |assistant,user,system");
    QTest::newRow("attributes")
        << QByteArray("{{ msgs[1].role }} {{ msgs[1]['content'] }} {{ d.a }} {{ d.missing }}|{{ "
                      "n.x }}|{{ d.get('a') }} {{ d.get('zz', 5) }}")
        << QByteArray("user Hi 1 ||1 5");
    QTest::newRow("methods")
        << QByteArray("{{ '  x  '.strip() }}|{{ 'xxaxx'.strip('x') }}|{{ 'a,b,,c'.split(',') }}|{{ "
                      "' a  b '.split() }}|{{ 'a-b-c'.rsplit('-', 1) }}|{{ 'AbC'.lower() }}|{{ "
                      "'abc'.upper() }}|{{ 'hello world'.title() }}|{{ 'ab'.startswith(('x', 'a')) "
                      "}}|{{ 'abc'.endswith('bc') }}|{{ 'abcabc'.replace('b', 'B', 1) }}|{{ "
                      "'abcabc'.find('c') }}|{{ ', '.join(['a', 'b']) }}")
        << QByteArray("x|a|['a', 'b', '', 'c']|['a', 'b']|['a-b', 'c']|abc|ABC|Hello "
                      "World|True|True|aBcabc|2|a, b");
    QTest::newRow("unicode-case")
        << QByteArray("{{ 'straße'|upper }} {{ 'İSTANBUL'|lower }} {{ 'ǆemal'|capitalize }} {{ "
                      "'ΣΊΣΥΦΟΣ'|lower }} {{ 'éa bé'|title }}")
        << QByteArray("STRASSE i̇stanbul ǅemal σίσυφος Éa Bé");
    QTest::newRow("if")
        << QByteArray("{% if xs|length > 5 %}a{% elif s is string %}b{% else %}c{% endif %}")
        << QByteArray("b");
    QTest::newRow("for-loop-vars")
        << QByteArray("{% for m in msgs %}{{ loop.index }}/{{ loop.length }} {{ loop.index0 }} {{ "
                      "loop.revindex }} {{ loop.revindex0 }} {{ loop.first }} {{ loop.last }} {{ "
                      "loop.previtem.role if loop.previtem is defined }} {{ loop.nextitem.role if "
                      "loop.nextitem is defined }};{% endfor %}")
        << QByteArray("1/3 0 3 2 True False  user;2/3 1 2 1 False False system assistant;3/3 2 1 0 "
                      "False True user ;");
    QTest::newRow("for-cycle-changed")
        << QByteArray("{% for x in [1, 1, 2] %}{{ loop.cycle('odd', 'even') }}{{ loop.changed(x) "
                      "}}{{ loop.depth }} {% endfor %}")
        << QByteArray("oddTrue1 evenFalse1 oddTrue1 ");
    QTest::newRow("for-filter-else")
        << QByteArray("{% for x in xs if x > 1 %}{{ x }}{{ loop.index }}{% else %}none{% endfor "
                      "%}|{% for x in [] %}{% else %}empty{% endfor %}")
        << QByteArray("2132|empty");
    QTest::newRow("for-unpack")
        << QByteArray("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}{% for a, (b, c) in "
                      "[[1, [2, 3]]] %}{{ a }}{{ b }}{{ c }}{% endfor %}")
        << QByteArray("a=1;b=[1, 2];123");
    QTest::newRow("for-dict-string")
        << QByteArray(
               "{% for k in d %}{{ k }}{% endfor %}|{% for c in 'héj' %}[{{ c }}]{% endfor %}")
        << QByteArray("ab|[h][é][j]");
    QTest::newRow("break-continue")
        << QByteArray("{% for x in xs %}{% if x == 2 %}{% continue %}{% endif %}{{ x }}{% if x == "
                      "3 %}{% break %}{% endif %}{% endfor %}")
        << QByteArray("13");
    QTest::newRow("for-else-quirk")
        << QByteArray("{% for x in xs %}{% continue %}{% else %}else ran{% endfor %}")
        << QByteArray("else ran");
    QTest::newRow("recursive-loop")
        << QByteArray("{% for item in [{'n': 'a', 'c': [{'n': 'b', 'c': []}]}] recursive %}{{ "
                      "item.n }}{{ loop.depth }}[{{ loop(item.c) }}]{% endfor %}")
        << QByteArray("a1[b2[]]");
    QTest::newRow("set-scoping")
        << QByteArray("{% set x = 1 %}{% for i in range(2) %}{{ x }}{% set x = x + 1 %}{{ x }}{% "
                      "endfor %}{{ x }}|{% for i in range(3) %}{% if i == 0 %}{% set y = 'a' %}{% "
                      "endif %}[{{ y }}]{% endfor %}")
        << QByteArray("12121|[a][][]");
    QTest::newRow("namespace")
        << QByteArray("{% set ns = namespace(c=0, items=[]) %}{% for x in xs %}{% set ns.c = ns.c "
                      "+ x %}{% set ns.items = ns.items + [x * 2] %}{% endfor %}{{ ns.c }} {{ "
                      "ns.items }} {{ ns }}")
        << QByteArray("6 [2, 4, 6] <Namespace {'c': 6, 'items': [2, 4, 6]}>");
    QTest::newRow("set-tuple")
        << QByteArray("{% set a, b = 1, 2 %}{{ a }}{{ b }}{% set t = 1, 2 %}{{ t }}")
        << QByteArray("12(1, 2)");
    QTest::newRow("set-block") << QByteArray("{% set block %}\n  line1\n  line2\n{% endset %}[{{ "
                                             "block }}]{% set up | upper %}abc{% endset %}{{ up }}")
                               << QByteArray("[  line1\n  line2\n]ABC");
    QTest::newRow("macro")
        << QByteArray("{% macro greet(name, greeting='Hello') %}{{ greeting }}, {{ name }}!{% "
                      "endmacro %}{{ greet('A') }} {{ greet('B', greeting='Hi') }} {{ "
                      "greet(greeting='Yo', name='C') }}|{{ greet() }}")
        << QByteArray("Hello, A! Hi, B! Yo, C!|Hello, !");
    QTest::newRow("macro-varargs") << QByteArray("{% macro m(a) %}{{ a }}{{ varargs }}{{ kwargs "
                                                 "}}{% endmacro %}{{ m(1, 2, 3, k='v') }}")
                                   << QByteArray("1(2, 3){'k': 'v'}");
    QTest::newRow("macro-closure") << QByteArray("{% macro m() %}{{ y }}{% endmacro %}{% set y = 1 "
                                                 "%}{{ m() }}{% set y = 2 %}{{ m() }}")
                                   << QByteArray("12");
    QTest::newRow("macro-recursion") << QByteArray("{% macro r(n) %}{% if n > 0 %}{{ n }}{{ r(n - "
                                                   "1) }}{% endif %}{% endmacro %}{{ r(5) }}")
                                     << QByteArray("54321");
    QTest::newRow("call-block")
        << QByteArray(
               "{% macro wrap() %}[{{ caller() }}]{% endmacro %}{% call wrap() %}inner {{ s }}{% "
               "endcall %}|{% macro each(items) %}{% for i in items %}{{ caller(i) }}{% endfor "
               "%}{% endmacro %}{% call(item) each(xs) %}<{{ item }}>{% endcall %}")
        << QByteArray("[inner héllo]|<1><2><3>");
    QTest::newRow("filter-block") << QByteArray(
                                         "{% filter upper|trim %}  abc {{ s }}  {% endfilter %}")
                                  << QByteArray("ABC HÉLLO");
    QTest::newRow("with") << QByteArray("{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}[{{ a }}]")
                          << QByteArray("3[]");
    QTest::newRow("raw") << QByteArray("{% raw %}{{ not rendered }} {% if %}{% endraw %}")
                         << QByteArray("{{ not rendered }} {% if %}");
    QTest::newRow("ws-control")
        << QByteArray("a {{- ' b ' -}} c|  {%- if true -%}  x  {%- endif -%}  |{{ 'y' }}|a{# "
                      "comment #}b{#- trimmed -#}  c{% print 'p', 1 + 1 %}")
        << QByteArray("a b c|x|y|abcp2");
    QTest::newRow("trim-blocks")
        << QByteArray("{% if true %}\nline\n{% endif %}\nafter\n{{ 'a' }}\n{{ 'b' }}\n")
        << QByteArray("line\nafter\na\nb");
    QTest::newRow("lstrip-blocks")
        << QByteArray("  {% if true %}\n    kept indent\n  {% endif %}\n  {# c #}\nend")
        << QByteArray("    kept indent\nend");
    QTest::newRow("lstrip-plus") << QByteArray("x\n  {%+ if true %}y{% endif %}")
                                 << QByteArray("x\n  y");
    QTest::newRow("trim-plus") << QByteArray("{% if true +%}\nz\n{% endif %}")
                               << QByteArray("\nz\n");
    QTest::newRow("newlines") << QByteArray("a\015\nb\015c\n\n") << QByteArray("a\nb\nc\n");
    QTest::newRow("string-escapes")
        << QByteArray("{{ 'a\\nb\\tc\\\\d\\x41\\u00e9\\U0001F600\\101' }}|{{ 'unknown \\d' }}")
        << QByteArray("a\nb\tc\\dAé😀A|unknown \\d");
    QTest::newRow("number-literals")
        << QByteArray(
               "{{ 0b101 }} {{ 0o17 }} {{ 0x1F }} {{ 1_000 }} {{ 1.5e3 }} {{ 1e3 }} {{ 2.5 }}")
        << QByteArray("5 15 31 1000 1500.0 1000.0 2.5");
    QTest::newRow("tests")
        << QByteArray("{{ xs is sequence }} {{ d is mapping }} {{ s is string }} {{ 1 is number }} "
                      "{{ 1.0 is float }} {{ 1 is integer }} {{ true is boolean }} {{ none is none "
                      "}} {{ x is undefined }} {{ 3 is odd }} {{ 4 is even }} {{ 9 is divisibleby "
                      "3 }} {{ xs is iterable }} {{ raise_exception is callable }} {{ true is true "
                      "}} {{ false is false }} {{ 'ab' is lower }} {{ 'AB' is upper }}")
        << QByteArray("True True True True True True True True True True True True True True True "
                      "True True True");
    QTest::newRow("tests-compare")
        << QByteArray(
               "{{ 1 is eq 1 }} {{ 1 is equalto 1 }} {{ 1 is ne 2 }} {{ 1 is lt 2 }} {{ 2 is gt 1 "
               "}} {{ 3 is ge 3 }} {{ 3 is le 3 }} {{ 'a' is in 'abc' }} {{ none is sameas none }} "
               "{{ 'upper' is filter }} {{ 'odd' is test }} {{ x is defined }}")
        << QByteArray("True True True True True True True True True True True False");
    QTest::newRow("filter-strings")
        << QByteArray(
               "{{ '  a b  '|trim }}|{{ 'xxaxx'|trim('x') }}|{{ 'hello world'|title }}|{{ "
               "'hELLO'|capitalize }}|{{ 'ab'|upper }}{{ 'AB'|lower }}|{{ 'aaa'|replace('a', 'b', "
               "2) }}|{{ 'hello'|center(11) }}|{{ 'a b  c'|wordcount }}|{{ 5|string }}")
        << QByteArray("a b|a|Hello World|Hello|ABab|bba|   hello   |3|5");
    QTest::newRow("filter-truncate")
        << QByteArray("{{ 'hello world foo bar'|truncate(9) }}|{{ 'hello world foo "
                      "bar'|truncate(9, true) }}|{{ 'hello'|truncate(3, true, '') }}")
        << QByteArray("hello...|hello ...|hello");
    QTest::newRow("filter-indent")
        << QByteArray("{{ 'a\\nb\\n\\nc'|indent(2) }}|{{ 'a\\nb\\n\\nc'|indent(2, blank=true) "
                      "}}|{{ 'a\\nb'|indent('> ', first=true) }}|{{ 'a\\n'|indent }}")
        << QByteArray("a\n  b\n\n  c|a\n  b\n  \n  c|> a\n> b|a\n");
    QTest::newRow("filter-numbers")
        << QByteArray(
               "{{ 3.7|int }} {{ '42'|int }} {{ '4.2'|int }} {{ 'x'|int(7) }} {{ '0x1F'|int(0, 16) "
               "}} {{ 'x'|float }} {{ '1e3'|float }} {{ -3|abs }} {{ 2.5|round }} {{ "
               "3.14159|round(2) }} {{ 2.675|round(2) }} {{ 2.5|round(0, 'floor') }} {{ 5|round }}")
        << QByteArray("3 42 4 7 31 0.0 1000.0 3 2.0 3.14 2.67 2.0 5");
    QTest::newRow("filter-default") << QByteArray("{{ x|default('dflt') }} {{ ''|default('e', "
                                                  "true) }} {{ none|default('n') }} {{ x|d }}|")
                                    << QByteArray("dflt e None |");
    QTest::newRow("filter-sequences")
        << QByteArray(
               "{{ xs|first }} {{ xs|last }} {{ xs|length }} {{ s|count }} {{ xs|sum }} {{ xs|max "
               "}} {{ xs|min }} {{ [3, 1, 2]|sort }} {{ ['b', 'A', 'a']|sort }} {{ ['b', 'A', "
               "'a']|sort(case_sensitive=true, reverse=true) }} {{ ['b', 'A', 'a', "
               "'b']|unique|list }} {{ xs|reverse|list }} {{ 'abc'|list }} {{ d|list }}")
        << QByteArray("1 3 3 5 6 3 1 [1, 2, 3] ['A', 'a', 'b'] ['b', 'a', 'A'] ['b', 'A'] [3, 2, "
                      "1] ['a', 'b', 'c'] ['a', 'b']");
    QTest::newRow("filter-join-map")
        << QByteArray("{{ xs|join(', ') }} {{ msgs|map(attribute='role')|join('|') }} {{ "
                      "xs|map('string')|list }} {{ [{'a': 1}, {}]|map(attribute='a', "
                      "default=0)|list }} {{ msgs|join('-', attribute='role') }}")
        << QByteArray("1, 2, 3 system|user|assistant ['1', '2', '3'] [1, 0] system-user-assistant");
    QTest::newRow("filter-select")
        << QByteArray("{{ xs|select('odd')|list }} {{ xs|reject('odd')|list }} {{ "
                      "msgs|selectattr('role', 'equalto', 'user')|list }} {{ "
                      "msgs|rejectattr('role', 'eq', 'system')|map(attribute='content')|list }} {{ "
                      "[{'a': 1}, {'b': 2}]|selectattr('a', 'defined')|list }}")
        << QByteArray("[1, 3] [2] [{'role': 'user', 'content': 'Hi'}] ['Hi', 'Hello!'] [{'a': 1}]");
    QTest::newRow("filter-dicts")
        << QByteArray("{{ {'b': 1, 'a': 2}|dictsort }} {{ {'b': 1, 'a': 2}|dictsort(by='value') }} "
                      "{{ {'b': 1, 'a': 2}|items|list }}")
        << QByteArray("[('a', 2), ('b', 1)] [('b', 1), ('a', 2)] [('b', 1), ('a', 2)]");
    QTest::newRow("filter-misc")
        << QByteArray("{{ [1, 2, 3, 4, 5]|batch(2)|list }} {{ [1, 2, 3, 4, 5]|slice(2)|list }} {{ "
                      "[{'k': 'a', 'v': 1}, {'k': 'b', 'v': 2}]|groupby('k') }} {{ 'a&<>\"b'|e }} "
                      "{{ '<b>'|safe }} {{ d|attr('items') is callable }}")
        << QByteArray("[[1, 2], [3, 4], [5]] [[1, 2, 3], [4, 5]] [('a', [{'k': 'a', 'v': 1}]), "
                      "('b', [{'k': 'b', 'v': 2}])] a&amp;&lt;&gt;&#34;b <b> True");
    QTest::newRow("tojson")
        << QByteArray("{{ d|tojson }} {{ s|tojson }} {{ s|tojson(ensure_ascii=true) }} {{ [1.0, "
                      "none, true, 1e-7]|tojson }} {{ {'b': 1, 'a': [1, {'c': "
                      "none}]}|tojson(sort_keys=true) }} {{ [[], {}]|tojson(indent=2) }}")
        << QByteArray("{\"a\": 1, \"b\": [1, 2]} \"héllo\" \"h\\u00e9llo\" [1.0, null, true, "
                      "1e-07] {\"a\": [1, {\"c\": null}], \"b\": 1} [\n  [],\n  {}\n]");
    QTest::newRow("tojson-indent")
        << QByteArray("{{ d|tojson(indent=2) }}|{{ d|tojson(indent='\\t') }}|{{ "
                      "d|tojson(separators=(',', ':')) }}|{{ 'é😀\\u2028\\x7f\\x1f'|tojson }}")
        << QByteArray("{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}|{\n\t\"a\": 1,\n\t\"b\": "
                      "[\n\t\t1,\n\t\t2\n\t]\n}|{\"a\":1,\"b\":[1,2]}|\"é😀 \177\\u001f\"");
    QTest::newRow("globals")
        << QByteArray("{{ range(2, 10, 3)|list }} {{ range(5, 0, -2)|list }} {{ dict(a=1) }} {{ "
                      "namespace(a=1).a }} {{ strftime_now('%Y-%m-%d %H:%M') }}")
        << QByteArray("[2, 5, 8] [5, 3, 1] {'a': 1} 1 2024-07-09 08:05");
    QTest::newRow("cycler-joiner")
        << QByteArray("{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}{{ c.next() }}{% "
                      "set j = joiner(', ') %}{{ j() }}x{{ j() }}y")
        << QByteArray("abax, y");
    QTest::newRow("undefined")
        << QByteArray("[{{ undefined_name }}] {{ undefined_name is defined }} {{ "
                      "undefined_name|length }} {% for x in undefined_name %}no{% else %}empty{% "
                      "endfor %} {{ d.nope is defined }} {{ undefined_name|default('d') }}")
        << QByteArray("[] False 0 empty False d");
    QTest::newRow("block-tag") << QByteArray("{% block content %}in block {{ xs }}{% endblock %}")
                               << QByteArray("in block [1, 2, 3]");
    QTest::newRow("chat-like")
        << QByteArray("{%- for message in msgs -%}\n{{- '<|' + message.role + '|>\\n' + "
                      "message.content|trim + '<|end|>\\n' -}}\n{%- endfor -%}\n{%- if "
                      "add_generation_prompt %}<|assistant|>\n{% endif %}")
        << QByteArray(
               "<|system|>\nBe "
               "brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello!<|end|>\n<|assistant|>\n");
}

void TestJinja::rendersLikeJinja2() {
    QFETCH(QByteArray, source);
    QFETCH(QByteArray, expected);
    const Rendered rendered = Template(source.toStdString()).render(caseVariables(), fixedClock());
    QCOMPARE(QByteArray::fromStdString(rendered.text), expected);
    QVERIFY(rendered.generation_spans.empty());
}

void TestJinja::generationSpansAreByteRanges() {
    const Template chat("{% for m in messages %}<|{{ m.role }}|>\n"
                        "{% if m.role == 'assistant' %}{% generation %}{{ m.content }}<|end|>"
                        "{% endgeneration %}{% else %}{{ m.content }}<|end|>{% endif %}\n"
                        "{% endfor %}");
    QVERIFY(chat.hasGenerationBlocks());
    QVERIFY(!Template("{{ x }}").hasGenerationBlocks());
    const Json variables = Json::parse(R"({"messages": [
        {"role": "user", "content": "Grüße"}, {"role": "assistant", "content": "Héllo 😀"},
        {"role": "user", "content": "again"}, {"role": "assistant", "content": "ok"}]})");
    const Rendered rendered = chat.render(variables);
    QCOMPARE(QByteArray::fromStdString(rendered.text),
             QByteArray("<|user|>\nGrüße<|end|><|assistant|>\nHéllo 😀<|end|><|user|>\nagain<|end|>"
                        "<|assistant|>\nok<|end|>"));
    // transformers reports character offsets (37, 53) and (88, 97); these are the same ranges
    // in bytes of the UTF-8 text.
    const std::vector<std::pair<std::size_t, std::size_t>> expected = {{37, 55}, {90, 99}};
    QCOMPARE(rendered.generation_spans, expected);
    QCOMPARE(rendered.text.substr(37, 55 - 37), std::string("Héllo 😀<|end|>"));
}

void TestJinja::raiseExceptionCarriesTheMessage() {
    const TemplateError error = expectError([] {
        renderText("line 1\n{{ raise_exception('Conversation roles must alternate ' ~ 1) }}");
    });
    QVERIFY(error.raisedByTemplate());
    QCOMPARE(QByteArray(error.what()), QByteArray("Conversation roles must alternate 1"));
    QCOMPARE(error.line(), 2);
    QVERIFY(!expectError([] { renderText("{{ 1 / 0 }}"); }).raisedByTemplate());
}

void TestJinja::syntaxErrorsReportTheLine_data() {
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<int>("line");
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("unclosed if") << QByteArray("{% if x %}\nno end") << 2
                                 << QByteArray(
                                        "Unexpected end of template. Jinja was looking for the "
                                        "following tags: 'elif' or 'else' or 'endif'. The "
                                        "innermost block that needs to be closed is 'if'.");
    QTest::newRow("dangling operator")
        << QByteArray("line1\n{{ 1 + }}") << 2 << QByteArray("unexpected 'end of print statement'");
    QTest::newRow("stray end tag")
        << QByteArray("a\nb\n{% endfor %}") << 3 << QByteArray("Encountered unknown tag 'endfor'.");
    QTest::newRow("missing iterable")
        << QByteArray("{% for x in %}{% endfor %}") << 1
        << QByteArray("Expected an expression, got 'end of statement block'");
    QTest::newRow("unterminated string")
        << QByteArray("{{ 'unterminated }}") << 1 << QByteArray("unexpected char ''' at 3");
    QTest::newRow("elif after else")
        << QByteArray("{% if true %}\n{% else %}\n{% elif %}\n{% endif %}") << 3
        << QByteArray("Encountered unknown tag 'elif'. Jinja was looking for the following tags: "
                      "'endif'. The innermost block that needs to be closed is 'if'.");
    QTest::newRow("unclosed comment")
        << QByteArray("{# never closed") << 1 << QByteArray("Missing end of comment tag");
    QTest::newRow("unclosed raw") << QByteArray("{% raw %}\n\nno endraw") << 1
                                  << QByteArray("Missing end of raw directive");
    QTest::newRow("default order") << QByteArray("ok\n{% macro m(a=1, b) %}{% endmacro %}") << 2
                                   << QByteArray("non-default argument follows default argument");
    QTest::newRow("unknown filter")
        << QByteArray("{{ x|nosuchfilter }}") << 1 << QByteArray("No filter named 'nosuchfilter'.");
    QTest::newRow("assign to constant")
        << QByteArray("\n\n{% set 1 = 2 %}") << 3 << QByteArray("can't assign to 'const'");
    QTest::newRow("unbalanced") << QByteArray("{{ (1, 2 }}") << 1
                                << QByteArray("unexpected '}', expected ')'");
    QTest::newRow("break outside loop")
        << QByteArray("{% break %}") << 1 << QByteArray("'break' outside loop");
}

void TestJinja::syntaxErrorsReportTheLine() {
    QFETCH(QByteArray, source);
    QFETCH(int, line);
    QFETCH(QByteArray, message);
    const TemplateError error = expectError([&] { Template parsed(source.toStdString()); });
    QCOMPARE(error.line(), line);
    QCOMPARE(QByteArray(error.what()), message);
    QVERIFY(!error.raisedByTemplate());
}

void TestJinja::runtimeErrorsAreTemplateErrors_data() {
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("attribute of undefined")
        << QByteArray("{{ undefined_thing.attr }}") << QByteArray("'undefined_thing' is undefined");
    QTest::newRow("item of undefined")
        << QByteArray("{{ undefined_thing[0] }}") << QByteArray("'undefined_thing' is undefined");
    QTest::newRow("attribute of missing attribute")
        << QByteArray("{{ 'x'.nope.deeper }}")
        << QByteArray("'str object' has no attribute 'nope'");
    QTest::newRow("arithmetic on undefined")
        << QByteArray("{{ nothing + 1 }}") << QByteArray("'nothing' is undefined");
    QTest::newRow("division by zero")
        << QByteArray("{{ 1 / 0 }}") << QByteArray("division by zero");
    QTest::newRow("not iterable") << QByteArray("{% for x in 5 %}{% endfor %}")
                                  << QByteArray("'int' object is not iterable");
    QTest::newRow("unorderable") << QByteArray("{{ [1] < 'a' }}")
                                 << QByteArray(
                                        "'<' not supported between instances of 'list' and 'str'");
    QTest::newRow("tojson of undefined")
        << QByteArray("{{ nothing|tojson }}")
        << QByteArray("Object of type Undefined is not JSON serializable");
    QTest::newRow("len of a generator") << QByteArray("{{ [1]|select|length }}")
                                        << QByteArray("object of type 'generator' has no len()");
    QTest::newRow("include") << QByteArray("{% include 'x' %}")
                             << QByteArray("the 'include' tag is not supported in chat templates");
}

void TestJinja::runtimeErrorsAreTemplateErrors() {
    QFETCH(QByteArray, source);
    QFETCH(QByteArray, message);
    const TemplateError error = expectError([&] { renderText(source.toStdString()); });
    QCOMPARE(QByteArray(error.what()), message);
    QVERIFY(!error.raisedByTemplate());
}

void TestJinja::sandboxRefusesMutation() {
    // ImmutableSandboxedEnvironment: reading the method is fine, calling it is refused.
    QCOMPARE(renderText("{% set x = [1] %}[{{ x.append }}]"), std::string("[]"));
    QCOMPARE(
        QByteArray(expectError([] { renderText("{% set x = [1] %}{{ x.append(2) }}"); }).what()),
        QByteArray("access to attribute 'append' of 'list' object is unsafe."));
    QCOMPARE(QByteArray(expectError([] {
                            renderText("{% set d = {'a': 1} %}{{ d.update({'b': 2}) }}");
                        }).what()),
             QByteArray("access to attribute 'update' of 'dict' object is unsafe."));
    // Namespaces are the one thing a template may change.
    QCOMPARE(renderText("{% set ns = namespace(n=1) %}{% set ns.n = ns.n + 1 %}{{ ns.n }}"),
             std::string("2"));
}

void TestJinja::keyOrderIsKept() {
    const Json variables = Json::parse(R"({"tool": {"z": 1, "a": {"y": true, "b": null}}})");
    QCOMPARE(
        renderText("{{ tool|tojson }} {{ tool }} {% for k in tool %}{{ k }}{% endfor %}",
                   variables),
        std::string(
            R"({"z": 1, "a": {"y": true, "b": null}} {'z': 1, 'a': {'y': True, 'b': None}} za)"));
}

void TestJinja::loopsAreBounded() {
    const auto started = std::chrono::steady_clock::now();
    // jinja2's sandbox refuses ranges over 100000 items; nested loops run into max_steps.
    QCOMPARE(
        QByteArray(
            expectError([] { renderText("{% for i in range(10**9) %}x{% endfor %}"); }).what()),
        QByteArray("Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000)."));
    RenderOptions options;
    options.limits.max_steps = 1'000'000;
    const TemplateError steps = expectError([&] {
        renderText(
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
            Json::object(), options);
    });
    QVERIFY(QByteArray(steps.what()).contains("step limit"));
    QVERIFY(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
}

void TestJinja::recursionIsBounded() {
    const TemplateError error =
        expectError([] { renderText("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"); });
    QVERIFY(QByteArray(error.what()).contains("call depth"));
    QCOMPARE(error.line(), 1);
    RenderOptions options;
    options.limits.max_call_depth = 3;
    const std::string counting = "{% macro f(n) %}{{ n }}{% if n < LAST %}{{ f(n + 1) }}{% endif %}"
                                 "{% endmacro %}{{ f(0) }}";
    const auto upTo = [&](const char *last) {
        std::string source = counting;
        source.replace(source.find("LAST"), 4, last);
        return source;
    };
    QCOMPARE(renderText(upTo("2"), Json::object(), options), std::string("012"));
    expectError([&] { renderText(upTo("3"), Json::object(), options); });
}

void TestJinja::outputIsBounded() {
    RenderOptions options;
    options.limits.max_output_bytes = 1 << 20;
    const TemplateError output = expectError([&] {
        renderText("{% for i in range(100000) %}{{ 'x' * 100000 }}{% endfor %}", Json::object(),
                   options);
    });
    QVERIFY(QByteArray(output.what()).contains("size limit"));
    expectError([&] { renderText("{{ 'x' * 10**12 }}", Json::object(), options); });
    expectError([&] {
        renderText("{% set ns = namespace(s='ab') %}{% for i in range(100) %}"
                   "{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
                   Json::object(), options);
    });
}

void TestJinja::nestingIsBounded() {
    // Deep expressions and statements fail cleanly instead of overflowing the stack.
    const std::string parens = std::string(5000, '(') + "1" + std::string(5000, ')');
    expectError([&] { Template parsed("{{ " + parens + " }}"); });
    std::string ifs;
    for (int i = 0; i < 5000; ++i) {
        ifs += "{% if true %}";
    }
    expectError([&] { Template parsed(ifs); });
    std::string filters = "{{ 'x'";
    for (int i = 0; i < 5000; ++i) {
        filters += "|upper";
    }
    expectError([&] { Template parsed(filters + " }}"); });
    // Data nested one level per iteration through a namespace.
    expectError([] {
        renderText("{% set ns = namespace(v=[]) %}{% for i in range(100000) %}"
                   "{% set ns.v = [ns.v] %}{% endfor %}");
    });
}

void TestJinja::rendersConcurrently() {
    const Template chat("{% for m in messages %}<{{ m.role }}>{{ m.content|trim }}{% endfor %}"
                        "{% set ns = namespace(n=0) %}{% for i in range(100) %}"
                        "{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}");
    const Json variables = Json::parse(R"({"messages": [{"role": "user", "content": " hi "}]})");
    const std::string expected = "<user>hi4950";
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 200; ++i) {
                if (chat.render(variables).text != expected) {
                    ++wrong;
                }
            }
        });
    }
    for (auto &thread : threads) {
        thread.join();
    }
    QCOMPARE(wrong.load(), 0);
}

QTEST_GUILESS_MAIN(TestJinja)
#include "test_jinja.moc"
