# The agent loop's environment, as the tab runs it (src/rl/episode_loop.ts, src/rl/actions.ts,
# src/env/tools.ts): a system prompt, then turns in which the model either runs one fenced Python
# block (the observation is "Execution result:\n" and the last MAX_OUTPUT_CHARS characters of the
# program's output or traceback; a program past its deadline ends the episode with TIMEOUT) or
# gives "FINAL ANSWER: <answer>" or, when the run uses search, looks the docs up with a
# `SEARCH: <query>` line or a ```search block (docs_search.py, the tab's offline index: the
# observation is "Search results:\n..."); a turn with none of them gets the tab's format-error text. At most
# MAX_TURNS assistant turns, MAX_NEW_TOKENS tokens each (the generator's limit). Every string the
# model sees comes from protocol.py, which the exporter writes from the tab's own TypeScript
# constants, so the two cannot drift.
#
# Programs run in a fresh `python3 -I -u` subprocess each (unbuffered: stdout and stderr keep the
# order printed; no state shared between runs), in an empty
# temporary folder, with a deadline and resource limits (memory, CPU seconds, file size, open files).
import os
import re
import subprocess
import sys
import tempfile
import threading

import protocol

FENCE = '`' * 3
PYTHON_TAGS = frozenset(['', 'python', 'py', 'python3'])
# An opening fence: ``` + optional tag + end of line (or end of text, when cut off).
OPENING_FENCE = re.compile(FENCE + r'[ \t]*([A-Za-z0-9_+.-]*)[^\S\n]*(?:\n|\Z)')
ANSWER_MARKER = re.compile(r'FINAL ANSWER:', re.IGNORECASE | re.ASCII)
# JavaScript's \s and the characters its trim() removes, and the line starts its /^.../m sees.
JS_SPACE = '\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff'
JS_SPACES = re.compile('[' + JS_SPACE + ']+')
JS_TRIM = re.compile('^[' + JS_SPACE + ']+|[' + JS_SPACE + ']+$')
SEARCH_CALL = getattr(protocol, 'SEARCH_CALL', None)
# A call at a line's start (actions.ts callSyntaxes: /^[ \t]*(SEARCH:)/im); group 1 is the marker.
CALL_LINE = None if SEARCH_CALL is None else re.compile(
    r'(?:^|(?<=[\n\r\u2028\u2029]))[ \t]*(' + re.escape(SEARCH_CALL['marker']) + ':)', re.IGNORECASE | re.ASCII)


def js_trim(text):
    return JS_TRIM.sub('', text)

# The child: runs the program as __main__ under the file name main.py; an exception prints the
# traceback without this runner's own frame (the tab's harness strips its frames the same way).
RUNNER = r'''
import sys, traceback
code = sys.stdin.read()
sys.stdin = open(__import__('os').devnull)
namespace = {'__name__': '__main__', '__file__': 'main.py', '__builtins__': __builtins__}
try:
    exec(compile(code, 'main.py', 'exec', dont_inherit=True), namespace)
except SystemExit as exc:
    if exc.code is not None and not isinstance(exc.code, int):
        sys.stderr.write(str(exc.code) + '\n')
    sys.exit(1)
except BaseException as exc:
    tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
    sys.stderr.write(''.join(traceback.format_exception(type(exc), exc, tb)))
    sys.exit(1)
'''


def limit_resources(timeout_s):
    """Resource limits for a child (POSIX; a platform without `resource` runs without them)."""
    def apply():
        try:
            import resource
        except ImportError:
            return
        gib = 1024 ** 3
        for name, value in (('RLIMIT_AS', 2 * gib), ('RLIMIT_FSIZE', 16 * 1024 ** 2),
                            ('RLIMIT_NOFILE', 64), ('RLIMIT_CORE', 0),
                            ('RLIMIT_CPU', int(timeout_s) + 2)):
            limit = getattr(resource, name, None)
            if limit is not None:
                try:
                    resource.setrlimit(limit, (value, value))
                except (ValueError, OSError):
                    pass
        os.setsid()
    return apply


