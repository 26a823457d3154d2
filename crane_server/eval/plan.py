"""What an evaluation run asks for: engines, models, settings, runs, and their jobs."""

from __future__ import annotations

from dataclasses import dataclass, field

from crane_server.errors import SettingsError

ENGINES = ("rules", "llm", "both")
SETTINGS = ("code", "runtime", "runtime-S", "runtime-V", "runtime-R", "runtime+doc")
TASKS = ("detection", "joint")


@dataclass(frozen=True)
class Job:
    """One prediction to make against a prepared notebook variant."""

    engine: str
    model: str = ""
    setting: str = ""
    task: str = ""
    run: int = 0

    @property
    def label(self) -> str:
        if self.engine == "rules":
            return "rules+dry-run" if self.setting == "dry-run" else "rules"
        return f"{self.model}/{self.setting}"


@dataclass(frozen=True)
class Plan:
    engine: str = "rules"
    models: tuple[str, ...] = ()
    settings: tuple[str, ...] = ("runtime",)
    task: str = "joint"
    runs: int = 1
    jobs: int = 2
    timeout: float = 60.0
    judge_model: str | None = None
    retry_errors: bool = False
    # a helper interpreter for target cells that first import a library (as the product does)
    helper: bool = True
    # the rules tier refined by the dry run in a sealed twin (as `crane-server check` does)
    dry_run: bool = True
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise SettingsError(
                f"unknown engine {self.engine!r} (choose from {', '.join(ENGINES)})"
            )
        for setting in self.settings:
            if setting not in SETTINGS:
                raise SettingsError(
                    f"unknown setting {setting!r} (choose from {', '.join(SETTINGS)})"
                )
        if self.task not in TASKS:
            raise SettingsError(f"unknown task {self.task!r}")
        if self.runs < 1 or self.jobs < 1 or self.timeout <= 0:
            raise SettingsError("--runs and --jobs must be at least 1, --timeout positive")

    @property
    def uses_llm(self) -> bool:
        return self.engine in ("llm", "both")

    def job_list(self, default_model: str = "") -> list[Job]:
        """Every job to run against each notebook variant, rules first."""
        jobs: list[Job] = []
        if self.engine in ("rules", "both"):
            jobs.append(Job(engine="rules", setting="dry-run" if self.dry_run else ""))
        if self.uses_llm:
            models = self.models or (default_model,)
            for model in models:
                for setting in self.settings:
                    for run in range(self.runs):
                        jobs.append(Job("llm", model, setting, self.task, run))
        return jobs
