"""Which modules of this package are shipped into the kernel, in dependency order."""

SHIPPED_MODULES = (
    "jsonsafe",
    "summary_base",
    "summary_python",
    "summary_numpy",
    "summary_pandas",
    "summary_torch",
    "summary_sklearn",
    "summary_tf",
    "summarise",
    "values",
    "outcomes",
    "purity",
    "rules_python",
    "rules_pandas",
    "rules_numpy",
    "rules_sklearn",
    "rules_torch",
    "rules_plotting",
    "checker",
    "entry",
)