def run_child(args, stdin_text, timeout_s, keep_chars):
    """Runs a child with stdout and stderr on one pipe; returns (tail of the output, timed out,
    exit code). Only the last `keep_chars` characters are kept while it runs, so a flood of output
    costs memory in proportion to the cap."""
    with tempfile.TemporaryDirectory() as cwd:
        process = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=cwd, preexec_fn=limit_resources(timeout_s) if os.name == 'posix' else None,
            env={'PATH': os.environ.get('PATH', ''), 'PYTHONIOENCODING': 'utf-8', 'LANG': 'C.UTF-8'},
        )
        chunks = []
        size = [0]

        def read():
            for chunk in iter(lambda: process.stdout.read(65536), b''):
                chunks.append(chunk)
                size[0] += len(chunk)
                if size[0] > 8 * keep_chars + 65536:
                    kept = b''.join(chunks)[-4 * keep_chars:]
                    chunks[:] = [kept]
                    size[0] = len(kept)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            process.stdin.write(stdin_text.encode('utf-8', 'surrogatepass'))
            process.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        timed_out = False
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(process.pid, 9)
            except (ProcessLookupError, PermissionError, AttributeError):
                process.kill()
            process.wait()
        reader.join(timeout=5)
        text = b''.join(chunks).decode('utf-8', 'replace')
        return text[-keep_chars:] if keep_chars > 0 else '', timed_out, process.returncode


def run_program(code, timeout_s=None, max_output=None):
    """One execution as the tab's execute_code tool returns it: {'observation', 'timed_out', 'ok'}.
    The observation is the last MAX_OUTPUT_CHARS characters of stdout and stderr together (a
    traceback included), or TIMEOUT when the program ran past its deadline."""
    timeout_s = protocol.TIMEOUT_S if timeout_s is None else timeout_s
    max_output = protocol.MAX_OUTPUT_CHARS if max_output is None else max_output
    text, timed_out, code_ = run_child([sys.executable, '-I', '-u', '-c', RUNNER], code, timeout_s, max_output)
    if timed_out:
        return {'observation': protocol.TIMEOUT_OBSERVATION, 'timed_out': True, 'ok': False}
    return {'observation': text, 'timed_out': False, 'ok': code_ == 0}


def fenced_blocks(text):
    """Fenced blocks in order, each opening fence paired with its closing one."""
    blocks = []
    pos = 0
    while True:
        match = OPENING_FENCE.search(text, pos)
        if match is None:
            break
        body = match.end()
        close = text.find(FENCE, body)
        unterminated = close < 0
        blocks.append({'start': match.start(), 'code': text[body:] if unterminated else text[body:close],
                       'unterminated': unterminated, 'tag': match.group(1).lower()})
        if unterminated:
            break
        pos = close + 3
    return blocks


def first_call(text, blocks):
    """The earliest search call in a turn, as (start, action), or None (actions.ts firstCall)."""
    if SEARCH_CALL is None:
        return None
    found = []
    line = CALL_LINE.search(text)
    if line is not None:
        start = line.start(1)
        end = text.find('\n', start)
        query = js_trim(text[start + len(line.group(1)):len(text) if end < 0 else end])
        found.append((start, {'type': 'format_error', 'observation': SEARCH_CALL['empty_line_observation']}
                      if query == '' else {'type': 'tool_call', 'tool': SEARCH_CALL['tool'], 'input': query}))
    block = next((b for b in blocks if b['tag'] == SEARCH_CALL['fence'].lower()), None)
    if block is not None:
        query = JS_SPACES.sub(' ', js_trim(block['code']))
        found.append((block['start'], {'type': 'format_error', 'observation': SEARCH_CALL['empty_block_observation']}
                      if query == '' else {'type': 'tool_call', 'tool': SEARCH_CALL['tool'], 'input': query}))
    return min(found, key=lambda item: item[0]) if found else None


def parse_strict(text):
    """The tab's default parser (src/rl/actions.ts parseStrict)."""
    blocks = fenced_blocks(text)
    block = next((b for b in blocks if b['tag'] in PYTHON_TAGS), None)
    marker = ANSWER_MARKER.search(text)
    call = first_call(text, blocks)
    if call is not None and (block is None or call[0] < block['start']) and (
            marker is None or call[0] < marker.start()):
        return call[1]
    if marker is not None and (block is None or marker.start() < block['start']):
        rest = text[marker.end():]
        answer = next((line.strip() for line in rest.split('\n') if line.strip() != ''), '')
        if answer == '':
            return {'type': 'format_error', 'observation': protocol.EMPTY_ANSWER_OBSERVATION}
        return {'type': 'finish', 'answer': answer}
    if block is not None:
        if block['code'].strip() == '':
            return {'type': 'format_error', 'observation': protocol.EMPTY_BLOCK_OBSERVATION}
        return {'type': 'execute_code', 'code': block['code'], 'unterminated': block['unterminated']}
    if blocks:
        return {'type': 'format_error',
                'observation': protocol.WRONG_FENCE_OBSERVATION.replace(protocol.TAG_SLOT, blocks[0]['tag'])}
    return {'type': 'format_error', 'observation': protocol.FORMAT_ERROR_OBSERVATION}


