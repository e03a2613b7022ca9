"""The club's pages, namespaced as clubs:<name>. (/join/, where a member types the club code,
is routed in bunco_site/urls.py ahead of the parties' pages: clubs.views.setup.join.)"""

from django.urls import path

from clubs.views import club, files, nights, setup, standings
from parties import converters  # noqa: F401 - registers the "id" converter

app_name = "clubs"
urlpatterns = [
    path("clubs/new/", setup.club_create, name="create"),
    path("clubs/import/", files.import_page, name="import"),
    path("clubs/l/<str:token>/", setup.redeem, name="redeem"),
    path("clubs/<id:club_id>/", club.home, name="home"),
    path("clubs/<id:club_id>/settings/", club.settings_set, name="settings"),
    path("clubs/<id:club_id>/link/reissue/", club.link_reissue, name="link_reissue"),
    path("clubs/<id:club_id>/rotation/", club.rotation_set, name="rotation"),
    path("clubs/<id:club_id>/rotation/print/", club.rotation_print, name="rotation_print"),
    path("clubs/<id:club_id>/members/new/", club.member_add, name="member_add"),
    path("clubs/<id:club_id>/members/leave/", club.member_leave, name="member_leave"),
    path("clubs/<id:club_id>/members/back/", club.member_back, name="member_back"),
    path("clubs/<id:club_id>/season/close/", club.season_close, name="season_close"),
    path("clubs/<id:club_id>/season/new/", club.season_start, name="season_start"),
    path("clubs/<id:club_id>/nights/new/", nights.night_create, name="night_create"),
    path("clubs/<id:club_id>/standings/", standings.standings, name="standings"),
    path("clubs/<id:club_id>/standings.csv", standings.standings_csv, name="standings_csv"),
    path("clubs/<id:club_id>/export.json", files.export_json, name="export_json"),
    path("clubs/<id:club_id>/seasons/<id:number>/print/", standings.season_print,
         name="season_print"),
]
