"""Create a 12-player demo party and print the links that open it."""

from django.core.management.base import BaseCommand
from django.utils.translation import gettext as _

from parties import selectors
from parties.party_codes import party_code_shown
from parties.services.party import party_create
from scoring import PRESETS

DEMO_PLAYERS = [
    "Ann", "Bea", "Cleo", "Dot", "Edie", "Fran", "Gail", "Hope", "Iris", "June", "Kay", "Lou",
]


class Command(BaseCommand):
    help = "Create a 12-player demo party and print its host, table and player links."

    def add_arguments(self, parser):
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")
        parser.add_argument("--preset", default="standard", choices=sorted(PRESETS))
        parser.add_argument("--players", type=int, default=12, help="4 to 12 demo players")

    def handle(self, *args, base_url, preset, players, **options):
        names = DEMO_PLAYERS[: max(4, min(players, len(DEMO_PLAYERS)))]
        party = party_create(
            name="Demo Bunco Night", player_names=names, preset=preset, rules=PRESETS[preset]
        )
        code = party_code_shown(party.code)  # in groups, as the cards show it
        self.stdout.write(
            # Translators: the demo party's first line in the terminal; %(preset)s is the
            # preset's key ("standard", "wba"), which the command's --preset option takes.
            _("Demo party “%(name)s”, code %(code)s (%(preset)s rules):")
            % {"name": party.name, "code": code, "preset": preset}
        )
        for link in selectors.party_links(party, base_url):
            self.stdout.write(f"  {link.label:<20} {link.url}")
        join = f"{base_url.rstrip('/')}/join/"
        self.stdout.write(
            _("Players without a link: %(url)s code %(code)s") % {"url": join, "code": code}
        )
