// The documentation index must be true of Python: a wrong signature or a false example would teach
// the agent a wrong call. Python itself checks every entry: the name resolves, the signature's
// parameters agree with inspect.signature where CPython exposes one (names of parameters that can
// be passed by keyword, order, defaults, *args/**kwargs, no required one left out), and every
// `expr == value` example in a summary holds. It runs twice: in Pyodide, the runtime the agent's
// code runs in, and in the machine's python3 when there is one.
import { spawnSync } from 'node:child_process';
import { loadPyodide } from 'pyodide';
import { describe, expect, it } from 'vitest';
import { DOC_ENTRIES } from '../../src/env/search/index.ts';

/** Names newer than some CPython the test may meet (the machine's python3 may be 3.11). */
const SINCE: Record<string, [number, number]> = {
  'itertools.batched': [3, 12],
  'math.sumprod': [3, 12],
};

const CHECK_PY = `
import builtins, importlib, inspect, json, re, sys

def resolve(name):
    parts = name.split('.')
    obj = getattr(builtins, parts[0]) if hasattr(builtins, parts[0]) else importlib.import_module(parts[0])
    for part in parts[1:]:
        obj = getattr(obj, part)
    return obj

def written_params(signature):
    """(name, star, default, keyword_only, optional) for each parameter the signature writes."""
    inner = signature[signature.index('(') + 1 : signature.rindex(')')]
    out, depth, keyword_only = [], 0, False
    for raw in inner.split(','):
        item = raw.strip()
        lead = len(item) - len(item.lstrip('['))
        optional = depth + lead > 0
        depth += item.count('[') - item.count(']')
        item = item.replace('[', '').replace(']', '').strip()
        if item in ('', '/', '...'):
            continue
        if item == '*':
            keyword_only = True
            continue
        star = '**' if item.startswith('**') else '*' if item.startswith('*') else ''
        item = item[len(star):]
        name, eq, default = item.partition('=')
        out.append((name.strip(), star, default.strip() if eq else None, keyword_only and not star, optional))
        if star == '*':
            keyword_only = True
    return out

def check_signature(entry, obj, problems):
    try:
        real = inspect.signature(obj)
    except (ValueError, TypeError):
        return False
    params = list(real.parameters.values())
    if params and params[0].name == 'self':
        params = params[1:]
    P = inspect.Parameter
    positional = [p for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    by_name = {p.name: p for p in params}
    var_pos = any(p.kind == P.VAR_POSITIONAL for p in params)
    var_kw = any(p.kind == P.VAR_KEYWORD for p in params)
    mine = written_params(entry['signature'])
    say = lambda what: problems.append(entry['name'] + ': ' + what + ' (real: ' + str(real) + ')')
    index = 0
    for name, star, default, keyword_only, optional in mine:
        if star == '*':
            if not var_pos:
                say('*' + name + ' but no *args')
            continue
        if star == '**':
            if not var_kw:
                say('**' + name + ' but no **kwargs')
            continue
        if keyword_only:
            target = by_name.get(name)
            if target is None or target.kind == P.POSITIONAL_ONLY:
                if not var_kw:
                    say('no keyword parameter ' + name)
                continue
        else:
            if index >= len(positional):
                if not var_pos:
                    say('too many positional parameters at ' + name)
                continue
            target = positional[index]
            index += 1
            if target.kind != P.POSITIONAL_ONLY and target.name != name:
                say('parameter ' + name + ' is called ' + target.name)
                continue
        if default is not None:
            if target.default is P.empty:
                say(name + ' has no default')
            elif eval(default) != target.default:
                say(name + ' defaults to ' + repr(target.default) + ', not ' + default)
    required = [p for p in positional if p.default is P.empty]
    if index < len(required):
        say('leaves out required ' + required[index].name)
    return True

def check(data):
    entries, since = json.loads(data)
    namespace = {m: importlib.import_module(m) for m in ('math', 'statistics', 'itertools', 'collections', 'string', 're')}
    problems, skipped, with_sig, examples = [], [], 0, 0
    for entry in entries:
        name = entry['name']
        if name in since and sys.version_info < tuple(since[name]):
            skipped.append(name)
            continue
        try:
            obj = resolve(name)
        except Exception as e:
            problems.append(name + ': does not resolve (' + repr(e) + ')')
            continue
        if '(' in entry['signature']:
            if not callable(obj):
                problems.append(name + ': written as a call but not callable')
            elif check_signature(entry, obj, problems):
                with_sig += 1
        elif callable(obj):
            problems.append(name + ': callable but written without arguments')
        tick = chr(96)  # a backtick, which this TypeScript template cannot hold
        for code in re.findall(tick + '([^' + tick + ']+)' + tick, entry['summary']):
            if ' == ' not in code:
                problems.append(name + ': example is not an "expr == value" check: ' + code)
                continue
            examples += 1
            try:
                if eval(code, dict(namespace)) is not True:
                    problems.append(name + ': example is false: ' + code)
            except Exception as e:
                problems.append(name + ': example raises ' + repr(e) + ': ' + code)
    version = '.'.join(map(str, sys.version_info[:3]))
    return json.dumps({'version': version, 'problems': problems, 'skipped': skipped, 'signatures': with_sig, 'examples': examples})
`;

interface Report {
  version: string;
  problems: string[];
  skipped: string[];
  signatures: number;
  examples: number;
}

const payload = JSON.stringify([DOC_ENTRIES, SINCE]);

function expectSound(report: Report): void {
  expect(report.problems).toEqual([]);
  // Most entries must have been compared with a real signature, or the check proves little.
  expect(report.signatures).toBeGreaterThan(DOC_ENTRIES.length / 2);
  expect(report.examples).toBeGreaterThan(50);
}

describe('the documentation index', () => {
  it('has unique names, each with a signature that starts with it and a short summary', () => {
    const names = DOC_ENTRIES.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThan(150);
    for (const entry of DOC_ENTRIES) {
      expect(entry.signature.startsWith(entry.name)).toBe(true);
      expect(entry.summary).not.toContain('\n');
      expect(entry.summary.length).toBeLessThanOrEqual(260);
      expect(entry.summary).toMatch(/[.`]$/);
    }
    for (const module of ['math', 'statistics', 'itertools', 'collections', 'string', 're']) {
      expect(names.some((name) => name.startsWith(`${module}.`))).toBe(true);
    }
  });

  it('is true of Pyodide: names resolve, signatures agree, examples hold', async () => {
    const pyodide = await loadPyodide();
    pyodide.globals.set('DATA', payload);
    const report = JSON.parse(pyodide.runPython(`${CHECK_PY}\ncheck(DATA)`)) as Report;
    console.log(
      `Pyodide's Python ${report.version}: ${report.signatures} signatures and ${report.examples} examples checked`,
    );
    expect(report.skipped).toEqual([]);
    expectSound(report);
  }, 60_000);

  it('is true of the machine python3 (skipped when there is none)', (context) => {
    const run = spawnSync('python3', ['-c', `${CHECK_PY}\nprint(check(sys.stdin.read()))`], {
      input: payload,
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (run.error) {
      console.log(`python3 is not available (${run.error.message}): skipping this check`);
      context.skip();
      return;
    }
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as Report;
    console.log(
      `python3 ${report.version}: ${report.signatures} signatures and ${report.examples} examples checked, ` +
        `skipped as newer: ${report.skipped.join(', ') || 'none'}`,
    );
    expectSound(report);
  });
});
