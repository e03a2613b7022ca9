"""The Django app of Bunco clubs, built on the parties app's nights."""

from django.apps import AppConfig

# A club's rows that hang off a party (its night, who played as whom) and stay out of the
# party's own file: they point at the club's members and seasons, which a party file does not
# hold, so a night exported alone and imported elsewhere is a party like any other. A club's
# file (clubs.exchange) carries them beside each night's party file instead.
NOT_IN_PARTY_FILES = {
    "clubs.clubnight": "a club's night: the club's file carries it beside the party's",
    "clubs.nightplayer": "who played as which member: the club's file carries it",
}


class ClubsConfig(AppConfig):
    name = "clubs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # parties.exchange.exports finds a party's rows through every model that points at
        # Party, in any app, and leaves out those its NOT_EXPORTED names, with the reason:
        # the way it asks a model that points at a party to be named. Named here, at start-up,
        # before any export or import reads the list (party_models is cached on first use), so
        # the parties app knows nothing of clubs.
        from parties.exchange import exports

        exports.NOT_EXPORTED.update(NOT_IN_PARTY_FILES)
