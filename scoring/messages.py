"""Messages a person reads, kept free of Django: the shell translates them.

An error carries an English message id with named placeholders and their values (`msgid`,
`params`); its English text is `msgid % params`, and the shell shows `gettext(msgid) % params`
(parties.translation). `gettext_noop` marks a message id where it is written, so that
`makemessages` (xgettext) finds it by name; at run time it changes nothing.
"""

from __future__ import annotations

from typing import Any


def gettext_noop(message: str) -> str:
    """`message` as is: the mark `makemessages` extracts, the translation comes later."""
    return message


class RuleError(ValueError):
    """A refusal for a person: `str(error) == error.msgid % error.params`, the English text.

    A message given with no params is plain text, its literal "%" kept (`msgid` escapes it), so
    that `msgid % params` still gives it back."""

    def __init__(self, msgid: str, **params: Any) -> None:
        if not params:
            msgid = msgid.replace("%", "%%")
        self.msgid = msgid
        self.params = params
        super().__init__(msgid % params)

    def __reduce__(self):
        return _rebuilt, (type(self), self.msgid, self.params)


def _rebuilt(cls: type[RuleError], msgid: str, params: dict[str, Any]) -> RuleError:
    error = cls.__new__(cls)
    ValueError.__init__(error, msgid % params)
    error.msgid, error.params = msgid, params
    return error
