"""String formats as the clients' ajv-formats checks them (its `full` formats, which the TypeScript SDK's
validator adds): `uri`, `email`, `date`, `date-time`, `uuid`, `ipv4`, `ipv6`, `hostname`. A field's `format` in the
spec is published in its schema and checked here, so a value a client would refuse is refused alike, with the
field-naming message of any invalid argument."""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import AfterValidator

from ..wording.patterns import compiled_later

_EMAIL = compiled_later(
    r"^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9"
    r"])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$",
    re.IGNORECASE | re.ASCII,
)

_HOSTNAME = compiled_later(
    r"^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*"
    r"\.?$",
    re.IGNORECASE | re.ASCII,
)

_IPV4 = compiled_later(
    r"^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$",
    re.ASCII,
)

_IPV6 = compiled_later(
    r"^((([0-9a-f]{1,4}:){7}([0-9a-f]{1,4}|:))|(([0-9a-f]{1,4}:){6}(:[0-9a-f]{1,4}|((25[0-5]|2[0-4]\d|"
    r"1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){5}(((:[0-9a-f]{1,"
    r"4}){1,2})|:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-"
    r"9a-f]{1,4}:){4}(((:[0-9a-f]{1,4}){1,3})|((:[0-9a-f]{1,4})?:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\."
    r"(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){3}(((:[0-9a-f]{1,4}){1,4})|((:[0-9"
    r"a-f]{1,4}){0,2}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))"
    r"|(([0-9a-f]{1,4}:){2}(((:[0-9a-f]{1,4}){1,5})|((:[0-9a-f]{1,4}){0,3}:((25[0-5]|2[0-4]\d|1\d\d|[1"
    r"-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){1}(((:[0-9a-f]{1,4}){1,6"
    r"})|((:[0-9a-f]{1,4}){0,4}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
    r"){3}))|:))|(:(((:[0-9a-f]{1,4}){1,7})|((:[0-9a-f]{1,4}){0,5}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)("
    r"\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:)))$",
    re.IGNORECASE | re.ASCII,
)

_UUID = compiled_later(
    r"^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$",
    re.IGNORECASE | re.ASCII,
)

_URI = compiled_later(
    r"^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:("
    r"?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-"
    r"9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})"
    r"?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f"
    r"]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)"
    r"\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|"
    r"(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:"
    r"25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%["
    r"0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$"
    r"&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~"
    r"!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9"
    r"\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$",
    re.IGNORECASE | re.ASCII,
)

_NOT_URI_FRAGMENT = compiled_later(r"/|:")
_DATE = compiled_later(r"^(\d\d\d\d)-(\d\d)-(\d\d)$", re.ASCII)
_TIME = compiled_later(r"^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$", re.IGNORECASE | re.ASCII)
_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def is_date(text: str) -> bool:
    """RFC 3339 full-date, with the days of each month (29 February in a leap year)."""
    found = _DATE.match(text)
    if not found:
        return False
    year, month, day = int(found[1]), int(found[2]), int(found[3])
    return 1 <= month <= 12 and 1 <= day <= (29 if month == 2 and _leap(year) else _DAYS[month])


def is_time(text: str) -> bool:
    """RFC 3339 full-time, with its time zone (`Z` or an offset), a leap second only at 23:59 UTC."""
    found = _TIME.match(text)
    if not found or not found[4]:
        return False
    hour, minute, second = int(found[1]), int(found[2]), float(found[3])
    sign = -1 if found[5] == "-" else 1
    zone_hour, zone_minute = int(found[6] or 0), int(found[7] or 0)
    if zone_hour > 23 or zone_minute > 59:
        return False
    if hour <= 23 and minute <= 59 and second < 60:
        return True
    utc_minute = minute - zone_minute * sign
    utc_hour = hour - zone_hour * sign - (1 if utc_minute < 0 else 0)
    return utc_hour in (23, -1) and utc_minute in (59, -1) and second < 61


def is_date_time(text: str) -> bool:
    """RFC 3339 date-time: a date, `T` (or `t`, or a space), a time with its zone."""
    parts = re.split(r"t|\s", text, flags=re.IGNORECASE)
    return len(parts) == 2 and is_date(parts[0]) and is_time(parts[1])


def is_uri(text: str) -> bool:
    """An absolute URI (a scheme, then RFC 3986's hierarchical part)."""
    return bool(_NOT_URI_FRAGMENT.search(text)) and bool(_URI.match(text))


CHECKS: dict[str, Callable[[str], bool]] = {
    "uri": is_uri,
    "email": lambda text: bool(_EMAIL.match(text)),
    "date": is_date,
    "date-time": is_date_time,
    "uuid": lambda text: bool(_UUID.match(text)),
    "ipv4": lambda text: bool(_IPV4.match(text)),
    "ipv6": lambda text: bool(_IPV6.match(text)),
    "hostname": lambda text: bool(_HOSTNAME.match(text)),
}
"""Each format's check; a value ending in a newline is refused first (Python's `$` would match before it, and
JavaScript's, which these patterns come from, does not)."""


def conforms(name: str, text: str) -> bool:
    """Whether `text` is a valid `name` (one of CHECKS) as ajv-formats judges it."""
    return not text.endswith("\n") and CHECKS[name](text)


def check(name: str) -> AfterValidator:
    """The pydantic validator of a string field with `format: <name>`: a value that does not conform is refused."""

    def checked(text: str) -> str:
        if not conforms(name, text):
            raise ValueError(f"not a valid {name}")
        return text

    return AfterValidator(checked)
