"""Cells that would run code, touch files, spawn, read stdin, import or connect if evaluated.

Every payload is generated from tables: an action (the bad thing), the form the callable
doing it travels in, and the path the checker evaluates (a sort key, a mapper, a numpy
callable factory, a format string, a pickle, a user function it walks, ...). The names the
payloads use (MARK, SENT, ADDR, ...) are bound in the kernel by `SETUP`.
"""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass

# Bound in the kernel before any check. Every side effect the payloads aim at is watched:
# MARK must never appear, SENT and VDIR never vanish, nothing connects to ADDR, and AUDIT
# (filled by an audit hook and by a wrapped raw_input) stays empty.
SETUP = r"""
import builtins, functools, io, operator, os, pathlib, pickle, shutil, socket, subprocess, sys
import time, importlib, re, collections, itertools, heapq
import numpy as np
import pandas as pd

SANDBOX = {sandbox!r}
MARK = os.path.join(SANDBOX, "mark")
SENT = os.path.join(SANDBOX, "sentinel")
VDIR = os.path.join(SANDBOX, "victim_dir")
PICKLE_PATH = os.path.join(SANDBOX, "evil.pkl")
NPY_PATH = os.path.join(SANDBOX, "evil.npy")
ADDR = ("127.0.0.1", {port})
CMD = "touch " + MARK
ARGV = ["touch", MARK]
CODE = "open(MARK, 'w').close()"
EVIL_PICKLE = {evil_pickle!r}
AUDIT = []
WATCHED = frozenset(
    "os.system os.remove os.rename os.rmdir os.mkdir os.chdir os.kill os.putenv os.exec "
    "os.posix_spawn os.spawn os.fork os.forkpty subprocess.Popen socket.connect "
    "builtins.input pickle.find_class shutil.rmtree shutil.copyfile webbrowser.open".split()
)
BAIT = frozenset("colorsys wave tabnanny mailbox ftplib".split())

TWIN_FORKS = []

def _is_twin_fork(caller):
    return caller.f_code.co_name == "start_request" and "twin" in caller.f_globals.get("__name__", "")

def _audit(event, args, _log=AUDIT, _watched=WATCHED, _bait=BAIT, _box=SANDBOX):
    try:
        if event == "os.fork" and _is_twin_fork(sys._getframe(1)):
            TWIN_FORKS.append(1)  # the dry run's own fork: the payload then runs sealed
        elif event in _watched:
            _log.append((event, repr(args)[:200]))
        elif event == "open" and _box in str(args[0]) and not str(args[0]).endswith(".py"):
            _log.append((event, repr(args)[:200]))
        elif event == "import" and args[0] in _bait:
            _log.append((event, args[0]))
    except Exception:
        pass

sys.addaudithook(_audit)
_kernel = get_ipython().kernel
_raw_input = _kernel.raw_input
def _watched_input(prompt="", _log=AUDIT, _inner=_raw_input):
    _log.append(("input", prompt))
    return _inner(prompt)
_kernel.raw_input = _watched_input
del _kernel

s = pd.Series(["a", "b"])
df = pd.DataFrame({{"a": [1, 2], "b": [3, 4]}})
arr = np.arange(3.0)

def relay(f, v):
    return f(v)

def _trip(dunder):
    AUDIT.append(("dunder", dunder))
    open(MARK, "w").close()

class Dunders:
    def __getitem__(self, key): _trip("getitem"); return 1
    def __len__(self): _trip("len"); return 1
    def __iter__(self): _trip("iter"); return iter([1, 2])
    def __eq__(self, other): _trip("eq"); return True
    def __lt__(self, other): _trip("lt"); return True
    def __hash__(self): _trip("hash"); return 1
    def __bool__(self): _trip("bool"); return True
    def __repr__(self): _trip("repr"); return "Trap"
    def __str__(self): _trip("str"); return "Trap"
    def __format__(self, spec): _trip("format"); return "Trap"
    def __add__(self, other): _trip("add"); return 1
    def __radd__(self, other): _trip("radd"); return 1
    def __neg__(self): _trip("neg"); return 1
    def __call__(self, *args): _trip("call"); return 1
    def __index__(self): _trip("index"); return 0
    def __float__(self): _trip("float"); return 1.0
    def __enter__(self): _trip("enter"); return self
    def __exit__(self, *exc): _trip("exit"); return False
    def __array__(self, dtype=None, copy=None): _trip("array"); return np.zeros(1)
    def __deepcopy__(self, memo): _trip("deepcopy"); return self
    def __reduce_ex__(self, protocol): _trip("reduce"); return (Trap, ())
    def keys(self): _trip("keys"); return ["k"]

class Trap(Dunders):
    def __getattr__(self, name): _trip("getattr"); return 1

trap = Trap()
plain = Dunders()

class Sly:
    # Every attribute read, even __class__ (isinstance reads it), runs its code.
    def __getattribute__(self, name): _trip("getattribute"); return object.__getattribute__(self, name)
    @property
    def __class__(self): _trip("class"); return Sly
    def __call__(self, *args): _trip("call"); return 1
    def __len__(self): _trip("len"); return 1

sly = Sly()

class Meta(type):
    def __getattr__(cls, name): _trip("meta-getattr"); raise AttributeError(name)
    def __call__(cls, *args): _trip("meta-call"); return 1
    def __instancecheck__(cls, obj): _trip("meta-instancecheck"); return True
    def __len__(cls): _trip("meta-len"); return 1
    def __iter__(cls): _trip("meta-iter"); return iter([1])
    def __eq__(cls, other): _trip("meta-eq"); return True
    def __hash__(cls): return 1

class Shape(metaclass=Meta):
    pass

# Library containers holding them (object dtype).
tser = pd.Series([plain, plain], dtype=object)
tsly = pd.Series([sly, trap], dtype=object)
tdf = pd.DataFrame({{"o": [plain, plain], "n": [1, 2]}})
tarr = np.empty(2, dtype=object)  # np.array([...]) would call their __array__
tarr[0], tarr[1] = plain, plain
tarr_sly = np.empty(2, dtype=object)
tarr_sly[0], tarr_sly[1] = sly, trap

box = [trap, sly, plain]
cabinet = {{"k": trap, "s": sly, "p": plain}}
"""


