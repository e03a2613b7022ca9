"""The measured patches of daphne, Twisted and the garbage collector, kept in one place, and
installed by the server's launcher (`python -m bunco_site.serve`, bunco_site/serve.py) once
daphne has loaded the app; never by importing the app.

Each patch replaces internals of a library at a version it was measured with (bench/, see
docs/server-tuning.md). Before it is installed it checks that those internals still have the
shape it replaces, and it says in the log what it did, one line each:

    server tuning: eager_writes installed (Twisted 26.10.0)
    server tuning: request_bodies skipped: Twisted 24.3.0's Request takes no parsePOSTFormSubmission
    server tuning: gc_policy off (BUNCO_SERVER_TUNING=eager_writes)

A patch that does not fit, or fails in any way while it is checked or installed, is skipped and
the server serves without it: a speed-up is never worth a server that answers nothing.

BUNCO_SERVER_TUNING switches them: unset, "1" or "all" installs every patch; "0", "off" or
"none" installs none; a comma-separated list of names ("gc_policy,eager_writes") installs those.
"""

import logging
import os
from importlib import import_module

from bunco_site import switches

log = logging.getLogger("bunco.server_tuning")

SWITCH = "BUNCO_SERVER_TUNING"
# In this order: the collector's policy freezes what is loaded, so it goes last.
PATCHES = ("eager_writes", "request_bodies", "gc_policy")


class Skip(Exception):
    """What a patch replaces is not what it was measured against (or not there): serve without."""


def chosen(value):
    """The patches BUNCO_SERVER_TUNING asks for, and the names in it that are no patch."""
    return switches.chosen(value, PATCHES)


def install(environ=os.environ):
    """Install the chosen patches that fit the running server; never raises. Answers each
    patch's outcome: "installed", "skipped" or "off"."""
    setting = environ.get(SWITCH)
    wanted, unknown = chosen(setting)
    if unknown:
        log.warning("server tuning: %s=%s names no patch: %s (the patches are %s)",
                    SWITCH, setting, ", ".join(unknown), ", ".join(PATCHES))
    outcomes = {}
    for name in PATCHES:
        if name not in wanted:
            log.info("server tuning: %s off (%s=%s)", name, SWITCH, setting)
            outcomes[name] = "off"
            continue
        try:
            versions, measured = import_module(f"{__name__}.{name}").apply()
        except Skip as reason:
            log.warning("server tuning: %s skipped: %s", name, reason)
            outcomes[name] = "skipped"
        except Exception as error:  # any failure at all: serve unpatched, and say why
            log.warning("server tuning: %s skipped: %s: %s", name, type(error).__name__, error)
            outcomes[name] = "skipped"
        else:
            if measured:
                log.info("server tuning: %s installed (%s)", name, versions)
            else:  # the shape fits, the version was not measured: installed, and said loudly
                log.warning("server tuning: %s installed (%s; measured with %s)",
                            name, versions, measured_with(name))
            outcomes[name] = "installed"
    return outcomes


def measured_with(name):
    return _describe(import_module(f"{__name__}.{name}").MEASURED_WITH)


def _describe(versions):
    return ", ".join(f"{package} {version}" for package, version in versions.items())


def versions_of(measured_with):
    """The running versions of the packages a patch was measured with, as "Twisted 26.10.0",
    and whether they are the measured ones ("3.11" is measured for any 3.11.x)."""
    running = {package: version_of(package) for package in measured_with}
    same = all(
        running[p] == v or running[p].startswith(v + ".") for p, v in measured_with.items()
    )
    return _describe(running), same


def version_of(package):
    """The running version of a distribution (or of "CPython")."""
    from importlib.metadata import PackageNotFoundError, version

    if package == "CPython":
        import platform

        return platform.python_version()
    try:
        return version(package)
    except PackageNotFoundError:
        return "(not installed)"


def running(package):
    """ "Twisted 26.10.0", for the log's reasons."""
    return f"{package} {version_of(package)}"
