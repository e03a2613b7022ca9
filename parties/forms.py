"""Forms: turn what the host typed into plain values, with a clear message for each mistake."""

import dataclasses

from django import forms

from parties.exchange import player_csv
from parties.pages.rules_summary import option_label
from parties.party_limits import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME_MAX,
    clean_player_name,
    party_size_problem,
)
from scoring import PRESET_HELP, PRESET_TITLES, PRESETS, Rules, RulesError


def parse_player_names(text):
    """The names from a pasted list, one per line; blank lines inside the list are mistakes."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    errors = [
        f"Line {number} is blank: type a name there or remove the line."
        for number, line in enumerate(lines, start=1)
        if not line.strip()
    ]
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    return checked_player_names(numbered, "Line", "list", errors)


def parse_player_file(data):
    """The names from an uploaded CSV file (parties.exchange.player_csv), checked as a pasted list
    is."""
    try:
        numbered = player_csv.rows_of_names(data)
    except player_csv.CsvRefused as error:
        raise forms.ValidationError(str(error)) from None
    return checked_player_names(numbered, "Row", "file")


def checked_player_names(numbered, where, holder, errors=()):
    """The tidied names of `numbered` ((line or row number, name as written)), or every
    mistake in them, each saying on which `where` ("Line", "Row") it is."""
    names, errors, seen = [], list(errors), {}
    for number, raw in numbered:
        try:
            name = clean_player_name(raw)
        except forms.ValidationError as error:
            errors.extend(f"{where} {number}: {message}" for message in error.messages)
            continue
        key = name.casefold()
        if key in seen:
            errors.append(
                f"{where} {number}: “{name}” is already on {where.lower()} {seen[key]}."
            )
            continue
        seen[key] = number
        names.append(name)
    if not errors and not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        errors.append(
            f"A party needs {MIN_PLAYERS} to {MAX_PLAYERS} players; this {holder} has "
            f"{len(names)}."
        )
    if errors:
        raise forms.ValidationError(errors)
    return names


def _names_or_none(text):
    try:
        return parse_player_names(text)
    except forms.ValidationError:
        return None


def _option_field(f):
    help_text, choices = f.metadata["help"], f.metadata["choices"]
    if f.name == "prizes":
        return forms.MultipleChoiceField(
            label="Prizes",
            help_text=help_text,
            choices=[(c, option_label(c)) for c in choices],
            widget=forms.CheckboxSelectMultiple,
            required=False,
        )
    if isinstance(f.default, bool):
        return forms.BooleanField(label=option_label(f.name), help_text=help_text, required=False)
    coerce = int if isinstance(f.default, int) else str
    return forms.TypedChoiceField(
        label=option_label(f.name),
        help_text=help_text,
        choices=[(c, str(c).replace("_", " ")) for c in choices],
        coerce=coerce,
    )


OPTION_NAMES = [f.name for f in dataclasses.fields(Rules)]


def preset_title(key):
    """A preset's name as the form lists it: "World Bunco Association", "Standard"."""
    title = PRESET_TITLES[key]
    return title[0].upper() + title[1:]


def preset_initial(preset):
    options = PRESETS[preset].to_options()
    return {"preset": preset, **options}


class PartyCreateForm(forms.Form):
    name = forms.CharField(label="Party name", max_length=80, initial="Bunco Night")
    players = forms.CharField(
        label="Players",
        widget=forms.Textarea(attrs={"rows": 12, "autocomplete": "off", "spellcheck": "false"}),
        help_text=f"One name per line, {MIN_PLAYERS} to {MAX_PLAYERS} players, up to "
        f"{NAME_MAX} characters each. Ghosts fill the empty seats when the count is not a "
        "multiple of 4, unless the rules use the boxed set's table plans (2 to 10 players).",
        required=False,  # a CSV file may give the names instead (clean_players)
    )
    players_file = forms.FileField(
        label="Or a CSV file of names",
        help_text="A sign-up sheet saved from a spreadsheet as CSV: the names in the first "
        "column, or in the column headed “Name” (or in “First name” and “Last name”). "
        "Blank rows are skipped.",
        required=False,
        widget=forms.FileInput(attrs={"accept": ".csv,.txt,text/csv,text/plain"}),
    )
    preset = forms.ChoiceField(
        label="Rules preset",
        choices=[(key, preset_title(key)) for key in PRESETS],
        initial="standard",
    )
    # The preset the rule fields on the page were drawn for. Picking a preset redraws them
    # (htmx); a form sent before that arrived holds the previous preset's rules, which the
    # host did not choose.
    options_for = forms.ChoiceField(
        choices=[(key, key) for key in PRESETS], required=False, widget=forms.HiddenInput
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for f in dataclasses.fields(Rules):
            self.fields[f.name] = _option_field(f)
            self.fields[f.name].initial = PRESETS["standard"].to_options()[f.name]

    def plan_preview(self):
        """The tables the typed count would sit at (the partial _plan_preview.html)."""
        from parties.pages.plan_preview import preview_context

        return preview_context(self)

    def preset_help(self):
        return PRESET_HELP.get(self["preset"].value(), "")

    def option_fields(self):
        return [self[name] for name in OPTION_NAMES]

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("Give the party a name.")
        return name

    def clean_players(self):
        text = self.cleaned_data["players"]
        upload = self.files.get("players_file")
        if upload:
            return self._names_from_file(upload, text)
        if not text.strip():
            raise forms.ValidationError(
                "Paste the players' names, one per line, or choose a CSV file of them."
            )
        return parse_player_names(text)

    def _names_from_file(self, upload, text):
        """The file's names. A list typed beside it must be the same list (the file's own,
        put there when an earlier send of this form failed), or it would be thrown away."""
        if upload.size > player_csv.MAX_BYTES:
            raise forms.ValidationError(
                f"The file is larger than {player_csv.MAX_BYTES // 1024} KB: is it a list of names?"
            )
        try:
            names = parse_player_file(upload.read())
        except forms.ValidationError as error:
            raise forms.ValidationError(
                [f"In {upload.name}: {message}" for message in error.messages]
            ) from None
        if text.strip() and _names_or_none(text) != names:
            raise forms.ValidationError(
                "There is a list here and a file chosen: empty the list to use the file, or "
                "choose no file to use the list."
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
            field = next((n for n in OPTION_NAMES if str(error).startswith(n)), None)
            self.add_error(field, str(error))
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
