"""The writes: every function that changes the database, one module per entity, each named
`<entity>_<action>` with keyword-only arguments.

Each takes one path: lock the party's row (changes.lock_party) and load what it decides on,
ask scoring/ what follows, refuse with PartyError (errors) before anything is saved, save, and
announce after commit (changes.party_changed moves the party's sequence number on and tells its
pages to refetch). The lock serialises one party's writes; other parties are not held up.

    party         party_create, party_reshuffle, party_swap_players, party_reseat,
                  party_pause, party_resume, party_end
    party_import  party_import
    party_file    the party file read in pieces, for party_import (no services of its own)
    round         round_start, bell_ring
    roll          roll_record (the tap), roll_undo
    roll_correction  roll_void, roll_correct, correction_preview (what either would change)
    roll_judging  what one roll does as the table stands (for roll_record; no services)
    tap_sql       the tap's statements, written by hand: the lock and fresh reads, the roll
    round_close   the round's close, inside the write that ended the round (no services)
    close_sql     the close's rows, one statement a kind, written while the seats render
    late_tap      late_tap_hold, late_tap_apply, late_tap_dismiss
    player        player_leave, player_arrive, player_add, players_swap
    guests        guest_join, guest_seat, guest_merge, guest_turn_away
    scorekeeper   scorekeeper_choose
    link          link_reissue
    prize         prize_rolloff_record
    pot           pot_set
    correction    the steps the corrections share (no services of their own)
    changes       lock_party, seq_bump, party_changed, host_changed
    errors        PartyError, StaleTap

Views, consumers and the tap's ASGI entry call these; the services call parties' models, reads
and pushes and scoring/, never a view, a form or a consumer.
"""
