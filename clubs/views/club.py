"""The club page (members, nights, rotation, standings, links) and the organizer's changes:
the settings, a new organizer link, the host rotation, the members, closing the season and
starting the next. Every view opens with its guard (clubs.access): the organizer's link
changes the club, the club code reads it."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from clubs import access, pages, selectors
from clubs.forms import ClubSettingsForm, RotationForm
from clubs.services import club as club_service
from clubs.services import members as members_service
from clubs.services import season as season_service
from parties.services.errors import PartyError
from parties.translation import rule_error_text


# never_cache on every club page: they show the club's code, its members and, to the
# organizer, its links, which no proxy, shared cache or disk cache may keep.
@never_cache
@require_GET
def home(request, club_id):
    club, grant = access.require_reader(request, club_id)
    made = request.GET.get("night", "")
    made = int(made) if made.isascii() and made.isdigit() and len(made) < 12 else None
    context = pages.club_context(request, club, grant, made)
    if grant.organizer:
        season = context["season"]
        context["settings_form"] = ClubSettingsForm(
            initial={"ranking": club.ranking, "subs_count_for_member": club.subs_count_for_member}
        )
        if season.closed_at is None:
            context["rotation_form"] = RotationForm(
                months=context["rotation"], members=context["members"]
            )
    return render(request, "clubs/home.html", context)


def _back(club, anchor=""):
    return redirect(reverse("clubs:home", args=[club.id]) + anchor)


def _change(request, club, change, done, anchor=""):
    """Run an organizer's change; its refusal or `done` as the page's message."""
    try:
        change()
    except PartyError as error:
        messages.error(request, rule_error_text(error))
    else:
        messages.success(request, done)
    return _back(club, anchor)


@require_POST
def settings_set(request, club_id):
    club, _grant = access.require_organizer(request, club_id)
    form = ClubSettingsForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Pick what ranks the season."))
        return _back(club, "#settings")
    return _change(
        request, club,
        lambda: club_service.club_settings_set(club=club, **form.cleaned_data),
        _("Settings saved: the standings are worked out again with them."), "#settings",
    )


@require_POST
def link_reissue(request, club_id):
    club, _grant = access.require_organizer(request, club_id)
    new = club_service.club_link_reissue(club=club)
    access.redeem(request, new)  # the organizer keeps the access they just renewed
    messages.success(request, _("New link made; the old one no longer opens anything."))
    return _back(club, "#links")


@require_POST
def rotation_set(request, club_id):
    club, _grant = access.require_organizer(request, club_id)
    season = selectors.season_in_play(club)
    if season is None:
        messages.error(request, _("The season is closed: its host rotation stays as it was."))
        return _back(club, "#rotation")
    form = RotationForm(request.POST, months=selectors.rotation(season),
                        members=selectors.current_members(selectors.members(club)))
    if not form.is_valid():
        messages.error(request, _("Pick each month's host among the members."))
        return _back(club, "#rotation")
    return _change(
        request, club, lambda: season_service.rotation_set(club=club, hosts=form.hosts()),
        _("Host rotation saved."), "#rotation",
    )


@never_cache
@require_GET
def rotation_print(request, club_id):
    club, grant = access.require_reader(request, club_id)
    return render(request, "clubs/rotation_print.html", pages.rotation_context(club, grant))


def _chosen(request):
    """The member the form's list chose (the service refuses one that is not the club's)."""
    raw = request.POST.get("member", "")
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 12 else 0


@require_POST
def member_add(request, club_id):
    club, _grant = access.require_organizer(request, club_id)
    name = request.POST.get("name", "")
    return _change(
        request, club, lambda: members_service.member_add(club=club, name=name),
        _("%(name)s is a member now.") % {"name": " ".join(name.split())}, "#members",
    )


@require_POST
def member_leave(request, club_id):
    club, _grant = access.require_organizer(request, club_id)
    member_id = _chosen(request)
    freed = []
    done = _change(
        request, club,
        lambda: freed.extend(members_service.member_leave(club=club, member_id=member_id)),
        _("They have left the club; the nights they played stay in the standings."), "#members",
    )
    if freed:
        messages.warning(request, _("The months they were to host have nobody yet: %(months)s.")
                         % {"months": ", ".join(date_format(m, "YEAR_MONTH_FORMAT")
                                                for m in freed)})
    return done


@require_POST
def member_back(request, club_id):
    club, _grant = access.require_organizer(request, club_id)
    member_id = _chosen(request)
    return _change(
        request, club, lambda: members_service.member_back(club=club, member_id=member_id),
        _("Welcome back: a member again, with the nights played before."), "#members",
    )


@require_POST
def season_close(request, club_id):
    club, _grant = access.require_organizer(request, club_id)
    return _change(
        request, club, lambda: season_service.season_close(club=club),
        _("The season is closed. Its standings stay, to print; start the next when you like."),
        "#season",
    )


@require_POST
def season_start(request, club_id):
    club, _grant = access.require_organizer(request, club_id)
    return _change(
        request, club,
        lambda: season_service.season_start(club=club, today=timezone.localdate()),
        _("A new season has started, with the same members."), "#season",
    )
