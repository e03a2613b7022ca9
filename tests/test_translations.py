"""The translations are whole and shipped as they are written: every message the code marks has
a Spanish and a French translation, none fuzzy, each keeping its placeholders (msgfmt --check);
and the compiled catalogs in locale/ (which the app reads; nothing compiles them at start) say
what their .po files say."""

import gettext

import pytest

from tests.catalogs import LANGUAGES, LOCALE, fresh_catalogs, statistics

pytestmark = pytest.mark.needs_gettext


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory):
    return fresh_catalogs(tmp_path_factory.mktemp("locale"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_the_code_marks_is_translated_and_none_is_fuzzy(catalogs, language):
    counts = statistics(catalogs / language / "LC_MESSAGES" / "django.po")
    assert counts["translated"] > 500, counts
    assert (counts["untranslated"], counts["fuzzy"]) == (0, 0), (
        f"{counts}: run the makemessages of docs/languages.md and translate what it adds"
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalog_is_its_po_file_compiled(tmp_path, language):
    import subprocess

    folder = LOCALE / language / "LC_MESSAGES"
    compiled = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "--check", "-o", str(compiled), str(folder / "django.po")],
                   check=True, timeout=60)
    with open(compiled, "rb") as fresh, open(folder / "django.mo", "rb") as shipped:
        assert gettext.GNUTranslations(shipped)._catalog == gettext.GNUTranslations(fresh)._catalog, (
            f"locale/{language}: run `.venv/bin/python manage.py compilemessages`"
        )
