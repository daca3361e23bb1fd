"""dateparser, behind one wrapper, for whatever the rule table does not list.

Both readers of dates use it: questions (relative to an as-of day, preferring the past) and
documents (absolute dates only, all parts required). It is imported and built on first use,
since importing it costs about 0.1 s and its first parse loads language data."""
from __future__ import annotations

import datetime as dt
import functools
import re

# --- dateparser, for whatever the table does not list -----------------------------------------

#: Languages dateparser may read a leftover fragment in. A short list keeps its language
#: detection fast and stops it finding dates in words of languages nobody asked in.
DATEPARSER_LANGUAGES = ("en", "ru", "fr", "de", "es", "it", "pt", "nl", "pl", "uk")


@functools.lru_cache(maxsize=16)
def _parser(languages: tuple[str, ...] | None, settings: tuple[tuple[str, object], ...]):
    # Imported and built on first use: importing dateparser costs ~0.1 s, and a question that
    # the table reads fully never needs it. One parser per setting (the as-of day is one).
    from dateparser.date import DateDataParser

    return DateDataParser(languages=list(languages) if languages else None,
                          settings={k: list(v) if isinstance(v, tuple) else v
                                    for k, v in settings})


def _date_parser(as_of: dt.date):
    return _parser(DATEPARSER_LANGUAGES, (
        ("RELATIVE_BASE", dt.datetime.combine(as_of, dt.time())),
        ("PREFER_DATES_FROM", "past"),
        ("PREFER_DAY_OF_MONTH", "first"),
        ("RETURN_AS_TIMEZONE_AWARE", False),
    ))


def absolute_date(span: str) -> dt.date | None:
    """A whole date written out in any language dateparser knows ("14 März 2024"), never a
    relative one ("3 days ago") or a bare timestamp: how documents are dated."""
    try:
        data = _parser(None, (
            ("PARSERS", ("absolute-time",)),
            ("REQUIRE_PARTS", ("day", "month", "year")),
            ("STRICT_PARSING", True),
            ("PREFER_DAY_OF_MONTH", "first"),
        )).get_date_data(span)
    except (ValueError, OverflowError, TypeError, AttributeError):
        return None  # spans like "31 Foo 2024" can trip its validators
    return None if data is None or data.date_obj is None else data.date_obj.date()


def dateparser_read(text: str, as_of: dt.date) -> tuple[dt.date, str] | None:
    """(date, granularity) dateparser reads in a short fragment, or None."""
    try:
        data = _date_parser(as_of).get_date_data(text)
    except (ValueError, OverflowError, TypeError, AttributeError):
        # dateparser raises these on fragments it half-recognises (impossible dates, a relative
        # base near the ends of the calendar); for one fragment that simply means "not a date".
        return None
    if data is None or data.date_obj is None or data.period not in {"day", "week", "month", "year"}:
        return None
    return data.date_obj.date(), data.period


@functools.cache
def dateparser_vocabulary() -> frozenset[str]:
    """Month, weekday, unit and relative words of the dateparser languages, lower-cased.

    Asking dateparser about a fragment it cannot read costs milliseconds (it tries every
    language), so a fragment is only shown to it when it holds one of its own date words.
    """
    from dateparser.languages.loader import default_loader

    # Unit words ("years") are left out: "in 20 years" is a duration, and dateparser would make
    # it a date; "3 giorni fa" still qualifies through its "ago" word.
    keys = ("january february march april may june july august september october november december "
            "monday tuesday wednesday thursday friday saturday sunday ago").split()
    words: set[str] = set()
    for language in DATEPARSER_LANGUAGES:
        info = default_loader.get_locale(language).info
        phrases = [p for key in keys for p in info.get(key, [])]
        phrases += [p for values in info.get("relative-type", {}).values() for p in values]
        words.update(w for p in phrases for w in re.findall(r"[^\W\d_]+", p.lower()) if len(w) >= 2)
    # Function words appear in every sentence ("from 10 to 12"): alone they are no sign of a date.
    function_words = set("in a an the de la le el il di from to at on of after before this last next and or "
                         "op en dans au du des del los las em no na do da за на в по до с".split())
    return frozenset(words - function_words)
