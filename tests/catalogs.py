"""The translation catalogs as `makemessages` would make them today, in a folder of the test's own
(the repository's locale/ is left as it is): for the checks that every message is translated
(tests/test_translations.py) and for the pseudo-locale (tests/parties/test_pseudo_locale.py).

MAKEMESSAGES is the command docs/languages.md gives for updating locale/ by hand."""

import fcntl
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "locale"
LANGUAGES = ("es", "fr")
MAKEMESSAGES = [
    "makemessages", "--no-obsolete", "--add-location=file",
    "--ignore=tests/*", "--ignore=bench/*", "--ignore=test-artifacts/*",
    "--ignore=staticfiles/*", "--ignore=deploy/*", "--ignore=docs/*",
]
PSEUDO = "xx"  # the pseudo-locale: every message wrapped in OPEN ... CLOSE
OPEN, CLOSE = "⟦", "⟧"


SOURCES = ("bunco_site", "clubs", "parties", "scoring", "templates", "manage.py")


def fresh_catalogs(folder, languages=LANGUAGES):
    """locale/ copied into `folder`/locale and brought up to date with the code by makemessages
    for `languages`: returns that folder, holding <code>/LC_MESSAGES/django.po. makemessages
    writes beside the nearest locale/ above the code it reads, so it reads the code through
    links in `folder`/code, whose nearest is `folder`/locale."""
    catalogs, code_folder = folder / "locale", folder / "code"
    shutil.copytree(LOCALE, catalogs, dirs_exist_ok=True)
    code_folder.mkdir(exist_ok=True)
    for name in SOURCES:
        if not (code_folder / name).exists():
            (code_folder / name).symlink_to(ROOT / name)
    code = (
        "import sys, django\n"
        "from django.conf import settings\n"
        "from django.core.management import call_command\n"
        "django.setup()\n"
        "settings.LOCALE_PATHS = [sys.argv[1]]\n"
        "call_command(*sys.argv[2:], verbosity=0)\n"
    )
    args = [*MAKEMESSAGES, "--symlinks", *(f"--locale={language}" for language in languages)]
    # makemessages writes each template's text beside it (templates/x.html.py) and removes it:
    # two at once (pytest-xdist's workers) remove each other's.
    ROOT.joinpath("test-artifacts").mkdir(exist_ok=True)
    with open(ROOT / "test-artifacts" / "makemessages.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(
            [sys.executable, "-c", code, str(catalogs), *args], cwd=code_folder, check=True,
            timeout=300, env={**_env(), "DJANGO_SETTINGS_MODULE": "bunco_site.settings"},
        )
    return catalogs


def _env():
    import os

    return {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}


def statistics(po_file):
    """msgfmt's count of the file's messages: {"translated": n, "fuzzy": n, "untranslated": n}."""
    run = subprocess.run(["msgfmt", "--statistics", "--check", "-o", "/dev/null", str(po_file)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    counts = {"translated": 0, "fuzzy": 0, "untranslated": 0}
    for part in run.stderr.strip().rstrip(".").split(", "):
        number, word, *_ = part.split()
        counts[word] = int(number)
    return counts


def pseudo_catalog(folder):
    """A catalog for PSEUDO in `folder` whose every translation is its English wrapped in
    OPEN ... CLOSE (each line of it), compiled: a page rendered in it shows any text that was
    not marked for translation as bare English."""
    folder = fresh_catalogs(folder, [PSEUDO])
    po = folder / PSEUDO / "LC_MESSAGES" / "django.po"
    # A language makemessages does not know gets a plural rule to fill in: English's.
    po.write_text(re.sub(r'"Plural-Forms: [^"]*"', r'"Plural-Forms: nplurals=2; plural=(n != 1);\\n"',
                         po.read_text(), count=1))
    english = po.with_suffix(".en.po")
    subprocess.run(["msgen", "-o", str(english), str(po)], check=True, timeout=120)
    subprocess.run(
        ["msgfilter", "--keep-header", "-i", str(english), "-o", str(po),
         "sed", "-e", f"s/^/{OPEN}/", "-e", f"s/$/{CLOSE}/"],
        check=True, timeout=300,
    )
    subprocess.run(["msgfmt", "-o", str(po.with_suffix(".mo")), str(po)], check=True, timeout=60)
    return folder
