"""The house rules of the layout (docs/design.md), read from the code itself: the rules core
imports no shell, the writes no screens, the reads no writes and no pages, the pages no forms, a
view no other view, the bench's tooling no tests; clubs sit on parties, never the other way, and
keep the same layers, their standings' arithmetic as pure as scoring; every row write is a
service's; and no function of the app is longer than a reader takes in at once."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def module_name(path, root=ROOT):
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path, root=ROOT):
    """Every module `path` imports, as dotted names (`from a import b` gives a.b)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from a.b import c` is a.b.c: under a rule on a.b, and on a.b.c where c is a module.
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def modules(*packages):
    """Each module of `packages` (a package's every module, or a module alone) and its imports."""
    for package in packages:
        place = ROOT / package.replace(".", "/")
        paths = [place.with_suffix(".py")] if place.with_suffix(".py").is_file() else sorted(
            place.rglob("*.py"))
        assert paths, f"{package} is neither a module nor a package"
        for path in paths:
            if "migrations" not in path.parts:
                yield module_name(path), imports_of(path)


def under(name, prefixes):
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def broken(packages, forbidden, allowed=()):
    return sorted(
        (module, name)
        for module, names in modules(*packages)
        for name in names
        if under(name, forbidden) and not under(name, allowed)
    )


RULES = {
    # The rules of Bunco are plain Python: no framework, no shell.
    "scoring imports no Django, Channels or the shell": (
        ["scoring"], ["django", "channels", "daphne", "parties", "bunco_site"], []),
    # A write is called by views, consumers and the tap's door; it calls none of them.
    "services import no views, forms, pages or consumers": (
        ["parties.services"],
        ["parties.views", "parties.forms", "parties.pages", "parties.live.consumers"], []),
    # What a screen shows is read, never written on the way.
    "reads import no writes": (
        ["parties.selectors", "parties.pages", "parties.fuzzy_die"],
        ["parties.services"], ["parties.services.errors"]),
    # A page's context is built from reads; views call the pages, never the other way round.
    "pages import no views": (["parties.pages"], ["parties.views"], []),
    # Pages build from reads, not sideways from the create form (which may use pages' words).
    "pages import no forms": (["parties.pages"], ["parties.forms"], []),
    # The reads are below the page builders: a page reads, a read builds no page.
    "reads import no pages": (["parties.selectors", "parties.fuzzy_die"], ["parties.pages"], []),
    # One home for each screen's context (pages/): a view takes none from another view.
    "views import no other views": (
        ["parties.views"], ["parties.views"], ["parties.views.respond"]),
    # The bench's tooling serves the tests, not the other way round.
    "bench imports no tests": (["bench"], ["tests"], []),
    # Clubs sit on top of parties: a party knows nothing of the club whose night it is.
    "parties and scoring import nothing of clubs": (["parties", "scoring"], ["clubs"], []),
    # A season's arithmetic is plain Python, as scoring is: dataclasses in, dataclasses out.
    "the standings' arithmetic imports no Django, no shell and no database": (
        ["clubs.standings"],
        ["django", "channels", "daphne", "parties", "bunco_site", "clubs"], []),
    # The club's layers point the way the party's do.
    "club services import no views, forms, pages or consumers": (
        ["clubs.services"],
        ["clubs.views", "clubs.forms", "clubs.pages", "parties.views", "parties.forms",
         "parties.pages", "parties.live.consumers"], []),
    "club reads import no writes": (
        ["clubs.selectors", "clubs.pages"], ["clubs.services", "parties.services"],
        ["clubs.services.errors", "parties.services.errors"]),
    "club reads import no pages": (["clubs.selectors"], ["clubs.pages", "parties.pages"], []),
    "club pages import no views or forms": (
        ["clubs.pages"], ["clubs.views", "parties.views", "clubs.forms", "parties.forms"], []),
    # /join/ hands every code that is no club's to the party code's join, unchanged: the one
    # view a club view calls (test_only_the_join_hands_on_to_a_party_view).
    "club views import no other views": (
        ["clubs.views"], ["clubs.views", "parties.views"], ["parties.views.setup"]),
}


@pytest.mark.parametrize("rule", RULES)
def test_the_layout_keeps_its_import_rule(rule):
    packages, forbidden, allowed = RULES[rule]
    assert broken(packages, forbidden, allowed) == []


def test_the_rules_see_every_spelling_of_an_import(tmp_path):
    """A rule cannot pass by not seeing an import: plain, from, and relative ones all count."""
    module = tmp_path / "parties" / "pages" / "reads.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "from parties.services import party\nimport parties.services.roll\n"
        "from ..services import pot\n"
    )
    found = imports_of(module, tmp_path)
    assert {"parties.services.party", "parties.services.roll", "parties.services.pot"} <= found
    assert under("parties.services.pot", ["parties.services"])


def test_only_the_join_hands_on_to_a_party_view():
    handing_on = [module for module, names in modules("clubs.views")
                  if any(under(name, ["parties.views"]) for name in names)]
    assert handing_on == ["clubs.views.setup"]


LONGEST_FUNCTION = 60  # lines, its docstring included


def test_no_function_of_the_app_is_longer_than_60_lines():
    long = [
        (str(path.relative_to(ROOT)), node.name, node.end_lineno - node.lineno + 1)
        for package in ("scoring", "parties", "clubs", "bunco_site")
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > LONGEST_FUNCTION
    ]
    assert long == []


# A model's or a queryset's writes, spelled as the app spells them.
WRITE_CALLS = {"save", "delete", "bulk_create", "bulk_update", "create", "get_or_create",
               "update_or_create"}


def row_writes(path, root=ROOT):
    """Calls in `path` that write rows: x.save(), x.delete(), X.objects....create() and the
    like, and any .update() on a manager or a queryset (`.objects.` or `.filter(` before it)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        method, target = node.func.attr, ast.unparse(node.func.value)
        on_rows = ".objects" in target or "objects." in target or ".filter(" in target
        if method in {"save", "delete"} and "session" not in target or (
            method in WRITE_CALLS | {"update"} and on_rows
        ):
            found.append((str(path.relative_to(root)), node.lineno, f"{target}.{method}"))
    return found


def test_every_row_write_of_the_game_is_in_services():
    """Writes live in parties/services/ (the close and the tap's statements included); the
    admin (Django's own screens) and the migrations aside."""
    writes = [
        write
        for path in sorted((ROOT / "parties").rglob("*.py"))
        if not {"services", "migrations"} & set(path.parts) and path.name != "admin.py"
        for write in row_writes(path)
    ]
    assert writes == []


def test_every_row_write_of_a_club_is_in_its_services():
    """The club's writes live in clubs/services/, as the party's do in parties/services/."""
    writes = [
        write
        for path in sorted((ROOT / "clubs").rglob("*.py"))
        if not {"services", "migrations"} & set(path.parts) and path.name != "admin.py"
        for write in row_writes(path)
    ]
    assert writes == []


def test_the_write_finder_sees_the_usual_spellings(tmp_path):
    module = tmp_path / "writes.py"
    module.write_text(
        "link.save(update_fields=['revoked_at'])\nParty.objects.filter(pk=1).update(seq=2)\n"
        "Roll.objects.create(x=1)\nnames.update({})\nrequest.session.save()\n"
    )
    found = [call for _path, _line, call in row_writes(module, tmp_path)]
    assert found == ["link.save", "Party.objects.filter(pk=1).update", "Roll.objects.create"]