@dataclass(frozen=True)
class Action:
    """A bad thing: as an expression, and as a callable applied to one argument."""

    name: str
    code: str  # an expression doing it
    builtin: str  # a library/builtin callable doing it when called with `arg`
    arg: str


ACTIONS = [
    Action("create", "open(MARK, 'w')", "functools.partial(open, mode='w')", "MARK"),
    Action("delete", "os.remove(SENT)", "os.remove", "SENT"),
    Action("rmtree", "shutil.rmtree(VDIR)", "shutil.rmtree", "VDIR"),
    Action("system", "os.system(CMD)", "os.system", "CMD"),
    Action("spawn", "subprocess.run(ARGV)", "subprocess.run", "ARGV"),
    Action("popen", "os.popen(CMD).read()", "os.popen", "CMD"),
    Action("import", "__import__('colorsys')", "__import__", "'colorsys'"),
    Action("import-module", "importlib.import_module('wave')", "importlib.import_module", "'wave'"),
    Action("network", "socket.create_connection(ADDR)", "socket.create_connection", "ADDR"),
    Action("stdin", "input('? ')", "input", "'? '"),
    Action("exec", "exec(CODE)", "exec", "CODE"),
    Action("eval", "eval(CODE)", "eval", "CODE"),
    Action("sleep", "time.sleep(20)", "time.sleep", "20"),
]


def callable_forms(action: Action) -> dict[str, tuple[str, str]]:
    """Form name -> (callable expression, data list expression)."""
    return {
        "lambda": (f"(lambda *v: {action.code})", f"[{action.arg}]"),
        "builtin": (action.builtin, f"[{action.arg}]"),
        "kernel-function": (f"do_{action.name.replace('-', '_')}", f"[{action.arg}]"),
    }


def kernel_functions() -> str:
    """Setup lines defining, per action, a notebook function whose body does it."""
    return "\n".join(
        f"def do_{a.name.replace('-', '_')}(*v):\n    return {a.code}\n" for a in ACTIONS
    )


