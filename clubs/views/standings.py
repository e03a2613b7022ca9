"""The season's standings: on screen, as a CSV file, and printed (a closed season's too). The
club code reads them, as the organizer does."""

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from clubs import access, pages, selectors
from parties.exchange.exports import content_disposition, csv_bytes


def _season(request, club, number=None):
    """The season asked for (its number, in the address or `?season=`), else the latest."""
    number = number if number is not None else request.GET.get("season", "")
    if number in ("", None):
        return selectors.latest_season(club)
    number = str(number)
    wanted = number.isascii() and number.isdigit() and len(number) < 6
    season = selectors.season_of(club, number) if wanted else None
    if season is None:
        raise Http404("No such season.")
    return season


@never_cache
@require_GET
def standings(request, club_id):
    club, grant = access.require_reader(request, club_id)
    context = pages.standings_context(club, _season(request, club), grant)
    return render(request, "clubs/standings.html", context)


@never_cache
@require_GET
def standings_csv(request, club_id):
    club, _grant = access.require_reader(request, club_id)
    season = _season(request, club)
    header, rows = pages.standings_table(club, season)
    response = HttpResponse(csv_bytes(header, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition(
        club.name, f"season {season.number} standings", "csv"
    )
    return response


@never_cache
@require_GET
def season_print(request, club_id, number):
    club, grant = access.require_reader(request, club_id)
    context = pages.standings_context(club, _season(request, club, number), grant)
    return render(request, "clubs/season_print.html", context)
