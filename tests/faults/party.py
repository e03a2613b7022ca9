"""A party for a fault test, made by the app's own services in a process of its own (on the
servers' database), and the names and dice the tests play with."""

import json
import subprocess
import sys

from bench.servers import ROOT
from tests.faults.phone import Phone

TWELVE = ["Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris", "June", "Kay", "Lou"]
SIXTEEN = TWELVE + ["Mae", "Nell", "Opal", "Pearl"]
SCORE, MISS, BUNCO = (1, 2, 3), (2, 3, 4), (1, 1, 1)  # in round 1 (target 1)

CREATE = """
import json, django
django.setup()
from parties import access
from parties.models import AccessLink
from parties.services.party import party_create
from dataclasses import replace
from scoring import PRESETS
rules = replace(PRESETS[PRESET], **CHANGES)
party = party_create(name="Fault night", player_names=NAMES, preset=PRESET, rules=rules)
links = {"host": None, "tables": {}}
for link in AccessLink.objects.filter(party=party).select_related("table"):
    if link.role == "host":
        links["host"] = access.token_for(link)
    elif link.role == "table":
        links["tables"][link.table.number] = access.token_for(link)
print(json.dumps({"party": party.id, "links": links}))
"""


class Party:
    """A party's id and the tokens of its host's and tables' links."""

    def __init__(self, party_id, links):
        self.id = party_id
        self.host_token = links["host"]
        self.table_tokens = {int(n): t for n, t in links["tables"].items()}


def create_party(env, preset="standard", names=TWELVE, **changes):
    """A party of `names` on `preset`, with any rule `changes` (Rules fields), made with the
    servers' environment `env`."""
    script = f"NAMES = {names!r}\nPRESET = {preset!r}\nCHANGES = {changes!r}\n" + CREATE
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                            capture_output=True, text=True, check=True, timeout=60)
    data = json.loads(result.stdout.strip().splitlines()[-1])
    return Party(data["party"], data["links"])


def started_party(make_party, daphnes, names=TWELVE, **changes):
    """A party on two daphne processes, its round 1 started by the host (on the first)."""
    party = make_party(names=names, **changes)
    servers = [daphnes(), daphnes()]
    host = Phone(servers[0], party, party.host_token)
    host.start_round()
    return party, servers, host
