"""The app's pages, namespaced as parties:<name>."""

from django.urls import path

from parties import (
    app_manifest,
    converters,  # noqa: F401 - registers the "id" converter
    correction_views,
    export_views,
    play_views,
    seat_views,
    views,
)
from parties.printables import player_cards, rules_sheet, score_sheets, tally_sheets
from parties.tv_views import tv

app_name = "parties"
urlpatterns = [
    path("", views.landing, name="landing"),
    path("healthz", views.healthz, name="healthz"),
    path("parties/new/", views.party_create, name="create"),
    path("parties/new/plan/", views.party_create_plan, name="create_plan"),
    path("parties/import/", export_views.import_page, name="import"),
    path("join/", views.join, name="join"),
    path("l/<str:token>/", views.redeem, name="redeem"),
    path("parties/<id:party_id>/", views.party_view, name="party"),
    path("parties/<id:party_id>/manifest.webmanifest", app_manifest.manifest, name="manifest"),
    path("parties/<id:party_id>/host/", views.host, name="host"),
    path("parties/<id:party_id>/host/reshuffle/", views.host_reshuffle, name="reshuffle"),
    path("parties/<id:party_id>/host/swap/", views.host_swap, name="swap"),
    path(
        "parties/<id:party_id>/host/links/<id:link_id>/reissue/",
        views.link_reissue,
        name="link_reissue",
    ),
    path(
        "parties/<id:party_id>/host/links/<id:link_id>/qr.svg", views.link_qr, name="link_qr"
    ),
    path("parties/<id:party_id>/host/cards/", views.table_cards, name="table_cards"),
    path("parties/<id:party_id>/host/player-cards/", player_cards, name="player_cards"),
    path("parties/<id:party_id>/rules/", rules_sheet, name="rules_sheet"),
    path("parties/<id:party_id>/sheets/", score_sheets, name="score_sheets"),
    path("parties/<id:party_id>/tally/", tally_sheets, name="tally_sheets"),
    path("parties/<id:party_id>/table/<id:number>/", views.table, name="table"),
    path("parties/<id:party_id>/players/<id:player_id>/", views.player, name="player"),
    path("parties/<id:party_id>/results/", views.results, name="results"),
    path("parties/<id:party_id>/results.csv", export_views.results_csv, name="results_csv"),
    path("parties/<id:party_id>/rolls.csv", export_views.rolls_csv, name="rolls_csv"),
    path("parties/<id:party_id>/export.json", export_views.export_json, name="export_json"),
    path("parties/<id:party_id>/tv/", tv, name="tv"),
    path("parties/<id:party_id>/table/<id:number>/rolls/", play_views.roll_create, name="roll"),
    path("parties/<id:party_id>/table/<id:number>/undo/", play_views.roll_undo, name="undo"),
    path(
        "parties/<id:party_id>/table/<id:number>/scorekeeper/",
        seat_views.scorekeeper_set,
        name="keep_score",
    ),
    path("parties/<id:party_id>/start/", play_views.round_start, name="start"),
    path("parties/<id:party_id>/clock/", play_views.clock_ran_out, name="clock"),
    path("parties/<id:party_id>/host/bell/", play_views.bell_ring, name="bell"),
    path("parties/<id:party_id>/host/pause/", play_views.party_pause, name="pause"),
    path("parties/<id:party_id>/host/resume/", play_views.party_resume, name="resume"),
    path("parties/<id:party_id>/host/end/", play_views.party_end, name="end"),
    path("parties/<id:party_id>/host/leave/", play_views.player_leave, name="leave"),
    path(
        "parties/<id:party_id>/host/prizes/<slug:category>/rolloff/",
        play_views.prize_rolloff,
        name="prize_rolloff",
    ),
    path("parties/<id:party_id>/host/pot/", play_views.pot_set, name="pot_set"),
    path("parties/<id:party_id>/host/arrive/", play_views.player_arrive, name="arrive"),
    path(
        "parties/<id:party_id>/host/rounds/<id:round_id>/rolls/",
        correction_views.round_rolls,
        name="round_rolls",
    ),
    path(
        "parties/<id:party_id>/host/rolls/<id:roll_id>/void/",
        correction_views.roll_void,
        name="void",
    ),
    path(
        "parties/<id:party_id>/host/rolls/<id:roll_id>/correct/",
        correction_views.roll_correct,
        name="correct",
    ),
    path(
        "parties/<id:party_id>/host/late/<id:late_tap_id>/apply/",
        correction_views.late_tap_apply,
        name="late_apply",
    ),
    path(
        "parties/<id:party_id>/host/late/<id:late_tap_id>/dismiss/",
        correction_views.late_tap_dismiss,
        name="late_dismiss",
    ),
]
