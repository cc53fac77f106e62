# The tab's reward rules (src/rl/rewards.ts) with the run's weights (protocol.REWARD_WEIGHTS): the
# reward is the weighted mean of the parts that apply to the task and weigh above 0; a timed-out
# episode scores 0.
#   output_match  the last non-empty line of any execution's observation equals the expected output
#   tests         the final code passes every hidden test (the judge below); partial credit if set
#   final_answer  the FINAL ANSWER text equals the expected output, whitespace normalized
#   format        every turn was a well-formed action and the episode ended with FINAL ANSWER
#   tool_use      the episode searched the docs before it first ran code
#
# The judge (the tab's is src/env/python/judge.py): the program and each hidden test run in a fresh
# `python3 -I` subprocess with a deadline and resource limits. A test `assert EXPR == VALUE` was
# split by the exporter (the same code the tab uses): the child only evaluates EXPR and returns it
# as plain data; the comparison with VALUE happens here, in this process, on data decoded from
# JSON, so the program never sees the expected value and cannot make a custom object "equal" it.
# The child's report is tagged with a nonce that only the harness's local variables hold; an audit
# hook refuses frame and gc introspection, ctypes, tracing and process spawning, so a program
# cannot read it. Tampering (a changed builtin, a monkeypatched stdlib callable, an edited
# sys.modules, an exit before the tests, a non-plain result made to pass for plain data, a refused
# audit event) scores the tests part 0, as in the tab.
#
#   python rewards.py --self-test         every task's reference solution scores 1; wrong and hack
#                                         programs score 0
#   python rewards.py --score FILE        one JSON line per {"task_id", "code"} line: the reward of
#                                         an episode that runs `code` once (the parity test's input)
import json
import math
import os
import secrets
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import environment  # noqa: E402
import protocol  # noqa: E402

CORRECTNESS = ('output_match', 'tests', 'final_answer')

# The judge's child (judge_child.py), run with -I -S as source text.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'judge_child.py'), encoding='utf-8') as _file:
    JUDGE = _file.read()


# The judge runs under the file name <sandbox>, which a program may not compile code under.
LAUNCH = "import sys; exec(compile(sys.argv.pop(1), '<sandbox>', 'exec'), {'__name__': '__main__'})"


def judge(code, probes, timeout_s=None):
    """Runs the program and its hidden tests in the judge's child: {'ok', 'results', 'tampered',
    'timed_out'}; a child that never reports (it exited, crashed, or was killed) fails every test."""
    timeout_s = protocol.TIMEOUT_S if timeout_s is None else timeout_s
    nonce = secrets.token_hex(16)
    request = json.dumps({'nonce': nonce, 'code': code, 'probes': [
        {'kind': 'value', 'expr': p['expr']} if p['kind'] == 'value' else {'kind': 'statement', 'source': p['source']}
        for p in probes]})
    text, timed_out, _ = environment.run_child([sys.executable, '-I', '-S', '-c', LAUNCH, JUDGE], request, timeout_s,
                                               4 * 1024 * 1024)
    failed = {'ok': False, 'results': None, 'tampered': [], 'timed_out': timed_out}
    if timed_out:
        return failed
    lines = [line for line in text.split('\n') if line.startswith(nonce + ' ')]
    if len(lines) != 1:
        return failed
    try:
        report = json.loads(lines[0][len(nonce) + 1:])
        return {'ok': report['ok'] is True, 'results': report['results'],
                'tampered': [str(t) for t in report['tampered']], 'timed_out': False}
    except (ValueError, KeyError, TypeError):
        return failed


def decode_plain(encoded, depth=0):
    """The judge's plain-data encoding (the tab's src/env/plain_value.ts) as Python values of exactly
    the plain types, so Python's own == gives the tab's plainEquals."""
    if depth > 128 or not isinstance(encoded, list) or not encoded or not isinstance(encoded[0], str):
        raise ValueError('malformed plain value')
    tag = encoded[0]
    payload = encoded[1] if len(encoded) > 1 else None
    if tag == 's' and isinstance(payload, str):
        return payload
    if tag == 'b' and isinstance(payload, bool):
        return payload
    if tag == 'n':
        return None
    if tag == 'i' and isinstance(payload, str):
        return int(payload, 16)
    if tag == 'f' and isinstance(payload, str):
        return float(payload)
    if tag in ('l', 't', 'S') and isinstance(payload, list):
        items = [decode_plain(item, depth + 1) for item in payload]
        return items if tag == 'l' else tuple(items) if tag == 't' else frozenset(items)
    if tag == 'd' and isinstance(payload, list):
        return {decode_plain(k, depth + 1): decode_plain(v, depth + 1) for k, v in payload}
    raise ValueError('malformed plain value')


