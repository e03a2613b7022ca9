"""The app's pages, namespaced as parties:<name>."""

from django.urls import path

from parties import views

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
]
