"""The app's pages, namespaced as parties:<name>."""

from django.urls import path

from parties import converters  # noqa: F401 - registers the "id" converter
from parties.views import (
    corrections,
    files,
    guests,
    host,
    manifest,
    paper,
    play,
    players,
    seats,
    setup,
    table,
    tv,
)

app_name = "parties"
urlpatterns = [
    path("", setup.landing, name="landing"),
    path("healthz", setup.healthz, name="healthz"),
    path("parties/new/", setup.party_create, name="create"),
    path("parties/new/plan/", setup.party_create_plan, name="create_plan"),
    path("parties/import/", files.import_page, name="import"),
    path("join/", setup.join, name="join"),
    path("join/waiting/", guests.waiting, name="waiting"),
    path("l/<str:token>/", setup.redeem, name="redeem"),
    path("parties/<id:party_id>/", players.party_view, name="party"),
    path("parties/<id:party_id>/manifest.webmanifest", manifest.manifest, name="manifest"),
    path("parties/<id:party_id>/host/", host.host, name="host"),
    path("parties/<id:party_id>/host/reshuffle/", host.host_reshuffle, name="reshuffle"),
    path("parties/<id:party_id>/host/swap/", host.host_swap, name="swap"),
    path(
        "parties/<id:party_id>/host/links/<id:link_id>/reissue/",
        host.link_reissue,
        name="link_reissue",
    ),
    path("parties/<id:party_id>/host/links/<id:link_id>/qr.svg", host.link_qr, name="link_qr"),
    path("parties/<id:party_id>/host/cards/", paper.table_cards, name="table_cards"),
    path(
        "parties/<id:party_id>/host/paper-language/", host.paper_language, name="paper_language"
    ),
    path("parties/<id:party_id>/host/player-cards/", paper.player_cards, name="player_cards"),
    path("parties/<id:party_id>/rules/", paper.rules_sheet, name="rules_sheet"),
    path("parties/<id:party_id>/sheets/", paper.score_sheets, name="score_sheets"),
    path("parties/<id:party_id>/tally/", paper.tally_sheets, name="tally_sheets"),
    path("parties/<id:party_id>/table/<id:number>/", table.table, name="table"),
    path("parties/<id:party_id>/players/<id:player_id>/", players.player, name="player"),
    path("parties/<id:party_id>/results/", players.results, name="results"),
    path("parties/<id:party_id>/results.csv", files.results_csv, name="results_csv"),
    path("parties/<id:party_id>/rolls.csv", files.rolls_csv, name="rolls_csv"),
    path("parties/<id:party_id>/export.json", files.export_json, name="export_json"),
    path("parties/<id:party_id>/tv/", tv.tv, name="tv"),
    path("parties/<id:party_id>/table/<id:number>/rolls/", play.roll_create, name="roll"),
    path("parties/<id:party_id>/table/<id:number>/undo/", play.roll_undo, name="undo"),
    path(
        "parties/<id:party_id>/table/<id:number>/scorekeeper/",
        seats.scorekeeper_set,
        name="keep_score",
    ),
    path("parties/<id:party_id>/start/", play.round_start, name="start"),
    path("parties/<id:party_id>/clock/", play.clock_ran_out, name="clock"),
    path("parties/<id:party_id>/host/bell/", play.bell_ring, name="bell"),
    path("parties/<id:party_id>/host/pause/", play.party_pause, name="pause"),
    path("parties/<id:party_id>/host/resume/", play.party_resume, name="resume"),
    path("parties/<id:party_id>/host/end/", play.party_end, name="end"),
    path("parties/<id:party_id>/host/leave/", play.player_leave, name="leave"),
    path(
        "parties/<id:party_id>/host/prizes/<slug:category>/rolloff/",
        play.prize_rolloff,
        name="prize_rolloff",
    ),
    path("parties/<id:party_id>/host/pot/", play.pot_set, name="pot_set"),
    path("parties/<id:party_id>/host/arrive/", play.player_arrive, name="arrive"),
    path("parties/<id:party_id>/host/playing/", host.host_plays, name="host_plays"),
    path(
        "parties/<id:party_id>/host/guests/<id:guest_id>/seat/",
        guests.guest_seat,
        name="guest_seat",
    ),
    path(
        "parties/<id:party_id>/host/guests/<id:guest_id>/merge/",
        guests.guest_merge,
        name="guest_merge",
    ),
    path(
        "parties/<id:party_id>/host/guests/<id:guest_id>/turn-away/",
        guests.guest_turn_away,
        name="guest_turn_away",
    ),
    path(
        "parties/<id:party_id>/host/rounds/<id:round_id>/rolls/",
        corrections.round_rolls,
        name="round_rolls",
    ),
    path(
        "parties/<id:party_id>/host/rolls/<id:roll_id>/void/",
        corrections.roll_void,
        name="void",
    ),
    path(
        "parties/<id:party_id>/host/rolls/<id:roll_id>/correct/",
        corrections.roll_correct,
        name="correct",
    ),
    path(
        "parties/<id:party_id>/host/late/<id:late_tap_id>/apply/",
        corrections.late_tap_apply,
        name="late_apply",
    ),
    path(
        "parties/<id:party_id>/host/late/<id:late_tap_id>/dismiss/",
        corrections.late_tap_dismiss,
        name="late_dismiss",
    ),
]
