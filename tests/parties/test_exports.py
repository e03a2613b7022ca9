"""Downloads: the standings and every roll as CSV that spreadsheets open cleanly (and never run
as formulas), and the whole party as JSON, written from the models so nothing is forgotten and
no secret goes out."""

import csv
import datetime
import io
import json
import uuid

import pytest
from django.db import models
from django.urls import reverse

from parties import access, selectors
from parties.exchange import exports
from parties.models import AccessLink, Party, Roll, Round
from parties.services.prize import prize_rolloff_record
from parties.services.roll import roll_record
from parties.services.roll_correction import roll_correct
from parties.services.round import round_start
from parties.views.files import document_json
from scoring import PRESETS
from tests.parties.conftest import create_party, redeem
from tests.parties.test_corrections import play_round_one, roll_at
from tests.parties.test_play import new_party, scorer

pytestmark = pytest.mark.django_db


def read_csv(response):
    body = response.content
    assert body.startswith("\ufeff".encode())  # Excel reads UTF-8 only after a BOM
    text = body.decode("utf-8")[1:]
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")  # CRLF rows, nothing else
    return list(csv.reader(io.StringIO(text, newline="")))


def get(browser, name, party):
    return browser.get(reverse(f"parties:{name}", args=[party.id]))


# -- who may download what ------------------------------------------------------------------------


def test_anyone_at_the_party_downloads_the_standings_and_only_the_host_the_rest(
    host, keeper, player, code_viewer, stranger, other_host, party
):
    for browser in (host, keeper, player, code_viewer):
        assert get(browser, "results_csv", party).status_code == 200
    for browser in (stranger, other_host):
        assert get(browser, "results_csv", party).status_code == 403
    for name in ("rolls_csv", "export_json"):
        assert get(host, name, party).status_code == 200
        for browser in (keeper, player, code_viewer, stranger, other_host):
            assert get(browser, name, party).status_code == 403, name


def test_downloads_are_named_after_the_party_and_kept_by_no_cache(host):
    party = create_party(host, name="Soirée d'été / «Bunco»")
    response = get(host, "results_csv", party)
    disposition = response["Content-Disposition"]
    assert disposition.startswith('attachment; filename="Soiree-d-ete-Bunco-results.csv"; ')
    assert "filename*=UTF-8''Soir%C3%A9e%20d%27%C3%A9t%C3%A9%20-%20%C2%ABBunco%C2%BB%20results.csv" in (
        disposition
    )
    disposition.encode("latin-1")  # a header value every server can send
    assert "no-store" in response["Cache-Control"]
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert get(host, "export_json", party)["Content-Disposition"].startswith(
        'attachment; filename="Soiree-d-ete-Bunco-party.json"'
    )


def test_a_name_of_nothing_but_symbols_still_makes_a_file_name():
    assert exports.content_disposition("***", "rolls", "csv").startswith(
        "attachment; filename=\"rolls.csv\"; filename*=UTF-8''rolls.csv"
    )
    assert exports.content_disposition("", "", "csv").startswith(
        'attachment; filename="bunco-night.csv"'
    )


# -- the standings ----------------------------------------------------------------------------------


def test_the_standings_are_the_results_pages_rows_in_its_order_with_rank_and_prizes(host):
    party = new_party()
    play_round_one(party)
    rows, prize_rows = selectors.party_results(party)
    tied = next(prize for prize in prize_rows if prize.circuit)
    winner_id = tied.winners[0][0]
    prize_rolloff_record(
        party=party, category=tied.key,
        totals={pid: 18 if pid == winner_id else 3 for pid, _name in tied.winners},
    )
    redeem(host, AccessLink.objects.get(party=party, role="host"))
    table = read_csv(get(host, "results_csv", party))

    assert table[0] == [
        "Rank", "Player", "Wins", "Losses", "Buncos", "Mini Buncos", "Points", "Prizes won",
    ]
    rows, prize_rows = selectors.party_results(party)
    assert [line[1] for line in table[1:]] == [row.name for row in rows]
    for line, row in zip(table[1:], rows, strict=True):
        sheet = row.sheet
        numbers = [sheet.wins, sheet.losses, sheet.buncos, sheet.mini_buncos, sheet.points]
        assert line[2:7] == [str(n) for n in numbers]
    # Round 1 of 12 players: six won, six lost; equal standings share a rank.
    ranks = [int(line[0]) for line in table[1:]]
    assert ranks == sorted(ranks) and ranks[0] == 1 and len(set(ranks)) < len(ranks)
    winner_name = dict(tied.winners)[winner_id]
    prizes_of = {line[1]: line[7] for line in table[1:]}
    assert tied.label in prizes_of[winner_name].split("; ")
    still_tied = [p for p in prize_rows if p.circuit]
    for prize in still_tied:
        for _pid, name in prize.winners:
            assert f"{prize.label} (tie: roll-off)" in prizes_of[name]