# Paths the checker evaluates: each builds a cell from (callable FN, data list DATA).
PATHS: dict[str, str] = {
    "sorted-key": "sorted({DATA}, key={FN})",
    "max-key": "max({DATA}, key={FN})",
    "min-key": "min({DATA}, key={FN})",
    "map": "list(map({FN}, {DATA}))",
    "filter": "list(filter({FN}, {DATA}))",
    "series-map": "pd.Series({DATA}).map({FN})",
    "series-apply": "pd.Series({DATA}).apply({FN})",
    "series-agg": "pd.Series({DATA}).agg({FN})",
    "series-transform": "pd.Series({DATA}).transform({FN})",
    "series-pipe": "pd.Series({DATA}).pipe({FN})",
    "series-rename": "pd.Series([1], index={DATA}).rename({FN})",
    "frame-apply": "pd.DataFrame({{'c': {DATA}}}).apply({FN}, axis=1)",
    "frame-applymap": "pd.DataFrame({{'c': {DATA}}}).applymap({FN})",
    "frame-map": "pd.DataFrame({{'c': {DATA}}}).map({FN})",
    "frame-rename-columns": "pd.DataFrame([[1]], columns={DATA}).rename(columns={FN})",
    "groupby-apply": "pd.DataFrame({{'k': [1], 'v': {DATA}}}).groupby('k')['v'].apply({FN})",
    "groupby-agg": "pd.DataFrame({{'k': [1], 'v': {DATA}}}).groupby('k').agg({FN})",
    "np-vectorize": "np.vectorize({FN})(np.array({DATA}, dtype=object))",
    "np-frompyfunc": "np.frompyfunc({FN}, 1, 1)(np.array({DATA}, dtype=object))",
    "np-apply-along-axis": "np.apply_along_axis({FN}, 0, np.array({DATA}, dtype=object))",
    "np-piecewise": "np.piecewise(np.zeros(1), [np.ones(1, bool)], [{FN}])",
    "np-fromfunction": "np.fromfunction({FN}, (1,))",
    "functools-partial": "functools.partial({FN}, {DATA}[0])()",
    "functools-reduce": "functools.reduce(lambda acc, v: {FN}(v), {DATA}, 0)",
    "methodcaller": "operator.methodcaller('__call__', {DATA}[0])({FN})",
    "alias": "f = {FN}\nf({DATA}[0])",
    "container-alias": "fs = {{'k': {FN}}}\nfs['k']({DATA}[0])",
    "direct": "({FN})({DATA}[0])",
    "list-comprehension": "[({FN})(v) for v in {DATA}]",
    "generator": "list(({FN})(v) for v in {DATA})",
    "generator-function": (
        "def gen():\n    for v in {DATA}:\n        yield ({FN})(v)\nout = list(gen())"
    ),
    "cell-function": "def go(v):\n    return ({FN})(v)\nresult = go({DATA}[0])",
    "kernel-function-relay": "relay({FN}, {DATA}[0])",
    "fstring": "f'{{({FN})({DATA}[0])}}'",
    "str-format-arg": "'{{}}'.format(({FN})({DATA}[0]))",
    "series-sort-values-key": "pd.Series({DATA}).sort_values(key={FN})",
    "frame-sort-values-key": "pd.DataFrame({{'c': {DATA}}}).sort_values('c', key={FN})",
    "frame-assign-callable": "pd.DataFrame({{'c': {DATA}}}).assign(d={FN})",
    "loc-callable": "pd.Series({DATA}).loc[{FN}]",
    "iloc-callable": "pd.Series({DATA}).iloc[{FN}]",
    "frame-getitem-callable": "pd.DataFrame({{'c': {DATA}}})[{FN}]",
    "series-where-callable": "pd.Series({DATA}).where({FN})",
    "series-mask-callable": "pd.Series({DATA}).mask({FN})",
    "series-agg-list": "pd.Series({DATA}).agg([{FN}])",
    "series-agg-kwarg": "pd.Series({DATA}).aggregate(func={FN})",
    "frame-agg-dict": "pd.DataFrame({{'c': {DATA}}}).agg({{'c': {FN}}})",
    "groupby-by-callable": "pd.Series([1], index={DATA}).groupby({FN}).sum()",
    "series-combine": "pd.Series({DATA}).combine(pd.Series({DATA}), lambda a, b: ({FN})(a))",
    "str-replace-callable": "pd.Series(['x']).str.replace('x', {FN}, regex=True)",
    "re-sub-callable": "re.sub('x', {FN}, 'x')",
    "defaultdict-factory": "collections.defaultdict({FN})['missing']",
    "itertools-starmap": "list(itertools.starmap({FN}, [(v,) for v in {DATA}]))",
    "itertools-groupby": "list(itertools.groupby({DATA}, key={FN}))",
    "heapq-nsmallest": "heapq.nsmallest(1, {DATA}, key={FN})",
    "cmp-to-key": "sorted({DATA} * 2, key=functools.cmp_to_key(lambda a, b: ({FN})(a) or 0))",
    "dict-get-default-call": "{{}}.get('k', ({FN})({DATA}[0]))",
}

