"""The app's pages, namespaced as parties:<name>."""

from django.urls import path

from parties import play_views, views

app_name = "parties"
urlpatterns = [
    path("", views.landing, name="landing"),
    path("healthz", views.healthz, name="healthz"),
    path("parties/new/", views.party_create, name="create"),
    path("join/", views.join, name="join"),
    path("l/<str:token>/", views.redeem, name="redeem"),
    path("parties/<int:party_id>/", views.party_view, name="party"),
    path("parties/<int:party_id>/host/", views.host, name="host"),
    path("parties/<int:party_id>/host/reshuffle/", views.host_reshuffle, name="reshuffle"),
    path("parties/<int:party_id>/host/swap/", views.host_swap, name="swap"),
    path(
        "parties/<int:party_id>/host/links/<int:link_id>/reissue/",
        views.link_reissue,
        name="link_reissue",
    ),
    path("parties/<int:party_id>/host/cards/", views.table_cards, name="table_cards"),
    path("parties/<int:party_id>/table/<int:number>/", views.table, name="table"),
    path("parties/<int:party_id>/players/<int:player_id>/", views.player, name="player"),
    path("parties/<int:party_id>/results/", views.results, name="results"),
    path("parties/<int:party_id>/table/<int:number>/rolls/", play_views.roll_create, name="roll"),
    path("parties/<int:party_id>/table/<int:number>/undo/", play_views.roll_undo, name="undo"),
    path("parties/<int:party_id>/start/", play_views.round_start, name="start"),
    path("parties/<int:party_id>/clock/", play_views.clock_out, name="clock"),
    path("parties/<int:party_id>/host/bell/", play_views.bell_ring, name="bell"),
    path("parties/<int:party_id>/host/pause/", play_views.party_pause, name="pause"),
    path("parties/<int:party_id>/host/resume/", play_views.party_resume, name="resume"),
    path("parties/<int:party_id>/host/end/", play_views.party_end, name="end"),
    path("parties/<int:party_id>/host/leave/", play_views.player_leave, name="leave"),
    path(
        "parties/<int:party_id>/host/prizes/<slug:category>/rolloff/",
        play_views.prize_rolloff,
        name="prize_rolloff",
    ),
    path("parties/<int:party_id>/host/arrive/", play_views.player_arrive, name="arrive"),
    path(
        "parties/<int:party_id>/host/rolls/<int:roll_id>/void/",
        play_views.roll_void,
        name="void",
    ),
]
