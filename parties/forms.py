"""Forms: turn what the host typed into plain values, with a clear message for each mistake."""

import dataclasses

from django import forms
from django.conf import settings
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from parties.exchange import player_csv
from parties.pages.rules_summary import choice_label, option_label
from parties.party_limits import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME_MAX,
    clean_player_name,
    party_size_problem,
)
from parties.translation import hosts_language, rule_error_text
from scoring import PRESET_HELP, PRESET_TITLES, PRESETS, Rules, RulesError


def parse_player_names(text):
    """The names from a pasted list, one per line; blank lines inside the list are mistakes."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    errors = [
        _("Line %(number)s is blank: type a name there or remove the line.") % {"number": number}
        for number, line in enumerate(lines, start=1)
        if not line.strip()
    ]
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    return checked_player_names(numbered, False, errors)


def parse_player_file(data):
    """The names from an uploaded CSV file (parties.exchange.player_csv), checked as a pasted list
    is."""
    try:
        numbered = player_csv.rows_of_names(data)
    except player_csv.CsvRefused as error:
        raise forms.ValidationError(rule_error_text(error)) from None
    return checked_player_names(numbered, True)


def checked_player_names(numbered, in_file, errors=()):
    """The tidied names of `numbered` ((line or row number, name as written)), or every
    mistake in them, each saying on which line of the list (`in_file`: row of the file) it is."""
    names, errors, seen = [], list(errors), {}
    for number, raw in numbered:
        try:
            name = clean_player_name(raw)
        except forms.ValidationError as error:
            at = _("Row %(number)s: %(message)s") if in_file else _("Line %(number)s: %(message)s")
            errors.extend(at % {"number": number, "message": m} for m in error.messages)
            continue
        key = name.casefold()
        if key in seen:
            if in_file:
                again = _("Row %(number)s: “%(name)s” is already on row %(first)s.")
            else:
                again = _("Line %(number)s: “%(name)s” is already on line %(first)s.")
            errors.append(again % {"number": number, "name": name, "first": seen[key]})
            continue
        seen[key] = number
        names.append(name)
    if not errors and not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        if in_file:
            too_many = _("A party needs %(min)s to %(max)s players; this file has %(count)s.")
        else:
            too_many = _("A party needs %(min)s to %(max)s players; this list has %(count)s.")
        errors.append(too_many % {"min": MIN_PLAYERS, "max": MAX_PLAYERS, "count": len(names)})
    if errors:
        raise forms.ValidationError(errors)
    return names


def _names_or_none(text):
    try:
        return parse_player_names(text)
    except forms.ValidationError:
        return None


option_label_lazy = lazy(option_label, str)
choice_label_lazy = lazy(choice_label, str)


def _option_field(f):
    # The help is scoring's English (marked there for makemessages), read in the reader's language.
    help_text, choices = gettext_lazy(f.metadata["help"]), f.metadata["choices"]
    label = option_label_lazy(f.name)
    if f.name == "prizes":
        return forms.MultipleChoiceField(
            label=label,
            help_text=help_text,
            choices=[(c, option_label_lazy(c)) for c in choices],
            widget=forms.CheckboxSelectMultiple,
            required=False,
        )
    if isinstance(f.default, bool):
        return forms.BooleanField(label=label, help_text=help_text, required=False)
    coerce = int if isinstance(f.default, int) else str
    return forms.TypedChoiceField(
        label=label,
        help_text=help_text,
        choices=[(c, choice_label_lazy(c)) for c in choices],
        coerce=coerce,
    )


OPTION_NAMES = [f.name for f in dataclasses.fields(Rules)]


def preset_title(key):
    """A preset's name as the form lists it: "World Bunco Association", "Standard"."""
    title = _(PRESET_TITLES[key])  # scoring's English, marked there for makemessages
    return title[0].upper() + title[1:]


preset_title_lazy = lazy(preset_title, str)


def _players_help():
    return _(
        "One name per line, %(min)s to %(max)s players, up to %(name_max)s characters each. "
        "Ghosts fill the empty seats when the count is not a multiple of 4, unless the rules "
        "use the boxed set's table plans (2 to 10 players)."
    ) % {"min": MIN_PLAYERS, "max": MAX_PLAYERS, "name_max": NAME_MAX}


def preset_initial(preset):
    options = PRESETS[preset].to_options()
    return {"preset": preset, **options}


class PartyCreateForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Party name"), max_length=80, initial="Bunco Night")
    players = forms.CharField(
        label=gettext_lazy("Players"),
        widget=forms.Textarea(attrs={"rows": 12, "autocomplete": "off", "spellcheck": "false"}),
        help_text=lazy(_players_help, str)(),
        required=False,  # a CSV file may give the names instead (clean_players)
    )
    players_file = forms.FileField(
        label=gettext_lazy("Or a CSV file of names"),
        help_text=gettext_lazy(
            # Translators: “Name”, “First name” and “Last name” are the column headings the
            # file is read by, which stay in English.
            "A sign-up sheet saved from a spreadsheet as CSV: the names in the first "
            "column, or in the column headed “Name” (or in “First name” and “Last name”). "
            "Blank rows are skipped."
        ),
        required=False,
        widget=forms.FileInput(attrs={"accept": ".csv,.txt,text/csv,text/plain"}),
    )
    preset = forms.ChoiceField(
        label=gettext_lazy("Rules preset"),
        choices=[(key, preset_title_lazy(key)) for key in PRESETS],
        initial="standard",
    )
    # The language of the party's paper: the host's own, unless they choose another.
    language = forms.ChoiceField(
        label=gettext_lazy("Language of the printouts"),
        choices=settings.LANGUAGES,
        help_text=gettext_lazy(
            "The rule sheet, score sheets, cards and results print in it; every phone still "
            "reads the language it chose."
        ),
        required=False,  # a form sent without it (an older page) gets the host's language
    )
    self_join = forms.BooleanField(
        label=gettext_lazy("Guests may add themselves"),
        help_text=gettext_lazy(
            "A guest whose name is not on the list types the party code and their name at the "
            "join page, and waits for you to seat them, say they are already on the list, or "
            "turn them away."
        ),
        required=False,
    )
    # The preset the rule fields on the page were drawn for. Picking a preset redraws them
    # (htmx); a form sent before that arrived holds the previous preset's rules, which the
    # host did not choose.
    options_for = forms.ChoiceField(
        choices=[(key, key) for key in PRESETS], required=False, widget=forms.HiddenInput
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["language"].initial = hosts_language()
        for f in dataclasses.fields(Rules):
            self.fields[f.name] = _option_field(f)
            self.fields[f.name].initial = PRESETS["standard"].to_options()[f.name]

    def plan_preview(self):
        """The tables the typed count would sit at (the partial _plan_preview.html)."""
        from parties.pages.plan_preview import preview_context

        return preview_context(self)

    def preset_help(self):
        help_text = PRESET_HELP.get(self["preset"].value(), "")
        return _(help_text) if help_text else ""  # scoring's English, marked there

    def option_fields(self):
        return [self[name] for name in OPTION_NAMES]

    def clean_language(self):
        return self.cleaned_data["language"] or hosts_language()

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError(_("Give the party a name."))
        return name

    def clean_players(self):
        text = self.cleaned_data["players"]
        upload = self.files.get("players_file")
        if upload:
            return self._names_from_file(upload, text)
        if not text.strip():
            raise forms.ValidationError(
                _("Paste the players' names, one per line, or choose a CSV file of them.")
            )
        return parse_player_names(text)

    def _names_from_file(self, upload, text):
        """The file's names. A list typed beside it must be the same list (the file's own,
        put there when an earlier send of this form failed), or it would be thrown away."""
        if upload.size > player_csv.MAX_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(kb)s KB: is it a list of names?")
                % {"kb": player_csv.MAX_BYTES // 1024}
            )
        try:
            names = parse_player_file(upload.read())
        except forms.ValidationError as error:
            raise forms.ValidationError(
                [
                    _("In %(file)s: %(message)s") % {"file": upload.name, "message": message}
                    for message in error.messages
                ]
            ) from None
        if text.strip() and _names_or_none(text) != names:
            raise forms.ValidationError(
                _(
                    "There is a list here and a file chosen: empty the list to use the file, or "
                    "choose no file to use the list."
                )
            )
        # Should anything else on the form be refused, the page comes back with the file's
        # names in the list (a browser never refills a file input): nothing is chosen again.
        self.data = self.data.copy()
        self.data["players"] = "\n".join(names)
        return names

    def clean(self):
        cleaned = super().clean()
        options = {name: cleaned[name] for name in OPTION_NAMES if name in cleaned}
        if len(options) != len(OPTION_NAMES):
            return cleaned  # a field error is already shown
        options["prizes"] = tuple(options["prizes"])
        drawn_for, preset = cleaned.get("options_for"), cleaned.get("preset")
        if drawn_for and preset and drawn_for != preset:
            cleaned["rules"] = PRESETS[preset]  # sent before the chosen preset's rules arrived
            return cleaned
        try:
            cleaned["rules"] = Rules(**options)
        except RulesError as error:
            option = getattr(error, "params", {}).get("option")
            field = option if option in OPTION_NAMES else next(
                (n for n in OPTION_NAMES if str(error).startswith(n)), None
            )
            self.add_error(field, rule_error_text(error))
            return cleaned
        self._check_party_size(cleaned)
        return cleaned

    def _check_party_size(self, cleaned):
        # The list alone allows 2 to MAX_PLAYERS; whether that many can sit depends on the
        # rules (teams with ghosts need 4, the boxed set's plans stop at 10).
        if "players" in cleaned:
            problem = party_size_problem(len(cleaned["players"]), cleaned["rules"])
            if problem:
                self.add_error("players", problem)