# Classes defined in the cell whose dunders do the bad thing, and the operation reaching them.
DUNDER_PATHS: dict[str, tuple[str, str]] = {
    "init": ("__init__(self)", "K()"),
    "len": ("__len__(self)", "len(K())"),
    "eq": ("__eq__(self, other)", "K() == 1"),
    "lt": ("__lt__(self, other)", "sorted([K(), K()])"),
    "hash": ("__hash__(self)", "{K()}"),
    "iter": ("__iter__(self)", "list(K())"),
    "bool": ("__bool__(self)", "x = 1 if K() else 2"),
    "format": ("__format__(self, spec)", "f'{K()}'"),
    "getattr": ("__getattr__(self, name)", "K().anything"),
    "index": ("__index__(self)", "[1, 2][K()]"),
}

# Operations on live kernel objects whose dunders do the bad thing (templates over {T}).
TRAPS = {
    "trap": "trap",
    "plain": "plain",
    "list-item-plain": "box[2]",
    "dict-item-plain": "cabinet['p']",
    "sly": "sly",
    "meta": "Shape",
    "list-item": "box[0]",
    "list-item-sly": "box[1]",
    "dict-item": "cabinet['k']",
    "dict-item-sly": "cabinet['s']",
}
TRAP_CELLS: dict[str, str] = {
    "len": "len({T})",
    "eq": "{T} == 1",
    "sorted": "sorted([{T}, {T}])",
    "str": "str({T})",
    "repr": "repr({T})",
    "fstring": "f'{{{T}}}'",
    "fstring-repr": "f'{{{T}!r}}'",
    "format-attr": "'{{0.boom}}'.format({T})",
    "format-item": "'{{0[k]}}'.format({T})",
    "format-spec": "'{{0:>10}}'.format({T})",
    "format-class": "'{{0.__class__}}'.format({T})",
    "format-map": "'{{k}}'.format_map({T})",
    "percent": "'%s' % {T}",
    "attribute": "{T}.anything",
    "item": "{T}[0]",
    "list": "list({T})",
    "if": "x = 1 if {T} else 2",
    "hash": "hash({T})",
    "add": "{T} + 1",
    "radd": "1 + {T}",
    "neg": "-{T}",
    "call": "{T}()",
    "index": "[1, 2][{T}]",
    "float": "float({T})",
    "np-array": "np.array({T})",
    "series": "pd.Series({T})",
    "frame-getitem": "df[{T}]",
    "ndarray-getitem": "arr[{T}]",
    "deepcopy": "__import__('copy').deepcopy({T})",
    "pickle-dumps": "pickle.dumps({T})",
    "with": "with {T}:\n    pass",
    "for": "for v in {T}:\n    pass",
    "unpack": "a, b = {T}",
    "dict-kwargs": "dict(**{T})",
    "sort-key": "sorted([1, 2], key={T})",
    "series-map": "s.map({T})",
    "vectorize": "np.vectorize({T})([1])",
    "isinstance-of": "isinstance({T}, pd.DataFrame)",
    "isinstance-by": "isinstance(1, {T})",
    "in-list": "[{T}, 1].index(1)",
    "seed": "np.random.default_rng({T})",
    "seeded-draw": "np.random.default_rng(0).choice({T})",
    "seeded-size": "np.random.RandomState(0).normal(size={T})",
    # a first import: the cell is packed for a helper interpreter (pickles of what it reads)
    "first-import": "from sklearn.cluster import KMeans\nKMeans(2).fit({T})",
    "first-import-list": "import sklearn.svm\nsklearn.svm.SVC().fit([{T}], [1])",
}


class Reduce:
    def __init__(self, func: object, args: tuple[object, ...]) -> None:
        self.func, self.args = func, args

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (self.func, self.args)


