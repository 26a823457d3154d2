"""Which modules of this package are shipped into the kernel, in dependency order."""

SHIPPED_MODULES = (
    "jsonsafe",
    "summarise",
    "values",
    "rules_python",
    "rules_pandas",
    "rules_numpy",
    "rules_sklearn",
    "rules_torch",
    "rules_plotting",
    "checker",
    "entry",
)
