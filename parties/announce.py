"""Pushes to the phones, sent only after the write commits. Each update is rendered or
serialised once, and the same bytes go to every phone that shows it (PERFORMANCE.md)."""

import json

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from parties import live


def party_group(party_id):
    return f"party-{party_id}"


def table_group(party_id, number):
    return f"party-{party_id}-table-{number}"


def _send(group, message):
    text = json.dumps(message, separators=(",", ":"))
    async_to_sync(get_channel_layer().group_send)(group, {"type": "push", "text": text})


def on_commit_table(party, round_, live_round, number):
    seq = party.seq

    def push():
        html = live.render_table(
            party=party, round_=round_, live=live_round, number=number,
            names=live_round.names, seq=seq,
        )
        version = live_round.extras[number - 1].version
        _send(
            table_group(party.id, number),
            {"type": "table", "seq": seq, "round": round_.id, "table": number,
             "version": version, "html": html},
        )

    transaction.on_commit(push)


def on_commit_bell(party, round_, by):
    seq = party.seq
    message = {"type": "bell", "seq": seq, "round": round_.id, "by": by}
    transaction.on_commit(lambda: _send(party_group(party.id), message))


def on_commit_round(party, what):
    """A party-wide change (a round started or closed, a pause, a correction): phones refetch."""
    seq = party.seq
    message = {"type": "round", "seq": seq, "what": what}
    transaction.on_commit(lambda: _send(party_group(party.id), message))
