"""Which modules of this package are shipped into the kernel, in dependency order.

The rooms, bottom up: the shared value model at the package root (imported by every room),
`snapshot` (what an object is), `rules` (one module per library; they import only the root),
`interpreter` (walks a cell and asks the rules), and `entry` (the one dispatch point).
"""

SHIPPED_MODULES = (
    # first: binds the genuine builtins into every module shipped after it
    "genuine",
    # the shared value model
    "jsonsafe",
    "imports",
    "quiet",
    "values",
    "shadows",
    "outcomes",
    "purity",
    "cost",
    "gate",
    "files",
    # snapshot summaries
    "snapshot.base",
    "snapshot.python",
    "snapshot.numpy",
    "snapshot.pandas",
    "snapshot.polars",
    "snapshot.dask",
    "snapshot.torch",
    "snapshot.sklearn",
    "snapshot.tensorflow",
    "snapshot.summarise",
    # library rules
    "rules.python",
    "rules.pandas",
    "rules.frames",
    "rules.polars",
    "rules.dask_meta",
    "rules.dask_refusals",
    "rules.dask",
    "rules.numpy",
    "rules.sklearn_dry_run",
    "rules.sklearn",
    "rules.torch",
    "rules.plotting",
    "rules.statsmodels",
    "rules.keras",
    "rules.boosting",
    "rules.progress",
    # the dry run: a sealed twin of the kernel
    "twin.seal",
    "twin.child",
    "twin.control",
    # the abstract interpreter
    "interpreter.calls",
    "interpreter.handoff",
    "interpreter.checker",
    "entry",
)
