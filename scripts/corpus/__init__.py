"""The cases of the crash/fixed corpus under tests/corpus/, as Python data.

Layout (run ``python scripts/make_corpus.py`` to write the folders):

- ``build``: the ``Case`` dataclass, the helpers ``without`` / ``patched`` used to derive the
  cells of a fixed notebook, and ``write_case``, which writes one case folder.
- ``data``: the shared set-up cells (``IMPORTS``, ``SALES``, ``HOUSES``, ``TITANIC``, ...).
- one module per family, each with a ``CASES`` list: ``python_cases``, ``notebook_cases``,
  ``pandas_cases``, ``numpy_cases``, ``sklearn_data_cases``, ``sklearn_model_cases``,
  ``torch_cases``, ``plotting_cases`` (matplotlib and seaborn).

A new case goes at the end of its family's ``CASES`` list; the corpus order is the order of
``FAMILIES`` below, then the order within each list.
"""

from __future__ import annotations

from . import (
    notebook_cases,
    numpy_cases,
    pandas_cases,
    plotting_cases,
    python_cases,
    sklearn_data_cases,
    sklearn_model_cases,
    torch_cases,
)
from .build import Case

FAMILIES = (
    python_cases,
    notebook_cases,
    pandas_cases,
    numpy_cases,
    sklearn_data_cases,
    sklearn_model_cases,
    torch_cases,
    plotting_cases,
)


def all_cases() -> list[Case]:
    """Every case of the corpus, in a stable order."""
    return [case for family in FAMILIES for case in family.CASES]
