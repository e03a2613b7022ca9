"""The club's writes: every function that changes a club's rows, one module per entity, each
named `<entity>_<action>` with keyword-only arguments, as parties.services.

Each locks the club's row first (club.lock_club), so one club's writes are serialised, checks
what it is asked and refuses with ClubError (errors) before anything is saved. A night is a
party: night_create makes it with parties.services.party.party_create, in the same transaction.

    club         club_create, club_settings_set, club_link_reissue; lock_club
    night        night_create
    season       season_close, season_start, rotation_set
    club_import  club_import (the club's file: its rows, and each night's party file)
    errors       ClubError

Views call these; these call the club's and the parties' models and reads, parties' services
and scoring/, never a view, a form or a page.
"""