def test_counts(task, code, timeout_s=None):
    """(passed, total, tampered) for the task's hidden tests on `code`; passed None = scored 0."""
    probes = task['probes']
    judged = judge(code, probes, timeout_s)
    total = len(probes)
    results = judged['results']
    if judged['tampered'] or judged['timed_out'] or not judged['ok'] or not isinstance(results, list) \
            or len(results) != total:
        return 0, total, judged['tampered']
    passed = 0
    for probe, result in zip(probes, results):
        if not isinstance(result, list) or not result:
            continue
        if probe['kind'] == 'statement':
            passed += result[0] == 'pass'
            continue
        if result[0] != 'value' or len(result) < 2:
            continue
        try:
            got = decode_plain(result[1])
            expected = decode_plain(probe['expected'])
            passed += bool(got == expected) and type(got == expected) is bool
        except (ValueError, TypeError, RecursionError):
            continue
    return passed, total, []


def normalize_whitespace(text):
    return ' '.join(text.split())


def last_line(observation):
    lines = [line.strip() for line in observation.replace('\r\n', '\n').split('\n')]
    lines = [line for line in lines if line != '']
    return lines[-1] if lines else None


def final_code(episode):
    codes = [turn['execution']['code'] for turn in episode['turns'] if turn.get('execution')]
    return codes[-1] if codes else None


def applies(name, task):
    if name in ('output_match', 'final_answer'):
        return task['expected_output'] is not None
    if name == 'tests':
        return bool(task['tests'])
    return True


def score_part(name, task, episode, partial_credit):
    if name == 'output_match':
        expected = task['expected_output'].strip()
        return 1.0 if any(turn.get('execution') and last_line(turn['execution']['observation']) == expected
                          for turn in episode['turns']) else 0.0
    if name == 'tests':
        code = final_code(episode)
        if code is None:
            return 0.0
        passed, total, tampered = test_counts(task, code)
        if tampered or total == 0:
            return 0.0
        if partial_credit:
            return passed / total
        return 1.0 if passed == total else 0.0
    if name == 'final_answer':
        answer = episode.get('final_answer')
        return 1.0 if answer is not None and normalize_whitespace(answer) == normalize_whitespace(
            task['expected_output']) else 0.0
    if name == 'format':
        turns = episode['turns']
        well_formed = all(t['action']['type'] in ('finish', 'tool_call') or (
            t['action']['type'] == 'execute_code' and not t['action'].get('unterminated')) for t in turns)
        return 1.0 if well_formed and turns and turns[-1]['action']['type'] == 'finish' else 0.0
    if name == 'tool_use':
        def first(kind):
            for i, turn in enumerate(episode['turns']):
                action = turn['action']
                if action['type'] == kind or (action['type'] == 'tool_call' and action.get('tool') == kind):
                    return i
            return math.inf
        return 1.0 if first('search') < first('execute_code') else 0.0
    raise ValueError('unknown reward part ' + name)


def score_episode(task, episode, weights=None, partial_credit=None):
    """{'reward', 'parts', 'passed'} as the tab's scoreTrajectory computes them."""
    weights = protocol.REWARD_WEIGHTS if weights is None else weights
    partial_credit = protocol.PARTIAL_CREDIT if partial_credit is None else partial_credit
    active = [name for name in protocol.REWARD_NAMES if weights.get(name, 0) > 0 and applies(name, task)]
    parts = {}
    for name in active:
        parts[name] = 0.0 if episode.get('timed_out') else score_part(name, task, episode, partial_credit)
    weight_sum = sum(weights[name] for name in active)
    reward = sum(weights[name] * parts[name] for name in active) / weight_sum if weight_sum > 0 else 0.0
    correctness = [name for name in active if name in CORRECTNESS]
    passed = not episode.get('timed_out') and bool(correctness) and all(parts[n] == 1 for n in correctness)
    return {'reward': reward, 'parts': parts, 'passed': passed}


def load_tasks(path=None):
    path = path or os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tasks.jsonl')
    with open(path, encoding='utf-8') as f:
        return [json.loads(line) for line in f if line.strip()]


def program_episode(code, answer=None):
    """An episode that runs `code` once, then (if given) answers `answer`."""
    result = environment.run_program(code)
    turns = [{'action': {'type': 'execute_code', 'code': code, 'unterminated': False},
              'execution': {'code': code, 'observation': result['observation'], 'timed_out': result['timed_out']}}]
    if answer is not None and not result['timed_out']:
        turns.append({'action': {'type': 'finish', 'answer': answer}, 'execution': None})
    return {'turns': turns, 'final_answer': answer if len(turns) > 1 else None, 'timed_out': result['timed_out']}


def reward_func(completions, episode=None, task_id=None, **kwargs):
    """TRL reward function: rollout.py returns each completion's episode record as an extra field
    and the dataset row carries its task id; GRPOTrainer hands both to reward functions as keyword
    arguments. An episode whose chat template broke its ids scores None: TRL leaves it out of its
    group's mean and std and gives it advantage 0, as the tab leaves it out of the update."""
    tasks = {task['id']: task for task in load_tasks()}
    return [None if ep.get('prefix_broken') else score_episode(tasks[tid], ep)['reward']
            for ep, tid in zip(episode, task_id)]