def test_a_player_named_like_a_formula_comes_out_as_text(host):
    names = ['=HYPERLINK("http://x","y")', "+1", "-2", "@SUM(A1)", "\tTab", "\rCR", "Ann", "Bea"]
    party = new_party(names=names)  # the service takes any name; the form is stricter
    redeem(host, AccessLink.objects.get(party=party, role="host"))
    table = read_csv(get(host, "results_csv", party))
    shown = {line[1] for line in table[1:]}
    for name in names[:6]:
        assert "'" + name in shown
    assert {"Ann", "Bea"} <= shown
    assert all(line[2].isdigit() and line[6].isdigit() for line in table[1:])  # numbers stay


def test_every_cell_that_could_start_a_formula_is_neutralised():
    for start in ("=", "+", "-", "@", "\t", "\r"):
        assert exports.neutralised(f"{start}1+1") == f"'{start}1+1"
    assert exports.neutralised("Ann = 1") == "Ann = 1"
    assert exports.neutralised(21) == 21 and exports.neutralised(None) == ""


# -- every roll ---------------------------------------------------------------------------------------


def test_the_rolls_file_lists_every_roll_as_entered_voided_ones_too(host):
    party = new_party()
    closed = play_round_one(party)
    correction = roll_correct(
        party=party, roll_id=roll_at(closed, 2, (1, 5, 6)).id, by="host", dice=(1, 1, 1)
    )
    round_start(party=party)
    roll_record(
        party_id=party.id, table_number=2, tap_id=uuid.uuid4(), dice=None, outcome="two",
        called=None, seen=0, link_ids=scorer(party, 2),
    )
    redeem(host, AccessLink.objects.get(party=party, role="host"))
    table = read_csv(get(host, "rolls_csv", party))

    header = table[0]
    assert header == exports.ROLLS_HEADER
    lines = [dict(zip(header, line, strict=True)) for line in table[1:]]
    assert len(lines) == Roll.objects.filter(round__party=party).count()
    assert {line["Tap id"] for line in lines} == {
        str(t) for t in Roll.objects.filter(round__party=party).values_list("tap_id", flat=True)
    }
    voided = [line for line in lines if line["Voided"] == "yes"]
    # Only the corrected roll is voided, once, and its correction follows it in its place.
    assert len(voided) == Roll.objects.filter(voided_by=correction).count() == 1
    in_its_place = lines[lines.index(voided[0]) + 1]
    assert (in_its_place["Dice or entry"], in_its_place["Voided"]) == ("1 1 1", "no")
    assert all(line["Voided by"].startswith("Correction by host, ") for line in voided)
    assert "1 5 6 → 1 1 1" in voided[0]["Voided by"]
    bunco = next(
        line for line in lines
        if line["Dice or entry"] == "1 1 1" and line["Voided"] == "no" and line["Table"] == "2"
    )
    assert (bunco["Points"], bunco["Bunco or mini"], bunco["Called"]) == ("21", "Bunco", "yes")
    # "Called" only where the rules ask a call: never on a miss or plain points.
    assert {line["Called"] for line in lines if line["Bunco or mini"] == ""} == {""}
    # Each roll of round 1 before the head table's Bunco rang the bell, or after it while the
    # turns in hand finished; none was entered late. Round 2 has no bell yet.
    round_one = [line for line in lines if line["Round"] == "1" and line["Voided"] == "no"]
    when = [(line["Table"], line["Dice or entry"], line["When"]) for line in round_one]
    assert ("2", "1 1 4", "before the bell") in when and ("3", "1 2 3", "before the bell") in when
    assert ("1", "1 1 1", "before the bell") in when  # the roll that rang it
    assert ("2", "1 2 6", "after the bell") in when
    assert {line["Entered after the bell"] for line in lines} == {"no"}
    assert lines[-1]["When"] == ""
    quick = lines[-1]
    assert (quick["Set"], quick["Round"], quick["Table"]) == ("1", "2", "2")
    assert (quick["Dice or entry"], quick["Points"], quick["Bunco or mini"]) == ("2 points", "2", "")
    for line in lines:
        entered = datetime.datetime.fromisoformat(line["Entered at"])  # ISO 8601
        assert entered.tzinfo is not None
        assert line["Points"].isdigit()


