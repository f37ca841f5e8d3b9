"""``relplan warmup``: compile, ahead of the first run, what runs of some configs call.

The engine is compiled by numba on first use, once per set of walk features
(:class:`relplan.sim.compiled.WalkFeatures`), and cached on disk; the first run of a
config whose features are new compiles for about 15 s. :func:`warm_up` compiles every
compiled function the runs of the given configs call (:func:`relplan.sim.precompile.run_targets`)
into that cache, each one once however many configs need it, without running a trial; a
function already in the cache is only reported. :func:`shipped_configs` lists the configs
warmed by default: the shipped configs and every point of the shipped studies.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from relplan.config.loading import SHIPPED_CONFIGS, SHIPPED_STUDIES, load_config, read_toml
from relplan.config.schema import RelplanConfig
from relplan.config.study import load_study
from relplan.errors import ConfigError

WARMUP_NOTICE = "relplan: compiling the {kind} ({number} of {total} walks)"
"""The words of the live notice while a walk compiles (the seconds follow them)."""


def configs_of(path: str | Path, overrides: list[str] | None = None,
               ) -> list[tuple[str, RelplanConfig]]:  # fmt: skip
    """The configs a file holds, each with its label: a config (labelled by its ``name``,
    else its file's name), or a study's points (``study-name: point``).

    Parameters
    ----------
    path : str or Path
        A config or a study file.
    overrides : list of str, optional
        ``KEY=VALUE`` items applied to the config, or to every point of the study.

    Returns
    -------
    list of (str, RelplanConfig)
        Label and config of each.

    Raises
    ------
    ConfigError
        Naming ``CONFIG`` for a missing or malformed file or a plan, else the key at fault.

    Examples
    --------
    >>> [label for label, _ in configs_of("studies/recovery-strategies.toml")][:2]
    ['recovery-strategies: restart on a hot spare', 'recovery-strategies: wait for the repair']
    """
    file = Path(path)
    document = read_toml(file, "CONFIG")
    if "plan" in document and "study" not in document:
        raise ConfigError("CONFIG", f"{file} is a plan: name its base config instead")
    if "study" in document:
        study = load_study(file, list(overrides or []) or None)
        return [(f"{file.stem}: {label.removeprefix('study point ')}", config)
                for label, config in study.labelled_configs()]  # fmt: skip
    config = load_config(file, list(overrides or []))
    return [(config_label(file, config), config)]


def shipped_configs() -> list[tuple[str, RelplanConfig]]:
    """The configs :func:`warm_up` warms by default, each with its label.

    The shipped configs (``configs/*.toml``, labelled by file name), then each point of
    each shipped study (``studies/*.toml`` with a ``[study]`` table, labelled
    ``study-name: point``): a point may turn on features its base config does not use.
    The shipped plans' bases are shipped configs.

    Returns
    -------
    list of (str, RelplanConfig)
        Label and config of each, in that order.

    Raises
    ------
    ConfigError
        Naming ``CONFIG`` when relplan's source tree, with its configs, is not there.
    """
    configs = [(path.stem, load_config(path)) for path in sorted(SHIPPED_CONFIGS.glob("*.toml"))]
    if not configs:  # an installed package without its source tree
        raise ConfigError("CONFIG", f"no shipped configs in {SHIPPED_CONFIGS}: name the "
                                    "configs to compile for")  # fmt: skip
    for path in sorted(SHIPPED_STUDIES.glob("*.toml")):
        if "study" in read_toml(path, "STUDY"):  # not a plan
            configs += configs_of(path)
    return configs


def warm_up(configs: list[tuple[str, RelplanConfig]], stream: TextIO | None = None,
            notice: bool = True) -> dict[str, Any]:  # fmt: skip
    """Compile every compiled function the runs of ``configs`` call, into numba's cache.

    Each function is compiled once for the argument types a run passes it, whatever the
    number of configs that call it (most share theirs); one already compiled (in numba's
    cache on disk, or in this process) is only listed.

    Parameters
    ----------
    configs : list of (str, RelplanConfig)
        Label and config of each.
    stream : file, optional
        Where the live notice goes while a walk compiles (default ``sys.stderr``; see
        :func:`relplan.sim.compile_notice.compiling_notice`).
    notice : bool
        Whether to show that notice.

    Returns
    -------
    dict
        ``configs`` (the labels), ``functions`` (one object per function: ``kind``,
        ``function``, ``features`` (the walk's features on, its trace apart), ``configs``
        (the labels of the configs that call it), ``compiled_now`` (False: it was
        compiled already) and ``seconds`` (its compile, null when it was compiled
        already)), ``compiled_now`` and ``already_compiled`` (how many of each) and
        ``seconds`` (the whole warm-up, seconds).

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> data = warm_up([("small", load_config("configs/small.toml"))], notice=False)
    >>> data["compiled_now"] + data["already_compiled"] == len(data["functions"])
    True
    >>> warm_up([("small", load_config("configs/small.toml"))])["compiled_now"]
    0
    """
    from relplan.sim.compile_notice import compiling_notice
    from relplan.sim.model import build_model
    from relplan.sim.precompile import feature_names, run_targets

    started = time.perf_counter()
    groups: dict[tuple, tuple[Any, list[str]]] = {}
    for label, config in configs:
        for target in run_targets(build_model(config)):
            groups.setdefault(target.key, (target, []))[1].append(label)
    # the walks first, each feature set's plain and traced walk together; then the others
    ordered = sorted(groups.values(), key=lambda group: group[0].features is None)
    pending = [target.key for target, _ in ordered if not target.is_compiled()]
    walks = [target.key for target, _ in ordered
             if target.features is not None and target.key in pending]  # fmt: skip
    functions = []
    for target, labels in ordered:
        seconds = None
        if target.key in pending:
            shown = contextlib.nullcontext()
            if notice and target.key in walks:  # the others take a fraction of a second
                words = WARMUP_NOTICE.format(kind=target.kind, total=len(walks),
                                             number=walks.index(target.key) + 1)  # fmt: skip
                shown = compiling_notice(stream if stream is not None else sys.stderr,
                                         words=words)  # fmt: skip
            with shown:
                begun = time.perf_counter()
                target.compile()
                seconds = time.perf_counter() - begun
        functions.append({
            "kind": target.kind,
            "function": target.function,
            "features": [] if target.features is None else feature_names(target.features),
            "configs": labels,
            "compiled_now": seconds is not None,
            "seconds": seconds,
        })  # fmt: skip
    return {
        "configs": [label for label, _ in configs],
        "functions": functions,
        "compiled_now": len(pending),
        "already_compiled": len(functions) - len(pending),
        "seconds": time.perf_counter() - started,
    }


def config_label(path: Path, config: RelplanConfig) -> str:
    """A config's label: its ``name``, else its file's name without ``.toml``."""
    return config.name or path.stem