def parse_reference(text):
    """The reference design's parser: a ```python block, else FINAL ANSWER:, else all of it runs;
    with search on, a search call before any ```python and FINAL ANSWER: comes first."""
    call = first_call(text, fenced_blocks(text)) if SEARCH_CALL is not None else None
    if call is not None:
        python = text.find(FENCE + 'python')
        answer = text.find('FINAL ANSWER:')
        if (python < 0 or call[0] < python) and (answer < 0 or call[0] < answer):
            return call[1]
    if FENCE + 'python' in text:
        after = text.split(FENCE + 'python')[1]
        close = after.find(FENCE)
        return {'type': 'execute_code', 'code': after if close < 0 else after[:close], 'unterminated': close < 0}
    if 'FINAL ANSWER:' in text:
        return {'type': 'finish', 'answer': text.split('FINAL ANSWER:')[1].strip()}
    return {'type': 'execute_code', 'code': text, 'unterminated': False}


def parse(text):
    return parse_reference(text) if protocol.PARSER == 'reference' else parse_strict(text)


def initial_messages(task):
    return [{'role': 'system', 'content': protocol.SYSTEM_PROMPT}, {'role': 'user', 'content': task['prompt']}]


class CodeEnvironment:
    """One episode at a time: reset(task) gives the opening messages; step(text) takes one model
    turn and returns the next user message (None when the episode ended). The record `episode` is
    what rewards.py scores."""

    def __init__(self, max_turns=None):
        self.max_turns = protocol.MAX_TURNS if max_turns is None else max_turns
        self.task = None
        self.messages = []
        self.episode = None

    def reset(self, task):
        self.task = task
        self.messages = initial_messages(task)
        self.episode = {'task_id': task['id'], 'turns': [], 'final_answer': None, 'timed_out': False,
                        'done': False, 'end': None}
        return list(self.messages)

    def _end(self, why):
        self.episode['done'] = True
        self.episode['end'] = why
        return None

    def end(self, why):
        """Ends the episode from outside (rollout.py: 'context_full', or 'error' when the chat
        template broke the conversation's ids)."""
        self._end(why)

    def step(self, text):
        if self.episode is None or self.episode['done']:
            raise RuntimeError('CodeEnvironment.step after the episode ended: call reset() first')
        action = parse(text)
        turn = {'text': text, 'action': action, 'execution': None}
        self.episode['turns'].append(turn)
        self.messages.append({'role': 'assistant', 'content': text})
        last = len(self.episode['turns']) >= self.max_turns
        if action['type'] == 'format_error':
            if last:
                return self._end('max_turns')
            return self._observe(action['observation'])
        if action['type'] == 'finish':
            self.episode['final_answer'] = action['answer']
            return self._end('final_answer')
        if action['type'] == 'tool_call':
            import docs_search
            observation = docs_search.search(action['input'])
            turn['call'] = {'tool': action['tool'], 'input': action['input'], 'observation': observation}
            if last:
                return self._end('max_turns')
            return self._observe(observation)
        result = run_program(action['code'])
        turn['execution'] = {'code': action['code'], 'observation': result['observation'],
                             'timed_out': result['timed_out']}
        if result['timed_out']:
            self.episode['timed_out'] = True
            return self._end('timeout')
        if last:
            return self._end('max_turns')
        return self._observe(protocol.OBSERVATION_PREFIX + result['observation'])

    def _observe(self, content):
        self.messages.append({'role': 'user', 'content': content})
        return content


def run_episode(task, generate):
    """Plays one episode: `generate(messages)` returns the model's next turn (at most
    MAX_NEW_TOKENS tokens: the generator's limit). Returns the episode record."""
    env = CodeEnvironment()
    messages = env.reset(task)
    while True:
        reply = env.step(generate(messages))
        if reply is None:
            return env.episode
        messages = env.messages
