"""Which links are live is written once (parties.access.LIVE): the tap's hand-written
statement (parties.services.tap_sql) is compiled from the ORM's query, so the pages' guard and
the tap cannot disagree about a revoked link, another party's, or another table's."""

import uuid

import pytest
from django.db import transaction

from parties import access
from parties.models import AccessLink
from parties.services import tap_sql
from parties.services.link import link_reissue
from tests.parties.test_play import new_party

pytestmark = pytest.mark.django_db


def test_the_taps_statement_is_the_orms_query_compiled():
    """With real values, the ORM compiles the very statement and parameters the tap runs."""
    party = new_party()
    for number in (1, 2, 3, 99):
        assert tap_sql.links_statement(party.id, number) == (
            *_compiled(access.scoring_links(party.id, number)),
        )


def _compiled(queryset):
    sql, params = queryset.query.sql_with_params()
    return sql, list(params)


def test_the_tap_and_the_pages_guard_read_the_same_live_links():
    """A session holding every link there is (live, revoked, another party's): for each table,
    the links the tap reads and keeps are those the pages' guard finds live and that could
    score there."""
    party = new_party()
    new_party()  # another party, whose links the session holds too
    first_keeper = AccessLink.objects.get(party=party, role="table", table__number=1)
    link_reissue(party=party, link_id=first_keeper.id)  # the old one is revoked
    host = AccessLink.objects.get(party=party, role="host")
    link_reissue(party=party, link_id=host.id)
    every_id = list(AccessLink.objects.values_list("id", flat=True))
    assert AccessLink.objects.filter(revoked_at__isnull=False).count() == 2
    session = {access.SESSION_LINKS: every_id}
    live = access._live_links(session, party.id)
    assert {link.party_id for link in live} == {party.id}
    assert not any(link.revoked_at for link in live)
    for number in (1, 2, 3, 4):
        expected = {
            (link.id, link.role, link.table.number if link.table else None)
            for link in live
            if link.role == "host" or (link.role == "table" and link.table.number == number)
        }
        with transaction.atomic():
            _party, reads = tap_sql.lock_and_read(party.id, number, uuid.uuid4())
        assert set(reads.links) == expected
        assert {role for _id, role, _n in reads.links} == ({"host", "table"} if number <= 3
                                                           else {"host"})