# Operations on library containers (object dtype) whose elements' dunders act.
HOLDERS = {"series": "tser", "series-sly": "tsly", "array": "tarr", "array-sly": "tarr_sly"}
HOLDER_CELLS: dict[str, str] = {
    "sort": "{H}.sort_values() if hasattr({H}, 'sort_values') else np.sort({H})",
    "np-sort": "np.sort({H})",
    "sorted": "sorted({H})",
    "unique": "pd.unique({H})",
    "eq": "{H} == 1",
    "add": "{H} + 1",
    "sum": "{H}.sum()",
    "max": "{H}.max()",
    "str": "str({H})",
    "repr": "repr({H})",
    "astype-str": "{H}.astype(str)",
    "tolist-sorted": "sorted({H}.tolist())",
    "isin": "pd.Series({H}).isin([1])",
    "value-counts": "pd.Series({H}).value_counts()",
    "describe": "pd.Series({H}).describe()",
    "frame": "pd.DataFrame({{'o': {H}}}).sort_values('o')",
    "argsort": "np.argsort({H})",
    "set": "set({H})",
    "in": "1 in {H}",
    "deepcopy": "__import__('copy').deepcopy({H})",
}
FRAME_CELLS: dict[str, str] = {
    "frame-sort": "tdf.sort_values('o')",
    "frame-groupby": "tdf.groupby('o').size()",
    "frame-drop-duplicates": "tdf.drop_duplicates()",
    "frame-eq": "tdf == 1",
    "frame-describe": "tdf.describe(include='all')",
    "frame-str": "str(tdf)",
    "frame-column-max": "tdf['o'].max()",
    "frame-merge": "tdf.merge(tdf, on='o')",
    "frame-pivot": "tdf.pivot_table(index='o', values='n')",
    "frame-set-index": "tdf.set_index('o').sort_index()",
}


def evil_pickle(sandbox: str) -> bytes:
    """A pickle whose loading creates the marker file (through os.system)."""
    return pickle.dumps(Reduce(os.system, ("touch " + os.path.join(sandbox, "mark"),)))


def evil_pickles(sandbox: str) -> dict[str, bytes]:
    mark = os.path.join(sandbox, "mark")
    sentinel = os.path.join(sandbox, "sentinel")
    return {
        "system": evil_pickle(sandbox),
        "exec": pickle.dumps(Reduce(exec, (f"open({mark!r}, 'w')",))),
        "remove": pickle.dumps(Reduce(os.remove, (sentinel,))),
        "eval": pickle.dumps(Reduce(eval, (f"__import__('os').remove({sentinel!r})",))),
    }


def pickle_cells(sandbox: str) -> dict[str, str]:
    cells: dict[str, str] = {}
    for name, data in evil_pickles(sandbox).items():
        cells[f"pickle-loads-{name}"] = f"obj = pickle.loads({data!r})"
        cells[f"read-pickle-bytesio-{name}"] = f"obj = pd.read_pickle(io.BytesIO({data!r}))"
    cells.update(
        {
            "pickle-loads-kernel-bytes": "obj = pickle.loads(EVIL_PICKLE)",
            "pickle-load-file": "obj = pickle.load(open(PICKLE_PATH, 'rb'))",
            "read-pickle-path": "obj = pd.read_pickle(PICKLE_PATH)",
            "np-load-allow-pickle": "obj = np.load(NPY_PATH, allow_pickle=True)",
            "pickle-unpickler": "obj = pickle.Unpickler(io.BytesIO(EVIL_PICKLE)).load()",
            "series-map-loads": "pd.Series([EVIL_PICKLE]).map(pickle.loads)",
            "sorted-key-loads": "sorted([EVIL_PICKLE], key=pickle.loads)",
        }
    )
    return cells


