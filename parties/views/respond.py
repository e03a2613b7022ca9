"""What the screens' views answer with: a page, or its live region for htmx, and the live tables
rendered once."""

from django.shortcuts import render
from django.template.loader import render_to_string

from parties.pages import fragments


def page(request, template, context):
    """The page, or only its live region for htmx (a resync after a push or a reconnect)."""
    return render(request, f"{template}#live" if request.htmx else template, context)


def live_html(party, round_, numbers):
    return [
        render_to_string("parties/_live_table.html", context)
        for context in fragments.live_tables(party, round_, numbers)
    ]
