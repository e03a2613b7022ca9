"""How a switch of several named parts reads (BUNCO_FAST, BUNCO_SERVER_TUNING): unset, "1" or
"all" for every part; "0", "off" or "none" for none; or the names, comma-separated."""

ALL = {"", "1", "all", "on", "true", "yes"}
NONE = {"0", "none", "off", "false", "no"}


def chosen(value, names):
    """(the parts `value` turns on, the names in it that are no part), `names` the parts."""
    value = (value or "").strip().lower()
    if value in ALL:
        return set(names), []
    if value in NONE:
        return set(), []
    listed = [name.strip() for name in value.split(",") if name.strip()]
    return {n for n in listed if n in names}, [n for n in listed if n not in names]
