"""PNG plots of an Analysis (matplotlib with the Agg backend, imported only here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crane_server.eval.analysis import Analysis


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _bars(
    plt: Any, path: Path, names: list[str], series: dict[str, list[float]], title: str
) -> None:
    figure, axes = plt.subplots(figsize=(max(5.0, 1.2 * len(names) + 2), 3.6))
    width = 0.8 / max(1, len(series))
    for index, (label, values) in enumerate(series.items()):
        positions = [x + index * width for x in range(len(names))]
        axes.bar(positions, values, width=width, label=label)
    axes.set_xticks([x + width * (len(series) - 1) / 2 for x in range(len(names))])
    axes.set_xticklabels(names, rotation=20, ha="right")
    axes.set_ylim(0, 1.05)
    axes.set_title(title)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def write_plots(analysis: Analysis, out: Path) -> list[str]:
    """Write the plots into `out`; return their file names."""
    if not analysis.groups:
        return []
    plt = _pyplot()
    written = []
    names = [g.name for g in analysis.groups]
    _bars(
        plt,
        out / "scores_per_setting.png",
        names,
        {
            "detection accuracy": [g.scores.detection.accuracy or 0.0 for g in analysis.groups],
            "detection F1": [g.scores.detection.f1 or 0.0 for g in analysis.groups],
            "joint accuracy": [g.scores.joint.accuracy or 0.0 for g in analysis.groups],
        },
        "Accuracy and F1 per engine / setting",
    )
    written.append("scores_per_setting.png")
    libraries = sorted({lib for g in analysis.groups for lib in g.per_library})
    if libraries:
        _bars(
            plt,
            out / "f1_per_library.png",
            libraries,
            {
                g.name: [
                    (g.per_library[lib].detection.f1 or 0.0) if lib in g.per_library else 0.0
                    for lib in libraries
                ]
                for g in analysis.groups
            },
            "Detection F1 per library",
        )
        written.append("f1_per_library.png")
    if any(g.latencies for g in analysis.groups):
        written.append(_latency_plot(plt, analysis, out))
    return written


def _latency_plot(plt: Any, analysis: Analysis, out: Path) -> str:
    figure, axes = plt.subplots(figsize=(6, 3.6))
    data = [list(g.latencies) for g in analysis.groups if g.latencies]
    labels = [g.name for g in analysis.groups if g.latencies]
    axes.boxplot(data, showfliers=True)
    axes.set_xticks(range(1, len(labels) + 1))
    axes.set_xticklabels(labels, rotation=20, ha="right")
    axes.set_yscale("log")
    axes.set_ylabel("ms per check")
    axes.set_title("Latency distribution")
    figure.tight_layout()
    figure.savefig(out / "latency.png", dpi=100)
    plt.close(figure)
    return "latency.png"
