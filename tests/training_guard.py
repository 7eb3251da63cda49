"""What a test not marked slow may not do, in its own process or in any process it starts: train or run pip.

"Train" means start a training loop: ``learn`` of rsl_rl's OnPolicyRunner (and DistillationRunner) or of LocoLab's
on-policy runner, whose ``learn`` LocoLab's SAC runner (OffPolicyRunner) and PPO-ROA use. So ``scripts/train.py`` is
refused once it is past its checks, whether it runs in the test's process (``run_main``) or as a process
(``run_script``, ``start_training``, a harness that launches it), while its bad-argument cases, which exit with code 2
before any runner exists, are not; nor is building a runner to load a checkpoint, as play.py, eval.py and export.py
do. "Run pip" means start ``pip``, ``python -m pip``, ``python -m ensurepip`` or ``uv pip``.

Armed while :data:`ARMED` names a folder (``tests/training_guard_plugin.py`` sets it for each test not marked slow): a
refused call raises :class:`RefusedInFastTest` and leaves a file in that folder, so that the test fails even when the
refusal happens in a child process or is caught. Child processes inherit the variable, and with it
``training_guard_site/`` on ``PYTHONPATH``, whose ``sitecustomize`` installs this guard in every Python process
started. Standard library only, and as little of it as will do: every process a fast test starts imports it.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

ARMED = "LOCOLAB_TRAINING_GUARD"
"""Environment variable: the folder where refusals are recorded; unset (or empty) the guard lets everything run."""
SITE = Path(__file__).resolve().parent / "training_guard_site"
"""The folder put on ``PYTHONPATH`` while armed: its ``sitecustomize`` installs the guard in child processes."""
TRAINING_LOOP_MODULES = ("rsl_rl.runners.on_policy_runner", "rsl_rl.runners.distillation_runner",
                         "locolab.runners.on_policy_runner")
"""Where the training loops are defined: every class of these modules with a ``learn`` of its own is guarded."""
PROCESS_EVENTS = {"subprocess.Popen": 1, "os.exec": 1, "os.posix_spawn": 1, "os.spawn": 2, "os.system": 0}
"""Audit events that start a program, and the position of its command line in the event's arguments."""


class RefusedInFastTest(RuntimeError):
    """A test not marked slow tried to train or to run pip."""


def refuse(what: str) -> None:
    """Record and raise a refusal of ``what`` when the guard is armed; nothing otherwise."""
    folder = os.environ.get(ARMED)
    if not folder:
        return
    message = (f"{what}: a test not marked slow may not train or run pip (tests/training_guard.py); mark it "
               "@pytest.mark.slow or test it without training")
    try:
        record = Path(folder) / f"{os.getpid()}-{os.urandom(4).hex()}.txt"
        record.write_text(f"{message}\n  in process {os.getpid()}: {' '.join(sys.argv)}\n")
    except OSError:  # the test is over (a process it left behind): the refusal alone stops it
        pass
    raise RefusedInFastTest(message)


def take_refusals(folder: str | Path) -> list[str]:
    """The refusals recorded in ``folder`` by any process, oldest first; each is read once."""
    records = sorted(Path(folder).glob("*.txt"), key=lambda path: path.stat().st_mtime_ns)
    found = [record.read_text().strip() for record in records]
    for record in records:
        record.unlink()
    return found


def runs_pip(command) -> bool:
    """Whether a command line (a list of words, or one shell string) runs pip: one of its commands is ``pip*``, or
    runs ``-m pip``/``-m ensurepip`` or ``uv pip``. Shell lines (``sh -c "cd x && pip install y"``) are looked into."""
    import re

    if isinstance(command, str):
        commands = _shell_commands(command)
    else:
        words = [os.fsdecode(word) for word in command]
        commands = [words, *(shell for word in words if " " in word.strip() for shell in _shell_commands(word))]
    for words in filter(None, commands):
        program = os.path.basename(words[0])
        if re.fullmatch(r"pip[\d.]*", program) or (program == "uv" and words[1:2] == ["pip"]):
            return True
        if any(flag == "-m" and module in ("pip", "ensurepip") for flag, module in zip(words, words[1:])):
            return True
    return False


def _shell_commands(line: str) -> list[list[str]]:
    """The words of each command of a shell line, split at ``&&``, ``||``, ``;``, ``|``, ``&`` and parentheses."""
    import shlex

    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: not a shell line
        tokens = line.split()
    commands = [[]]
    for token in tokens:
        if token in ("&&", "||", ";", "|", "&", "(", ")"):
            commands.append([])
        else:
            commands[-1].append(token)
    return commands


def _audit(event: str, args: tuple) -> None:
    position = PROCESS_EVENTS.get(event)
    if position is None or not os.environ.get(ARMED):
        return
    command = args[position]
    if command is not None and runs_pip(command):
        shown = command if isinstance(command, str) else " ".join(os.fsdecode(word) for word in command)
        refuse(f"pip ({shown})")


def _guarded_learn(learn):
    @functools.wraps(learn)
    def guarded(self, *args, **kwargs):
        refuse(f"training ({learn.__qualname__} of a {type(self).__name__})")
        return learn(self, *args, **kwargs)

    guarded.training_guard = True
    return guarded


def guard_training_loops(module) -> None:
    """Wrap the ``learn`` of every class defined in ``module`` so that it is refused while the guard is armed."""
    for value in list(vars(module).values()):
        if isinstance(value, type) and value.__module__ == module.__name__ and "learn" in vars(value):
            if not getattr(vars(value)["learn"], "training_guard", False):
                value.learn = _guarded_learn(vars(value)["learn"])


class _GuardingLoader:
    """Executes a module with its own loader, then guards its training loops."""

    def __init__(self, loader) -> None:
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        guard_training_loops(module)

    def __getattr__(self, name: str):  # get_source, get_resource_reader, ...: the module's own loader's
        return getattr(self.loader, name)


class _GuardOnImport:
    """Finds :data:`TRAINING_LOOP_MODULES` with the other finders and gives them a :class:`_GuardingLoader`."""

    def find_spec(self, name, path=None, target=None):
        if name not in TRAINING_LOOP_MODULES:
            return None
        for finder in sys.meta_path:
            find_spec = getattr(finder, "find_spec", None)
            if finder is self or find_spec is None:
                continue
            spec = find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _GuardingLoader(spec.loader)
                return spec
        return None


def install() -> None:
    """Guard this process (once): the training loops already imported and those imported later, and every program
    started. The checks cost nothing while the guard is not armed."""
    if any(isinstance(finder, _GuardOnImport) for finder in sys.meta_path):
        return
    for name in TRAINING_LOOP_MODULES:
        if name in sys.modules:
            guard_training_loops(sys.modules[name])
    sys.meta_path.insert(0, _GuardOnImport())
    sys.addaudithook(_audit)


def arm(folder: str | Path) -> dict[str, str | None]:
    """Arm the guard in this process and the processes it starts, recording in ``folder``; returns what
    :func:`disarm` restores."""
    install()
    previous = {name: os.environ.get(name) for name in (ARMED, "PYTHONPATH")}
    os.environ[ARMED] = str(folder)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SITE), previous["PYTHONPATH"]]))
    return previous


def disarm(previous: dict[str, str | None]) -> None:
    """Undo :func:`arm`."""
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
