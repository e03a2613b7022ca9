"""What the screens' views answer with: a page, or its live region for htmx, the live tables
rendered once, and a page in the language of the party's paper."""

import functools

from django.conf import settings
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import translation

from parties.models import Party
from parties.pages import fragments


def page(request, template, context):
    """The page, or only its live region for htmx (a resync after a push or a reconnect)."""
    return render(request, f"{template}#live" if request.htmx else template, context)


def live_html(party, round_, numbers):
    return [
        render_to_string("parties/_live_table.html", context)
        for context in fragments.live_tables(party, round_, numbers)
    ]


def in_paper_language(view=None, *, by_default=True):
    """The view's page in the language of the party's paper (`Party.language`, the host's
    choice), or in the one asked for (`?language=es`): a phone that opens a printable reads it
    as it will print, and one link away in any other language. With `by_default=False` the page
    keeps the phone's own language unless one is asked for (the results, a phone's page that
    also prints)."""
    if view is None:
        return functools.partial(in_paper_language, by_default=by_default)

    @functools.wraps(view)
    def wrapped(request, party_id, **kwargs):
        language = request.GET.get("language")
        if language not in dict(settings.LANGUAGES):
            language = None
        if language is None and by_default:
            language = Party.objects.filter(pk=party_id).values_list("language", flat=True).first()
        if language is None:  # no such party: the view says so
            return view(request, party_id, **kwargs)
        with translation.override(language):
            response = view(request, party_id, **kwargs)
        response.headers["Content-Language"] = language
        return response

    return wrapped