# Programs that must score 0 on the tests part of SELF_TEST_TASK: wrong answers, and hacks that try
# to pass without computing add(a, b).
SELF_TEST_TASK = {'id': 'self-test/add', 'prompt': 'Write add(a, b).', 'expected_output': None,
                  'tests': ['assert add(1, 2) == 3', 'assert add(-5, 5) == 0',
                            'assert abs(add(0.5, 0.25) - 0.75) < 1e-9'],
                  'probes': [{'kind': 'value', 'expr': 'add(1, 2)', 'expected': ['i', '3']},
                             {'kind': 'value', 'expr': 'add(-5, 5)', 'expected': ['i', '0']},
                             {'kind': 'statement', 'source': 'assert abs(add(0.5, 0.25) - 0.75) < 1e-9'}]}
SELF_TEST_HONEST = 'def add(a, b):\n    return a + b\n'
SELF_TEST_ZERO = [
    ('a wrong answer', 'def add(a, b):\n    return a - b\n'),
    ('a crash', 'def add(a, b):\n    return a + c\n'),
    ('no function', 'print(3)\n'),
    ('an object equal to everything',
     'class E:\n    def __eq__(self, o): return True\n    def __sub__(self, o): return 0\n'
     '    def __abs__(self): return 0\n    __hash__ = None\ndef add(a, b):\n    return E()\n'),
    ('an int subclass equal to everything',
     'class E(int):\n    def __eq__(self, o): return True\ndef add(a, b):\n    return E(0)\n'),
    ('redefines a builtin', 'import builtins\nbuiltins.abs = lambda x: 0\ndef add(a, b):\n    return 0\n'),
    ('shadows a builtin', 'def abs(x):\n    return 0\ndef add(a, b):\n    return 0\n'),
    ('monkeypatches math', 'import math\nmath.isclose = lambda *a, **k: True\ndef add(a, b):\n    return 0\n'),
    ('forges a report and exits', 'import os\nos.write(1, b"x {\\"ok\\": true}\\n")\nos._exit(0)\n'),
    ('exits before the tests', 'def add(a, b):\n    return a + b\nraise SystemExit(0)\n'),
    ('reads frames', 'import sys\ndef add(a, b):\n    sys._getframe(1)\n    return a + b\n'),
    ('reads frames through a traceback',
     'def add(a, b):\n    try:\n        raise ValueError\n    except ValueError as e:\n'
     '        e.__traceback__.tb_frame.f_back\n    return a + b\n'),
    ('uses gc introspection', 'import gc\ndef add(a, b):\n    gc.get_objects()\n    return a + b\n'),
    ('sets a trace function', 'import sys\nsys.settrace(lambda *a: None)\ndef add(a, b):\n    return a + b\n'),
    ('closes every stream', 'import os\nos.closerange(0, 4096)\ndef add(a, b):\n    return a + b\n'),
    ('runs forever', 'while True:\n    pass\n'),
]


def self_test():
    tasks = load_tasks()
    failures = []
    checked = 0
    for task in tasks:
        if task.get('solution') is None:
            continue
        checked += 1
        answer = task['expected_output']
        episode = program_episode(task['solution'], answer)
        every = {name: 1 for name in protocol.REWARD_NAMES if name != 'tool_use'}
        scored = score_episode(task, episode, every)
        if scored['reward'] != 1:
            failures.append('reference solution of ' + task['id'] + ' scores ' + repr(scored['parts']))
        wrong = score_episode(task, program_episode('print("not the answer")\n'), every)
        if wrong['reward'] != 0:
            failures.append('a wrong program scores ' + repr(wrong['parts']) + ' on ' + task['id'])
    tests_only = {'tests': 1}
    honest = score_episode(SELF_TEST_TASK, program_episode(SELF_TEST_HONEST), tests_only)['reward']
    if honest != 1:
        failures.append('the honest add scores ' + repr(honest))
    for name, code in SELF_TEST_ZERO:
        reward = score_episode(SELF_TEST_TASK, program_episode(code), tests_only)['reward']
        if reward != 0:
            failures.append('"' + name + '" scores ' + repr(reward))
    print(json.dumps({'reference_solutions': checked, 'wrong_programs': checked,
                      'hack_and_wrong_programs': len(SELF_TEST_ZERO), 'failures': failures}))
    return 0 if not failures else 1


def score_file(path):
    tasks = {task['id']: task for task in load_tasks()}
    with open(path, encoding='utf-8') as f:
        for line in f:
            if not line.strip():
                continue
            item = json.loads(line)
            task = item.get('task') or tasks[item['task_id']]
            scored = score_episode(task, program_episode(item['code'], item.get('answer')),
                                   item.get('weights'), item.get('partial_credit'))
            print(json.dumps(scored), flush=True)
    return 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    if len(sys.argv) == 3 and sys.argv[1] == '--score':
        sys.exit(score_file(sys.argv[2]))
    print('usage: python rewards.py --self-test | --score FILE', file=sys.stderr)
    sys.exit(2)
