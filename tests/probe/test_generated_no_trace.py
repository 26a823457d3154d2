"""Generated no-trace test: thousands of mutating cells are checked, and nothing in the kernel moves.

A real kernel holds frames (with `attrs` holding a recording object; polars and Dask ones
too, whose every collect and compute counts), arrays (incl. object arrays of recording
objects), tensors, in-place layers, BatchNorm, Dropout, estimators fitted and not,
containers, a generator, an open file, RNGs and objects whose dunders count calls.
Seeded cells of in-place and mutating library calls are checked through the real probe path.
A fingerprint of everything (buffer hashes, RNG states, positions, pyplot state, sys.modules,
warnings filters, cwd, history, execution count, dunder counters) is compared every BATCH
cells; on a difference the batch is replayed cell by cell and the guilty cell is printed.
"""

from __future__ import annotations

import ast
import json
import random
import time
from typing import Any

import pytest

from tests.conftest import RunningKernel
from tests.probe.kernel_probe import _request, history, run_probe

pytestmark = pytest.mark.kernel

CELLS = int(__import__("os").environ.get("CRANE_NO_TRACE_CELLS", "1500"))
BATCH = 30
SEED = 20261202

SETUP = r'''
import io, os, random, sys, warnings, hashlib, pickle, tempfile
import zmq.utils.garbage  # pyzmq loads it for the first large reply (this test's own state)
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.linear_model import LinearRegression, SGDClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import train_test_split
import polars as pl
import dask
import dask.base
import dask.dataframe as dd

COUNTS = {}

def _count(name):
    COUNTS[name] = COUNTS.get(name, 0) + 1

class Rec:
    """Every dunder the probe must never call counts its calls."""
    def __init__(self, v=1): self.__dict__["v"] = v
    def __getattr__(self, name): _count("getattr"); raise AttributeError(name)
    def __deepcopy__(self, memo): _count("deepcopy"); return self
    def __copy__(self): _count("copy"); return self
    def __repr__(self): _count("repr"); return "Rec"
    def __str__(self): _count("str"); return "Rec"
    def __format__(self, spec): _count("format"); return "Rec"
    def __len__(self): _count("len"); return 1
    def __iter__(self): _count("iter"); return iter([1])
    def __add__(self, other): _count("add"); return self
    def __radd__(self, other): _count("radd"); return self
    def __eq__(self, other): _count("eq"); return False
    def __lt__(self, other): _count("lt"); return False
    def __hash__(self): return 1
    def __bool__(self): _count("bool"); return True
    def __array__(self, dtype=None, copy=None): _count("array"); return np.zeros(1)
    def __float__(self): _count("float"); return 1.0
    def __index__(self): _count("index"); return 0
    def __reduce_ex__(self, protocol): _count("reduce"); return (Rec, ())

class Meta(type):
    def __getattr__(cls, name): _count("metagetattr"); raise AttributeError(name)

class WithMeta(metaclass=Meta):
    pass

rec = Rec()
df = pd.DataFrame({"a": [1.0, -2.0, 3.0, None], "b": ["x", "y", "z", "x"],
                   "c": pd.date_range("2024-01-01", periods=4), "d": [1, 2, 3, 4]})
df.attrs["rec"] = rec
big = pd.DataFrame({"a": np.arange(5000.0), "b": ["q"] * 5000})
big.attrs["rec"] = rec
s = pd.Series(["p", "q", None, "r"])
ts = pd.Series(pd.date_range("2024-01-01", periods=5, freq="h"))
ser = pd.Series([3.0, 1.0, 2.0], name="num")
ser.attrs["rec"] = rec
arr = np.array([-1.0, 2.0, -3.0, 4.0])
iarr = np.arange(12).reshape(3, 4)
m2 = np.ones((4, 3))
oarr = np.array([1] * 55 + [Rec() for _ in range(5)], dtype=object)
parr = np.array([1, "a", 2.5], dtype=object)
t = torch.tensor([-1.0, 2.0, -3.0])
t2 = torch.randn(4, 3)
tbig = torch.randn(3_000_000)
tg = torch.ones(3, requires_grad=True)
relu = nn.ReLU(inplace=True)
bn = nn.BatchNorm1d(3)
drop = nn.Dropout(0.5)
lin = nn.Linear(3, 3)
seq = nn.Sequential(nn.Linear(3, 3), nn.ReLU(inplace=True), nn.BatchNorm1d(3))
opt = torch.optim.SGD(lin.parameters(), lr=0.1)
X = np.random.RandomState(0).rand(20, 3)
y = np.arange(20) % 2
lr = LinearRegression().fit(X, y)
sgd = SGDClassifier(max_iter=5, tol=None).fit(X, y)
scaler = StandardScaler()
lst = [3, 1, 2]
dct = {"a": 1, "b": 2}
st = {1, 2, 3}
def _gen():
    for i in range(10**6):
        _count("gen")
        yield i
gen = _gen()
_path = os.path.join(tempfile.mkdtemp(), "data.txt")
with open(_path, "w") as _w:
    _w.write("line1\nline2\nline3\n")
fh = open(_path)
rnd = random.Random(5)
g = np.random.default_rng(7)
pdf = pl.DataFrame({"a": [1.0, -2.0, 3.0, None], "b": ["x", "y", "z", "x"]})
plz = pdf.lazy().with_columns(c=pl.col("a") * 2)
ddf = dd.from_pandas(df[["a", "b", "d"]], npartitions=2)

def _counting(name, original):
    def counted(*args, **kwargs):
        _count(name)
        return original(*args, **kwargs)
    return counted

# frames beyond pandas: every collect and compute counts (a check must never run one)
pl.LazyFrame.collect = _counting("collect", pl.LazyFrame.collect)
pl.collect_all = _counting("collect", pl.collect_all)
dask.base.compute = _counting("compute", dask.base.compute)
dask.compute = dask.base.compute
random.seed(1); np.random.seed(1); torch.manual_seed(1)
plt.figure()

def _h(*parts):
    digest = hashlib.sha1()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else repr(part).encode())
    return digest.hexdigest()[:16]

def _frame_hash(frame):
    cols = []
    for i in range(frame.shape[1]):
        col = frame._mgr.iget(i) if hasattr(frame._mgr, "iget") else None
        cols.append(repr(np.asarray(col.array if hasattr(col, "array") else col, dtype=object).tolist()))
    return _h(cols, list(frame.columns), list(frame.index), sorted(frame.attrs), id(frame.attrs.get("rec")))

def _series_hash(series):
    values = series._mgr.array if hasattr(series._mgr, "array") else series._mgr.internal_values()
    return _h(repr(np.asarray(values, dtype=object).tolist()), list(series.index), series.name, sorted(series.attrs))

def _module_hash(module):
    return _h(*[v.detach().numpy().tobytes() for v in module.state_dict().values()], module.training,
              [(k, v.training) for k, v in module.named_modules()])

def _nt_state():
    """What a check must leave exactly as it was."""
    parts = {
        "df": _frame_hash(df), "big": _frame_hash(big), "s": _series_hash(s),
        "ts": _series_hash(ts), "ser": _series_hash(ser),
        "arr": _h(arr.tobytes(), arr.shape), "iarr": _h(iarr.tobytes(), iarr.shape),
        "m2": _h(m2.tobytes()),
        "oarr": _h([id(v) for v in oarr.tolist()]), "parr": _h([id(v) for v in parr.tolist()]),
        "t": _h(t.numpy().tobytes(), t.shape), "t2": _h(t2.numpy().tobytes()),
        "tbig": _h(tbig.numpy().tobytes()), "tg": _h(tg.detach().numpy().tobytes(), tg.grad is None),
        "relu": relu.inplace, "bn": _module_hash(bn), "drop": _module_hash(drop),
        "lin": _module_hash(lin), "seq": _module_hash(seq), "opt": _h(repr(opt.state_dict())),
        "X": _h(X.tobytes()), "y": _h(y.tobytes()),
        "lr": _h(pickle.dumps(lr)), "sgd": _h(pickle.dumps(sgd)), "scaler": _h(sorted(vars(scaler))),
        "lst": repr(lst), "dct": repr(dct), "st": repr(sorted(st)),
        "gen": COUNTS.get("gen", 0), "fh": fh.tell(),
        "random": _h(random.getstate()), "np.random": _h(repr(np.random.get_state(legacy=False))),
        "torch.random": _h(torch.get_rng_state().numpy().tobytes()),
        "rnd": _h(rnd.getstate()), "g": _h(repr(g.bit_generator.state)),
        "figures": plt.get_fignums(), "rc": _h(sorted((k, repr(v)) for k, v in plt.rcParams.items())),
        "backend": matplotlib.get_backend(),
        "modules": sorted(k for k in sys.modules if not k.startswith("_crane_probe")),
        "warnings": _h(repr(warnings.filters)), "cwd": os.getcwd(),
        "in": len(In), "out": len(Out), "count": get_ipython().execution_count,
        "counts": dict(COUNTS),
        "pdf": _h(pdf.schema, pdf.shape, pdf.to_dicts()), "plz": _h(plz.explain(optimized=False)),
        "ddf": _h(ddf._name, list(ddf.columns), ddf.npartitions, repr(ddf.dtypes.to_dict())),
        "names": sorted(k for k in globals() if not k.startswith("_")),
    }
    return parts
'''

