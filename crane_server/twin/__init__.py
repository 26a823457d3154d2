"""The dry-run tier: run the cell for real in a sealed copy-on-write twin of the kernel.

One entry point, `dry_run_cells` (`dry_run_cell` for one cell); its DryRun is merged with the checker's verdict in
`crane_server.analysis.merge`. The kernel-side half is `crane_server.probe.twin`.
"""

from crane_server.twin.runner import DryRunOptions, dry_run_cell, dry_run_cells

__all__ = ["DryRunOptions", "dry_run_cell", "dry_run_cells"]
