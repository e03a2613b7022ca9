"""Forms: turn what the organizer typed into plain values, with a clear message for each mistake.

The club's form is the party's create form (parties.forms.PartyCreateForm): the members' names
are read as a party's players are (pasted, or a CSV file: parse_player_names, player_csv), the
house rules are its preset and option fields; to those it adds the pot (scoring.pot.Pot) and
the club's own settings."""

from django import forms
from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from clubs.models import Club
from parties.forms import PartyCreateForm
from parties.money import currency_label, default_currency
from parties.party_limits import NAME_MAX, clean_player_name
from parties.selectors import prize_label
from parties.translation import hosts_language, rule_error_text
from scoring import PRIZE_CATEGORIES
from scoring.pot import CURRENCIES, Pot, PotError, parse_money

SUB_ROWS = 4  # blank rows for subs on the night's form (a night rarely has more)


class ClubCreateForm(PartyCreateForm):
    """The party's create form, for a club: its name, its members, the rules of every night,
    and the pot and settings below."""

    buy_in = forms.CharField(
        label=gettext_lazy("Buy-in per player, each night"), required=False, max_length=20,
        widget=forms.TextInput(attrs={"inputmode": "decimal", "placeholder": "6.00",
                                      "autocomplete": "off"}),
    )
    currency = forms.ChoiceField(label=gettext_lazy("Currency"), choices=(), required=False)
    unit = forms.ChoiceField(
        label=gettext_lazy("Each prize's share"),
        choices=[("percent", gettext_lazy("percentages (adding up to 100)")),
                 ("amount", gettext_lazy("amounts, kept in proportion whoever comes"))],
        initial="percent", widget=forms.RadioSelect,
    )
    tied = forms.ChoiceField(
        label=gettext_lazy("A tied prize"),
        choices=[("rolloff", gettext_lazy("goes to a roll-off's winner")),
                 ("split", gettext_lazy("is shared: its money split between the tied"))],
        initial="rolloff",
    )
    subs_count_for_member = forms.BooleanField(
        label=gettext_lazy("A sub's night counts for the member they play for"),
        help_text=gettext_lazy("Otherwise a sub plays as a guest: their night counts for nobody."),
        required=False,
    )
    ranking = forms.ChoiceField(
        label=gettext_lazy("Rank the season by"), choices=Club.Ranking.choices,
        initial=Club.Ranking.WINS,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["name"].label = gettext_lazy("Club name")
        self.fields["name"].initial = ""
        self.fields["players"].label = gettext_lazy("Members")
        self.fields["players"].help_text = gettext_lazy(
            "One name per line. Each night you pick who is coming, and subs by name."
        )
        self.fields["currency"].choices = [(code, currency_label(code)) for code in CURRENCIES]
        self.fields["currency"].initial = default_currency(hosts_language())
        for key in PRIZE_CATEGORIES:
            self.fields[f"share-{key}"] = forms.CharField(
                label=prize_label(key), required=False, max_length=20,
                widget=forms.TextInput(attrs={"inputmode": "decimal", "size": 8,
                                              "autocomplete": "off"}),
            )

    def share_fields(self):
        return [self[f"share-{key}"] for key in PRIZE_CATEGORIES]

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError(_("Give the club a name."))
        return name

    def _check_party_size(self, cleaned):
        """A club's list is not one night's table plan: each night's is checked when it is made."""

    def clean(self):
        cleaned = super().clean()
        if "rules" in cleaned:
            self._clean_pot(cleaned, cleaned["rules"].prizes)
        return cleaned

    def _clean_pot(self, cleaned, prize_keys):
        try:
            buy_in = parse_money(cleaned.get("buy_in", ""))
        except PotError as error:
            self.add_error("buy_in", _("The buy-in: %(problem)s.") % {
                "problem": rule_error_text(error)})
            return
        unit = cleaned.get("unit") or "percent"
        typed = {key: (cleaned.get(f"share-{key}") or "").strip() for key in prize_keys}
        try:
            shares = {key: _share(text, unit) for key, text in typed.items() if text}
            if shares and len(shares) < len(prize_keys):
                raise PotError(gettext_noop("give every prize a share, or none for equal shares"))
            cleaned["pot"] = Pot(buy_in, tuple(shares.items()), unit, cleaned.get("tied")
                                 or "rolloff", cleaned.get("currency") or self["currency"].initial)
        except PotError as error:
            self.add_error("unit", _("The shares: %(problem)s.") % {
                "problem": rule_error_text(error)})


def _share(text, unit):
    if unit == "amount":
        return parse_money(text)
    if not (text.isascii() and text.isdigit()):  # "²" is a digit to isdigit, not to int
        raise PotError(gettext_noop("“%(text)s” is not a whole percentage"), text=text)
    return int(text)


class ClubSettingsForm(forms.Form):
    ranking = forms.ChoiceField(label=gettext_lazy("Rank the season by"),
                                choices=Club.Ranking.choices)
    subs_count_for_member = forms.BooleanField(
        label=gettext_lazy("A sub's night counts for the member they play for"), required=False
    )


class NightCreateForm(forms.Form):
    """Who is coming (the members ticked), the subs by name (each for a member who is not
    coming, or as a guest), the host and the date."""

    date = forms.DateField(label=gettext_lazy("Date"),
                           widget=forms.DateInput(attrs={"type": "date"}))
    host = forms.TypedChoiceField(label=gettext_lazy("Host"), coerce=int)
    coming = forms.TypedMultipleChoiceField(
        label=gettext_lazy("Members coming"), coerce=int, required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    # As on a party's own form: guests (a friend brought along) type the night's code and name.
    self_join = forms.BooleanField(
        label=gettext_lazy("Guests may add themselves"), required=False,
        help_text=gettext_lazy(
            "Someone not on the list types the night's code and their name at the join page "
            "and waits for the night's host to seat them."
        ),
    )

    def __init__(self, *args, members, **kwargs):
        super().__init__(*args, **kwargs)
        self.members = {m.id: m for m in members}
        choices = [(m.id, m.name) for m in members]
        self.fields["host"].choices = choices
        self.fields["coming"].choices = choices
        for n in range(1, SUB_ROWS + 1):
            self.fields[f"sub-{n}-name"] = forms.CharField(
                label=gettext_lazy("Sub’s name"), required=False, max_length=NAME_MAX + 20,
                widget=forms.TextInput(attrs={"autocomplete": "off"}),
            )
            self.fields[f"sub-{n}-for"] = forms.TypedChoiceField(
                label=gettext_lazy("Plays for"), required=False, coerce=int, empty_value=None,
                choices=[("", gettext_lazy("nobody: as a guest"))] + choices,
            )

    def sub_rows(self):
        return [(n, self[f"sub-{n}-name"], self[f"sub-{n}-for"]) for n in range(1, SUB_ROWS + 1)]

    def clean(self):
        cleaned = super().clean()
        subs = []
        for n in range(1, SUB_ROWS + 1):
            raw = cleaned.get(f"sub-{n}-name") or ""
            if not raw.strip():
                continue
            try:
                name = clean_player_name(raw)
            except forms.ValidationError as error:
                self.add_error(f"sub-{n}-name", error)
                continue
            for_id = cleaned.get(f"sub-{n}-for")
            subs.append((name, self.members.get(for_id) if for_id else None))
        cleaned["subs"] = subs
        if "host" in cleaned:
            cleaned["host_member"] = self.members[cleaned["host"]]
        cleaned["coming_members"] = [self.members[i] for i in cleaned.get("coming", [])]
        if not cleaned["coming_members"] and not subs:
            self.add_error("coming", _("Tick the members coming tonight."))
        return cleaned


class RotationForm(forms.Form):
    """Who hosts each month of the season: a choice of the members (or nobody yet) a month."""

    def __init__(self, *args, months, members, **kwargs):
        super().__init__(*args, **kwargs)
        self.months = months
        choices = [("", gettext_lazy("nobody yet"))] + [(m.id, m.name) for m in members]
        for host_month in months:
            self.fields[self.field_name(host_month.month)] = forms.TypedChoiceField(
                label=host_month.month.strftime("%Y-%m"), required=False, coerce=int,
                empty_value=None, choices=choices, initial=host_month.member_id,
            )

    @staticmethod
    def field_name(month):
        return f"month-{month:%Y-%m}"

    def hosts(self):
        return {hm.month: self.cleaned_data.get(self.field_name(hm.month)) for hm in self.months}

    def month_fields(self):
        return [(hm, self[self.field_name(hm.month)]) for hm in self.months]


class ClubImportForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("The club file"),
        help_text=gettext_lazy("The .json file a club page’s “Download the club” gave you."),
        error_messages={
            "required": gettext_lazy("Choose the club file to import."),
            "empty": gettext_lazy("That file is empty: choose the club file a club page gave you."),
        },
    )

    def clean_file(self):
        file = self.cleaned_data["file"]
        if file.size > settings.CLUB_IMPORT_MAX_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(mb)s MB: is it a club file?")
                % {"mb": settings.CLUB_IMPORT_MAX_BYTES // (1024 * 1024)}
            )
        return file