FRAMES = ["df", "big"]
SERIES = ["s", "ts", "ser"]
ARRAYS = ["arr", "iarr", "m2"]
TENSORS = ["t", "t2", "tbig", "tg"]
MODULES = ["relu", "bn", "drop", "lin", "seq"]
ESTIMATORS = ["lr", "sgd", "scaler"]

TEMPLATES: dict[str, list[str]] = {
    "frame": [
        "{f}.drop(columns=['a'], inplace=True)",
        "{f}.fillna(0, inplace=True)",
        "{f}.sort_values('a', inplace=True)",
        "{f}['a'] = 0",
        "{f}.loc[0, 'a'] = 5",
        "{f}.iloc[0, 0] = 1",
        "{f}['a'] += 1",
        "{f}.insert(0, 'z', 1)",
        "{f}.pop('a')",
        "{f}.update({f} * 2)",
        "{f}.rename(columns={{'a': 'q'}}, inplace=True)",
        "{f}.reset_index(inplace=True)",
        "{f}.set_index('a', inplace=True)",
        "x = {f}.copy()\nx['a'] = 1",
        "v = {f}.head()\nv.iloc[0, 0] = 9",
        "{f}.attrs['k'] = 1",
        "{f}.describe()",
        "{f}.merge({f}, on='a')",
        "{f}.plot()",
        "{f}.sample(2)",
        "{f}.groupby('b').sum()",
        "{f}['a'].mean()",
        "{f}.a.clip(0, 1)",
        "{f}[{f}['a'] > 0]",
        "{f}.dropna(inplace=True)",
        "{f}.replace(1.0, 2.0, inplace=True)",
        "{f}.where({f} > 0)",
        "{f}.info()",
        "{f}.to_dict()",
        "{f}.values[0] = 0",
        "{f}.to_numpy()[0] = 0",
        "{f}.astype({{'a': 'float32'}})",
        "del {f}['a']",
        "{f}.eval('a2 = a * 2', inplace=True)",
        "{f}.query('a > 0', inplace=True)",
        "{f}.apply(len)",
        "{f}['missing_column']",
        "{f}['b'].str.upper()",
        "pd.concat([{f}, {f}])",
        "{f}.T",
        "{f}.nlargest(2, 'a')",
        "{f}.corr(numeric_only=True)",
        "{f}.clip(lower=0)",
        "{f}.b.map(str.upper)",
        "{f}.to_csv('out.csv')",
        "{f}.hist()",
        "{f}.iterrows()",
        "{f}.style",
    ],
    "series": [
        "{s}.fillna('q', inplace=True)",
        "{s}[0] = 'zz'",
        "{s}.iloc[0] = None",
        "{s}.sort_values(inplace=True)",
        "{s}.str.upper()",
        "{s}.dt.year",
        "{s}.value_counts()",
        "{s}.unique()",
        "{s}.pop(0)",
        "{s}.reset_index(drop=True, inplace=True)",
        "{s}.rename('w', inplace=True)",
        "{s} += 1",
        "{s}.map({{'p': 1}})",
        "{s}.astype(str)",
        "{s}.plot()",
        "{s}.attrs",
        "{s}.missing_attr",
        "{s}.update({s})",
        "{s}.to_numpy()[0] = 0",
        "{s}.array[0]",
        "len({s})",
        "list({s})",
    ],
    "array": [
        "np.add({a}, 1, out={a})",
        "{a} += 1",
        "{a}[0] = 7",
        "{a}.sort()",
        "{a}.fill(0)",
        "np.copyto({a}, 0)",
        "np.put({a}, [0], [9])",
        "{a}.resize(2, refcheck=False)",
        "np.random.shuffle({a})",
        "np.multiply({a}, 2, out={a})",
        "{a}.clip(0, 1, out={a})",
        "np.negative({a}, out={a})",
        "np.sqrt({a})",
        "{a}.reshape(-1)[0] = 3",
        "{a}.ravel()[0] = 3",
        "{a}.T",
        "{a} @ {a}",
        "{a}.sum(axis=5)",
        "np.cumsum({a}, out={a})",
        "{a}.setflags(write=False)",
        "np.place({a}, {a} > 0, [0])",
        "np.putmask({a}, {a} > 0, 0)",
        "np.fill_diagonal({a}, 0)",
        "{a}.partition(1)",
        "{a}.itemset(0, 1)",
        "{a}.view()[0] = 5",
        "{a}[:] = 0",
        "np.random.rand(3)",
        "np.random.seed(4)",
        "np.random.normal(size=2)",
        "{a}.nonexistent",
        "np.ones((16000, 16000))",
        "{a}.tofile('x.bin')",
        "np.save('x.npy', {a})",
    ],
    "object": [
        "oarr + 1",
        "str(oarr)",
        "oarr.sum()",
        "np.array(rec)",
        "np.asarray(oarr)",
        "oarr[0] = 1",
        "sorted(oarr)",
        "parr + 1",
        "oarr.astype(str)",
        "oarr.tolist()",
        "f'{{oarr}}'",
        "np.concatenate([oarr, oarr])",
        "oarr == 1",
        "oarr.max()",
        "oarr[-1] + 1",
        "repr(oarr)",
        "parr.sum()",
        "parr[0] = 5",
        "np.vectorize(len)(oarr)",
    ],
    "tensor": [
        "F.relu({t}, inplace=True)",
        "relu({t})",
        "{t}.add_(1)",
        "{t}.zero_()",
        "{t} += 1",
        "{t}[0] = 5",
        "torch.add({t}, 1, out={t})",
        "{t}.uniform_()",
        "{t}.relu_()",
        "torch.nn.init.zeros_({t})",
        "{t}.requires_grad_()",
        "F.dropout({t}, 0.5, training=True)",
        "{t}.clamp_(0, 1)",
        "{t}.mul_(2)",
        "{t}.data.fill_(3)",
        "{t}.detach()[0] = 1",
        "{t}.numpy()[0] = 2",
        "{t}.view(-1)[0] = 3",
        "torch.relu_({t})",
        "{t}.sum().backward()",
        "{t}.t()",
        "{t} @ {t}",
        "{t}.reshape(2, -1)",
        "torch.rand(3)",
        "torch.manual_seed(2)",
        "torch.randn_like({t})",
        "{t}.bernoulli_()",
        "{t}.normal_()",
        "{t}.item()",
        "torch.cat([{t}, {t}])",
        "{t}.sigmoid_()",
        "F.softmax({t}, dim=0)",
        "{t}.exp_()",
    ],
    "module": [
        "{m}(t2)",
        "{m}(t)",
        "{m}(tbig)",
        "bn(t2)",
        "drop(t2)",
        "lin(t2)",
        "seq(t2)",
        "{m}.train()",
        "{m}.eval()",
        "{m}.zero_grad()",
        "lin.weight.data.fill_(0)",
        "torch.nn.init.zeros_(lin.weight)",
        "lin.weight.add_(1)",
        "lin.bias[0] = 1",
        "opt.step()",
        "opt.zero_grad()",
        "lin(t2).sum().backward()",
        "{m}.requires_grad_(False)",
        "{m}.half()",
        "{m}.to(torch.float64)",
        "{m}.apply(lambda mod: None)",
        "seq[0](t2)",
        "seq[2].running_mean.add_(1)",
        "bn.reset_running_stats()",
        "{m}.register_forward_hook(print)",
        "relu(tbig)",
        "F.relu(tbig, inplace=True)",
        "tbig.relu_()",
        "seq(t2.double())",
        "lin(torch.ones(2, 5))",
        "bn(torch.ones(2, 4))",
        "nn.Linear(3, 2)(t2)",
        "nn.Linear(5, 2)(t2)",
        "nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))(t2)",
        "nn.Sequential(lin, nn.Linear(9, 1))(t2)",
        "nn.Conv1d(1, 2, 3)(t2)",
        "nn.Embedding(10, 4)(t2)",
        "nn.LSTM(3, 4)(t2)",
        "nn.GRU(3, 4, batch_first=True)(t2.unsqueeze(0))",
        "layer = nn.Linear(3, 2)\nlayer(t2)",
        "nn.Linear(3000, 3000)(t2)",
    ],
    "sklearn": [
        "{e}.fit(X, y)",
        "sgd.partial_fit(X, y)",
        "{e}.set_params()",
        "lr.set_params(fit_intercept=False)",
        "lr.predict(X)",
        "scaler.fit_transform(X)",
        "train_test_split(X, y)",
        "lr.score(X, y)",
        "scaler.transform(X)",
        "lr.coef_[0] = 5",
        "lr.coef_ += 1",
        "sgd.coef_.fill(0)",
        "{e}.fit(df, y)",
        "lr.predict(np.ones((2, 7)))",
        "sgd.partial_fit(X, y, classes=[0, 1])",
    ],
    "python": [
        "lst.append(1)",
        "lst.pop()",
        "lst.sort()",
        "lst += [1]",
        "lst[0] = 9",
        "lst.extend(lst)",
        "dct.update(a=2)",
        "dct.pop('a')",
        "dct['z'] = 1",
        "dct.clear()",
        "st.add(9)",
        "st.pop()",
        "st |= {{5}}",
        "next(gen)",
        "list(gen)",
        "fh.read()",
        "fh.readline()",
        "fh.seek(0)",
        "next(fh)",
        "random.random()",
        "random.shuffle(lst)",
        "rnd.random()",
        "random.seed(3)",
        "len(rec)",
        "repr(rec)",
        "str(rec)",
        "f'{{rec}}'",
        "rec + 1",
        "1 + rec",
        "rec.anything",
        "getattr(rec, 'x')",
        "[x for x in rec]",
        "format(rec, 'x')",
        "sorted([rec, rec])",
        "WithMeta.missing",
        "WithMeta.other()",
        "import difflib",
        "import os\nos.chdir('/')",
        "import warnings\nwarnings.simplefilter('error')",
        "plt.figure()",
        "plt.plot([1, 2])",
        "plt.rcParams['lines.linewidth'] = 9",
        "plt.subplots(2)",
        "plt.close('all')",
        "matplotlib.use('pdf')",
        "np.nonexistent_function(1)",
        "df.nonexistent_attribute",
        "total = sum(range(10**9))",
        "x = 10 ** (10 ** 7)",
        "rnd.shuffle(lst)",
        "g.normal()",
        "g.shuffle(arr)",
        "g.integers(5)",
        "sorted(lst, key=lst.append)",
        "max(dct, key=dct.pop)",
        "rows = [r for r in fh]",
        "import json",
        "import seaborn as sns",
        "print(rec)",
        "warnings.warn('x')",
        "os.environ['X'] = '1'",
        "random.choice(lst)",
    ],
    # polars and Dask frames: in-place methods, setitem, collects, computes and user code
    "frames_beyond_pandas": [
        "pdf.insert_column(0, pl.Series('z', [1, 2, 3, 4]))",
        "pdf.drop_in_place('a')",
        "pdf.extend(pdf)",
        "pdf.vstack(pdf, in_place=True)",
        "pdf.replace_column(0, pl.Series('a', [0.0] * 4))",
        "pdf.columns = ['p', 'q']",
        "pdf.select(pl.col('a').map_elements(lambda v: rec))",
        "pdf.with_columns(pl.col('a') + 1)",
        "pdf.group_by('b').agg(pl.col('a').sum())",
        "pdf.select(pl.col('missing'))",
        "pdf.groupby('b')",
        "plz.collect()",
        "plz.select(pl.col('c').sum()).collect()",
        "plz.filter(pl.col('a') > 0).collect_schema()",
        "plz.select(pl.col('b') + 1).collect()",
        "plz.map_batches(lambda f: rec).collect()",
        "pl.concat([plz, plz]).collect()",
        "ddf['z'] = 1",
        "ddf['a'] = ddf['a'] * 2",
        "ddf.compute()",
        "ddf.persist()",
        "ddf.a.sum().compute()",
        "ddf.head()",
        "len(ddf)",
        "ddf.map_partitions(lambda part: rec)",
        "ddf.groupby('b').a.mean().compute()",
        "ddf['missing']",
        "ddf.iloc[0]",
        "dask.compute(ddf.a.max())",
    ],
    # The first import of a library in the cell: the kernel hands the cell off (pickles of
    # shadows for a helper interpreter) and must still import nothing and change nothing.
    "first_import": [
        "from sklearn.ensemble import RandomForestClassifier\n"
        "RandomForestClassifier(n_estimators=3).fit(X, y)",
        "from sklearn.cluster import KMeans\nKMeans(2).fit({f}[['a']])",
        "from sklearn.decomposition import PCA\nPCA(2).fit_transform(oarr.reshape(-1, 1))",
        "from sklearn.svm import SVC\nSVC().fit(X, y).predict({a})\nrec",
        "from scipy import stats\nstats.zscore({a})\nlen(rec)",
        "from sklearn.neighbors import KNeighborsClassifier\n"
        "KNeighborsClassifier().fit({f}, y).predict(parr)",
        "from sklearn.tree import DecisionTreeClassifier\n"
        "DecisionTreeClassifier().fit({t}, y)\nnext(gen)",
        "import sklearn.naive_bayes as nb\nnb.GaussianNB().fit(X, y).score(X, rec)",
    ],
}


