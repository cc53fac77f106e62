# State restoration: the interpreter state at the end of the lockdown is the baseline, and after
# every program everything a program can cheaply reach is put back by identity: sys.modules, the
# dict of every baseline module (builtins and the harness included), sys.path and friends, warnings
# filters, the environment, limits, the working directory, gc, atexit and SIGINT. This is the
# baseline the judge compares against to see tampering; isolation between runs does not rest on it:
# the runner puts back a copy of the whole clean interpreter before every run (memory_image.ts).
# Defines _Baseline, _snapshot() and _restore().

import atexit, builtins, gc, operator, os, signal, sys, warnings

_is_not = operator.is_not
_MISSING = object()


class _Baseline:
    """The interpreter state every program starts from, captured at the end of the lockdown."""
    modules = {}
    dicts = []
    path = []
    meta_path = []
    path_hooks = []
    importer_cache = {}
    warning_filters = []
    environ = {}
    argv = []
    recursion_limit = 1000
    int_digits = 4300
    cwd = '/home/pyodide'


def _snapshot():
    b = _Baseline
    b.modules = dict(sys.modules)
    seen = set()
    dicts = []
    for mod in list(b.modules.values()) + [builtins]:
        d = getattr(mod, '__dict__', None)
        if type(d) is dict and id(d) not in seen:
            seen.add(id(d))
            dicts.append((d, tuple(d.keys()), tuple(d.values())))
    g = globals()
    dicts.append((g, tuple(g.keys()), tuple(g.values())))
    b.dicts = dicts
    b.path = list(sys.path)
    b.meta_path = list(sys.meta_path)
    b.path_hooks = list(sys.path_hooks)
    b.importer_cache = dict(sys.path_importer_cache)
    b.warning_filters = list(warnings.filters)
    b.environ = dict(os.environ)
    b.argv = list(sys.argv)
    b.recursion_limit = sys.getrecursionlimit()
    b.int_digits = sys.get_int_max_str_digits()
    b.cwd = os.getcwd()


def _restore_dict(d, keys, values):
    # Drop foreign keys first so their destructors run while the dict is still whole.
    wanted = set(keys)
    for key in [k for k in d if k not in wanted]:
        d.pop(key, None)
    for key, value in zip(keys, values):
        if d.get(key, _MISSING) is not value:
            d[key] = value
    if any(map(_is_not, d.keys(), keys)):
        d.clear()
        d.update(zip(keys, values))


def _restore_list(current, baseline):
    if len(current) != len(baseline) or any(map(_is_not, current, baseline)):
        current[:] = baseline


def _restore(dicts=True):
    """Puts back every piece of interpreter state a program can reach cheaply. Returns # dicts fixed.
    The judge (judge.py) puts the dicts back itself and passes dicts=False."""
    b = _Baseline
    sys.settrace(None)
    sys.setprofile(None)
    mods = sys.modules
    if len(mods) != len(b.modules) or any(map(_is_not, map(mods.get, b.modules), b.modules.values())):
        for name in [n for n in mods if n not in b.modules]:
            del mods[name]
        for name, mod in b.modules.items():
            if mods.get(name, _MISSING) is not mod:
                mods[name] = mod
    fixed = 0
    for d, keys, values in (b.dicts if dicts else ()):
        if len(d) != len(keys) or any(map(_is_not, d.values(), values)) or any(map(_is_not, d.keys(), keys)):
            _restore_dict(d, keys, values)
            fixed += 1
    _restore_list(sys.path, b.path)
    _restore_list(sys.meta_path, b.meta_path)
    _restore_list(sys.path_hooks, b.path_hooks)
    _restore_list(sys.argv, b.argv)
    cache = sys.path_importer_cache
    if len(cache) != len(b.importer_cache) or any(map(_is_not, map(cache.get, b.importer_cache), b.importer_cache.values())):
        cache.clear()
        cache.update(b.importer_cache)
    if len(warnings.filters) != len(b.warning_filters) or any(map(_is_not, warnings.filters, b.warning_filters)):
        warnings.filters[:] = b.warning_filters
        mutated = getattr(warnings, '_filters_mutated_lock_held', None) or getattr(warnings, '_filters_mutated', None)
        if mutated is not None:
            try:
                mutated()
            except Exception:
                pass
    if os.environ != b.environ:
        os.environ.clear()
        os.environ.update(b.environ)
    if sys.getrecursionlimit() != b.recursion_limit:
        sys.setrecursionlimit(b.recursion_limit)
    if sys.get_int_max_str_digits() != b.int_digits:
        sys.set_int_max_str_digits(b.int_digits)
    if os.getcwd() != b.cwd:
        os.chdir(b.cwd)
    if not gc.isenabled():
        gc.enable()
    if gc.callbacks:
        gc.callbacks.clear()
    if atexit._ncallbacks():
        atexit._clear()
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    monitoring = getattr(sys, 'monitoring', None)
    if monitoring is not None:
        for tool in range(6):
            if monitoring.get_tool(tool) is not None:
                monitoring.clear_tool_id(tool)
                monitoring.free_tool_id(tool)
    return fixed