# Direct calls and builtins travelling under other names.
DIRECT_CELLS: dict[str, str] = {
    "os-system": "os.system(CMD)",
    "subprocess-run": "subprocess.run(ARGV)",
    "subprocess-popen": "subprocess.Popen(ARGV)",
    "subprocess-check-output": "subprocess.check_output(ARGV)",
    "os-popen": "os.popen(CMD).read()",
    "open-w": "open(MARK, 'w')",
    "open-x": "open(MARK, 'x')",
    "open-a": "f = open(MARK, 'a')",
    "io-open": "io.open(MARK, 'w')",
    "os-open": "os.open(MARK, os.O_CREAT | os.O_WRONLY)",
    "os-remove": "os.remove(SENT)",
    "os-unlink": "os.unlink(SENT)",
    "os-rename": "os.rename(SENT, MARK)",
    "path-unlink": "pathlib.Path(SENT).unlink()",
    "path-touch": "pathlib.Path(MARK).touch()",
    "path-write-text": "pathlib.Path(MARK).write_text('x')",
    "shutil-rmtree": "shutil.rmtree(VDIR)",
    "shutil-copy": "shutil.copy(SENT, MARK)",
    "os-mkdir": "os.mkdir(MARK)",
    "os-chdir": "os.chdir(VDIR)",
    "np-save": "np.save(MARK, arr)",
    "np-savetxt": "np.savetxt(MARK, arr)",
    "ndarray-tofile": "arr.tofile(MARK)",
    "to-csv": "df.to_csv(MARK)",
    "to-pickle": "s.to_pickle(MARK)",
    "input": "name = input('name? ')",
    "stdin-readline": "line = sys.stdin.readline()",
    "socket-create-connection": "socket.create_connection(ADDR)",
    "socket-connect": "socket.socket().connect(ADDR)",
    "dunder-import": "m = __import__('colorsys')",
    "importlib": "m = importlib.import_module('wave')",
    "import-statement": "import tabnanny",
    "from-import": "from mailbox import mbox",
    "exec": "exec(CODE)",
    "eval": "eval(CODE)",
    "compile-exec": "exec(compile(CODE, 'x', 'exec'))",
    "builtins-exec": "builtins.exec(CODE)",
    "alias-exec": "f = exec\nf(CODE)",
    "getattr-builtins": "getattr(__builtins__, 'ex' + 'ec')(CODE)",
    "vars-builtins": "vars(__builtins__)['eval'](CODE)",
    "builtins-dict": "builtins.__dict__['exec'](CODE)",
    "getattr-os": "getattr(os, 'sys' + 'tem')(CMD)",
    "attrgetter-os": "operator.attrgetter('system')(os)(CMD)",
    "methodcaller-os": "operator.methodcaller('system', CMD)(os)",
    "methodcaller-remove": "operator.methodcaller('remove', SENT)(os)",
    "partial-system": "functools.partial(os.system, CMD)()",
    "partial-exec": "functools.partial(exec, CODE)()",
    "reduce-system": "functools.reduce(lambda a, b: os.system(b), [CMD], 0)",
    "lambda-called": "(lambda: exec(CODE))()",
    "str-format-class": "'{0.__class__}'.format(s)",
    "format-globals": "'{0.__globals__[os].system}'.format(relay)",
    "format-map": "'{x}'.format_map({'x': exec(CODE)})",
    "fstring-exec": "f'{exec(CODE)}'",
    "fstring-open": "f'{open(MARK, \"w\")}'",
    "df-eval": "df.eval('a + b')",
    "df-query": "df.query('a > @os.system(CMD)')",
    "pd-eval": "pd.eval('os.system(CMD)')",
    "sleep": "time.sleep(20)",
    "sorted-time-sleep": "sorted([20], key=time.sleep)",
}


def dunder_cell(action: Action, dunder: str) -> str:
    signature, use = DUNDER_PATHS[dunder]
    body = f"        {action.code}\n"
    returns = {
        "len": "        return 1\n",
        "eq": "        return True\n",
        "lt": "        return True\n",
        "hash": "        return 1\n",
        "iter": "        return iter([1])\n",
        "bool": "        return True\n",
        "format": "        return ''\n",
        "getattr": "        return 1\n",
        "index": "        return 0\n",
    }.get(dunder, "")
    return f"class K:\n    def {signature}:\n{body}{returns}{use}"


def all_payloads(sandbox: str) -> list[tuple[str, str]]:
    """(id, cell) for every payload."""
    out: list[tuple[str, str]] = []
    for action in ACTIONS:
        for form, (fn, data) in callable_forms(action).items():
            for path, template in PATHS.items():
                out.append((f"{path}-{form}-{action.name}", template.format(FN=fn, DATA=data)))
        for dunder in DUNDER_PATHS:
            out.append((f"class-{dunder}-{action.name}", dunder_cell(action, dunder)))
        out.append((f"kernel-function-{action.name}", f"do_{action.name.replace('-', '_')}()"))
    for trap, expression in TRAPS.items():
        for name, template in TRAP_CELLS.items():
            out.append((f"trap-{trap}-{name}", template.format(T=expression)))
    for holder, expression in HOLDERS.items():
        for name, template in HOLDER_CELLS.items():
            out.append((f"trap-holder-{holder}-{name}", template.format(H=expression)))
    for name, cell in FRAME_CELLS.items():
        out.append((f"trap-holder-{name}", cell))
    for name, cell in pickle_cells(sandbox).items():
        out.append((name, cell))
    for name, cell in DIRECT_CELLS.items():
        out.append((name, cell))
    return out