def _cell(rng: random.Random) -> str:
    """One generated cell: one to four mutating statements, sometimes through an alias."""
    lines = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(sorted(TEMPLATES))
        template = rng.choice(TEMPLATES[kind])
        line = template.format(
            f=rng.choice(FRAMES),
            s=rng.choice(SERIES),
            a=rng.choice(ARRAYS),
            t=rng.choice(TENSORS),
            m=rng.choice(MODULES),
            e=rng.choice(ESTIMATORS),
        )
        if rng.random() < 0.15 and "\n" not in line:
            name = line.split(".", 1)[0].split("(", 1)[0].split("[", 1)[0]
            if name.isidentifier():
                lines.append("alias = %s" % name)
                line = "alias" + line[len(name) :]
        if rng.random() < 0.1:
            line = "for _i in range(2):\n    " + line.replace("\n", "\n    ")
        lines.append(line)
    return "\n".join(lines)


def _state(kernel: RunningKernel) -> dict[str, Any]:
    content = {
        "code": "",
        "silent": True,
        "store_history": False,
        "user_expressions": {"state": "__import__('json').dumps(_nt_state(), default=repr)"},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    reply, _ = _request(kernel, content, 60)
    result = reply["user_expressions"]["state"]
    assert result["status"] == "ok", result
    state: dict[str, Any] = json.loads(ast.literal_eval(result["data"]["text/plain"]))
    return state


def _difference(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed: for lists (modules, names) what was added and what removed."""
    changed: dict[str, Any] = {}
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if isinstance(old, list) and isinstance(new, list):
            changed[key] = {
                "added": sorted(set(map(str, new)) - set(map(str, old))),
                "removed": sorted(set(map(str, old)) - set(map(str, new))),
            }
        else:
            changed[key] = (old, new)
    return changed


def _check(kernel: RunningKernel, cell: str) -> bool:
    """Check one cell (hand-off allowed); True when the kernel packed a hand-off."""
    result, iopub = run_probe(kernel, "check", {"source": cell, "handoff": True}, timeout=60)
    assert isinstance(result, dict) and "findings" in result, (cell, result)
    assert {m["msg_type"] for m in iopub} == {"status"}, (cell, iopub)
    return "handoff" in result


@pytest.mark.timeout(400)
def test_generated_cells_leave_no_trace(kernel: RunningKernel) -> None:
    reply = kernel.execute(SETUP, timeout=180)
    assert reply["status"] == "ok", reply
    rng = random.Random(SEED)
    cells = [_cell(rng) for _ in range(CELLS)]
    start = time.monotonic()
    history_before = history(kernel)
    before = _state(kernel)
    handed_off = 0
    for first in range(0, len(cells), BATCH):
        batch = cells[first : first + BATCH]
        for cell in batch:
            handed_off += _check(kernel, cell)
        after = _state(kernel)
        if after != before:
            # Replay the batch one cell at a time from the changed state to name the cell.
            guilty = []
            for cell in batch:
                one_before = _state(kernel)
                _check(kernel, cell)
                changed = _difference(one_before, _state(kernel))
                if changed:
                    guilty.append((cell, changed))
            pytest.fail(
                "a check changed the kernel: %r\nfirst guilty cells: %r"
                % (_difference(before, after), guilty[:3])
            )
    assert history(kernel) == history_before
    # the first-import cells really were packed for a helper (pickles built in the kernel)
    assert handed_off >= CELLS // 40, handed_off
    elapsed = time.monotonic() - start
    print(
        "checked %d generated cells (%d handed off) in %.1f s" % (len(cells), handed_off, elapsed)
    )


#: Layers the walk builds for real (their initial weights are drawn, then torch's random state
#: is put back): each checked on its own, the whole state compared after every one.
BUILT_LAYERS = [
    "nn.Linear(3, 2)(t2)",
    "head = nn.Linear(5, 2)\nhead(t2)",
    "nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))(t2)",
    "nn.Sequential(lin, nn.Linear(9, 1))(t2)",
    "nn.Conv2d(3, 4, 3)(torch.ones(1, 3, 5, 5))",
    "nn.Embedding(10, 4)(torch.zeros(3, dtype=torch.long))",
    "nn.LSTM(3, 4)(t2.unsqueeze(1))",
    "nn.GRU(3, 4, batch_first=True)(t2.unsqueeze(0))",
    "nn.Linear(3000, 3000)(t2)",
    "torch.manual_seed(5)\nnn.Linear(3, 2)(t2)",
]


@pytest.mark.timeout(300)
def test_layers_built_by_the_walk_leave_the_random_state(kernel: RunningKernel) -> None:
    reply = kernel.execute(SETUP, timeout=180)
    assert reply["status"] == "ok", reply
    draw = "float(torch.rand(1))"
    assert kernel.execute("_nt_torch_state = torch.get_rng_state()")["status"] == "ok"
    for cell in BUILT_LAYERS:
        before = _state(kernel)
        _check(kernel, cell)
        assert _difference(before, _state(kernel)) == {}, cell
    # the next draw in the kernel is the one it would have been without any check
    reply = kernel.execute("_after_checks = %s" % draw)
    assert reply["status"] == "ok"
    reply = kernel.execute(
        "torch.set_rng_state(_nt_torch_state)\n_expected = %s\nassert _after_checks == _expected"
        % draw
    )
    assert reply["status"] == "ok", reply
