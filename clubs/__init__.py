"""A Bunco club: members who meet month after month, each night a party of the parties app, and
the season's standings worked out from those nights' own rolls (docs/design.md, "Clubs")."""
