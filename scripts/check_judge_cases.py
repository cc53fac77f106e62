# Runs judge cases in CPython, as one program would: the program, then the task's test statements in
# the same namespace, counted by the judge's counting rule (scripts/check-judge-cases.ts explains).
# Reads [{"name", "code", "statements"}] as JSON on stdin; writes [{"name", "passed", "total",
# "failures"}] as JSON on stdout. Not part of the sandbox: this is CPython checking the cases'
# expectations, so nothing here is locked down.
import ast
import contextlib
import io
import json
import sys
import types
import unittest


def called_names(node):
    """Names called as plain functions anywhere inside node."""
    return {
        n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }


def has_assert(node):
    return any(isinstance(n, ast.Assert) for n in ast.walk(node))


def is_test_case_class(node):
    for base in node.bases:
        name = base.id if isinstance(base, ast.Name) else getattr(base, 'attr', None)
        if name == 'TestCase':
            return True
    return False


def plan(statements):
    """Each statement as ('test' | 'setup', source), and the tests run after them: ('pytest', name)
    or ('unittest', class name, method name)."""
    trees = [ast.parse(s) for s in statements]
    functions = {
        node.name: node
        for tree in trees
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    asserting = {name for name, node in functions.items() if has_assert(node)}
    grew = True
    while grew:
        grew = False
        for name, node in functions.items():
            if name not in asserting and called_names(node) & asserting:
                asserting.add(name)
                grew = True
    called = set()
    for tree in trees:
        called |= called_names(tree)
    steps, later = [], []
    for source, tree in zip(statements, trees):
        counted = False
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.startswith('test') and node.name not in called:
                    later.append(('pytest', node.name))
            elif isinstance(node, ast.ClassDef):
                if is_test_case_class(node):
                    for item in node.body:
                        if isinstance(item, ast.FunctionDef) and item.name.startswith('test'):
                            later.append(('unittest', node.name, item.name))
            elif has_assert(node) or called_names(node) & asserting:
                counted = True
        steps.append(('test' if counted else 'setup', source))
    return steps, later


def describe(exc):
    text = str(exc)
    return type(exc).__name__ + (': ' + text[:120] if text else '')


def run_case(case):
    module = types.ModuleType('judged')
    sys.modules['judged'] = module
    try:
        return run_in(case, module.__dict__)
    finally:
        del sys.modules['judged']


def run_in(case, space):
    failures = []
    passed = total = 0
    try:
        steps, later = plan(case['statements'])
    except SyntaxError as exc:
        return {'name': case['name'], 'passed': 0, 'total': 0, 'failures': [describe(exc)]}
    total = sum(1 for kind, _ in steps if kind == 'test') + len(later)
    try:
        exec(compile(case['code'], 'main.py', 'exec'), space)
    except BaseException as exc:  # noqa: BLE001 - a failed program fails every test
        if isinstance(exc, KeyboardInterrupt):
            raise
        ok = isinstance(exc, SystemExit) and exc.code in (0, None)
        if not ok:
            return {
                'name': case['name'],
                'passed': 0,
                'total': total,
                'failures': ['the program failed: ' + describe(exc)],
            }
    for kind, source in steps:
        try:
            exec(compile(source, '<test>', 'exec'), space)
            if kind == 'test':
                passed += 1
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, KeyboardInterrupt):
                raise
            if kind == 'test':
                failures.append(source.splitlines()[0] + ' -> ' + describe(exc))
    for step in later:
        try:
            if step[0] == 'pytest':
                space[step[1]]()
            else:
                result = unittest.TestResult()
                space[step[1]](step[2]).run(result)
                if not result.wasSuccessful() or result.testsRun != 1:
                    problems = result.failures + result.errors
                    raise AssertionError(problems[0][1].strip().splitlines()[-1] if problems else '')
            passed += 1
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, KeyboardInterrupt):
                raise
            failures.append('.'.join(step[1:]) + ' -> ' + describe(exc))
    return {'name': case['name'], 'passed': passed, 'total': total, 'failures': failures}


def main():
    cases = json.load(sys.stdin)
    out, err = sys.stdout, sys.stderr
    results = []
    for case in cases:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            results.append(run_case(case))
        sys.stdout, sys.stderr = out, err
    json.dump(results, out)


main()