def test_a_dice_total_roll_off_throw_has_no_points():
    from dataclasses import replace

    rules = replace(PRESETS["standard"], tie_break="rolloff_dice_total")
    roll = Roll(
        phase=Roll.Phase.ROLLOFF, die1=6, die2=6, die3=6, called=True, round=Round(target=6)
    )
    assert exports.roll_score(roll, rules) is None
    roll.phase = Roll.Phase.PLAY
    assert exports.roll_score(roll, rules).kind == "bunco"


# -- the whole party as JSON ------------------------------------------------------------------------


def models_reached_from_party():
    """Every model with a row that belongs to a party: reached from Party through the reverse
    side of foreign keys (hidden ones too), in any app. Walked here on its own, not through
    exports.party_models, so the two can disagree."""
    reached, todo = set(), [Party]
    while todo:
        model = todo.pop()
        for field in model._meta.get_fields(include_hidden=True):
            if field.auto_created and not field.concrete and (field.one_to_many or field.one_to_one):
                child = field.related_model
                if child not in reached and child is not Party:
                    reached.add(child)
                    todo.append(child)
            if field.many_to_many and not field.auto_created:
                reached.add(field.remote_field.through)
    return {model._meta.label_lower for model in reached} | {"parties.party"}


def test_every_model_that_points_at_a_party_is_exported_or_left_out_on_purpose():
    exported = {model._meta.label_lower for model, _path in exports.party_models()}
    assert exported | set(exports.NOT_EXPORTED) == models_reached_from_party(), (
        "A model holds party rows that the export does not write: export it, or name it in "
        "exports.NOT_EXPORTED with the reason"
    )
    assert not exported & set(exports.NOT_EXPORTED)


def test_every_field_of_every_exported_model_is_a_column_of_the_file(party):
    document = exports.party_document(party)
    for model, _path in exports.party_models():
        left_out = exports.NOT_EXPORTED_FIELDS.get(model._meta.label_lower, set())
        expected = {"id"} | {f.name for f in model._meta.concrete_fields if not f.primary_key}
        assert set(document["models"][model._meta.label_lower]["columns"]) == expected - left_out
    assert "pot" in document["models"]["parties.party"]["columns"]


def test_every_id_held_in_a_plain_column_is_declared_for_the_import():
    for model, _path in exports.party_models():
        for field in model._meta.concrete_fields:
            if isinstance(field, models.IntegerField) and not field.is_relation:
                if field.name.endswith("_id") and not field.primary_key:
                    assert (model._meta.label_lower, field.name) in exports.ROW_ID_FIELDS


def test_the_file_names_its_format_and_version_and_holds_no_secret(host, keeper, party):
    response = get(host, "export_json", party)
    text = response.content.decode()
    document = json.loads(text)
    assert (document["format"], document["version"]) == ("bunco-night-party", 1)
    assert response["Content-Type"] == "application/json"
    assert document == json.loads(document_json(exports.party_document(party))) | {
        "exported_at": document["exported_at"]
    }
    links = AccessLink.objects.filter(party=party)
    assert links.count() > 1
    for link in links:
        assert link.salt not in text and link.token_hash not in text
        assert access.token_for(link) not in text
    assert party.code not in text
    for browser in (host, keeper):
        assert browser.session.session_key not in text
    assert "salt" not in text and "token_hash" not in text


def test_the_file_is_one_moment_of_the_party_read_under_its_lock(party, monkeypatch):
    locked = []
    monkeypatch.setattr(exports, "lock_party", lambda p: locked.append(p.pk))
    exports.party_document(party)
    assert locked == [party.pk]


def test_every_model_is_found_through_a_link_every_row_has():
    # A nullable link finds only the rows that use it: rolls found through `voided_by` were
    # only the voided ones, and which link was taken depended on the order a set of models
    # happened to iterate in (the import test lost a roll about one run in five).
    members = {model for model, _path in exports.party_models()}
    for model, path in exports.party_models():
        if path == "pk":
            continue
        first = model._meta.get_field(path.split("__")[0])
        required = [f for f in model._meta.concrete_fields
                    if f.is_relation and f.related_model in members and not f.null]
        if required:
            assert not first.null, (model._meta.label, path)
