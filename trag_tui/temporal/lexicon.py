"""The words and regex pieces time expressions are built from, in every language understood.

One place for month names, ordinals, units and articles, so a new language or spelling is added
once and every rule and cue that uses the word picks it up."""
from __future__ import annotations

import datetime as dt
import re

from .calendar import add_days, shift


class LazyPattern:
    """A regex compiled on first use: the table holds some sixty large patterns, and compiling
    them all costs ~0.1 s that a command which never parses a question should not pay."""

    __slots__ = ("source", "_compiled")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str):  # search, finditer, fullmatch... of the compiled pattern
        if self._compiled is None:
            self._compiled = re.compile(self.source, re.IGNORECASE)
        return getattr(self._compiled, name)


# --- lexicon ---------------------------------------------------------------------------------


def _table(spec: dict[int | str, str]) -> dict[str, int | str]:
    return {word: key for key, words in spec.items() for word in words.split()}


MONTHS: dict[str, int] = _table({  # type: ignore[assignment]
    1: "january jan janvier janv januar jänner enero январь января январе",
    2: "february feb février fevrier févr februar febrero февраль февраля феврале",
    3: "march mar mars märz maerz marzo март марта марте",
    4: "april apr avril abril апрель апреля апреле",
    5: "may mai mayo май мая мае",
    6: "june jun juin juni junio июнь июня июне",
    7: "july jul juillet juli julio июль июля июле",
    8: "august aug août aout agosto август августа августе",
    9: "september sep sept septembre septiembre setiembre сентябрь сентября сентябре",
    10: "october oct octobre oktober octubre октябрь октября октябре",
    11: "november nov novembre noviembre ноябрь ноября ноябре",
    12: "december dec décembre decembre dezember diciembre декабрь декабря декабре",
})
WEEKDAYS: dict[str, int] = _table({  # type: ignore[assignment]
    0: "monday lundi montag lunes понедельник понедельника",
    1: "tuesday mardi dienstag martes вторник вторника",
    2: "wednesday mercredi mittwoch miércoles miercoles среда среду",
    3: "thursday jeudi donnerstag jueves четверг четверга",
    4: "friday vendredi freitag viernes пятница пятницу",
    5: "saturday samedi samstag sábado sabado суббота субботу",
    6: "sunday dimanche sonntag domingo воскресенье",
})
UNITS: dict[str, str] = _table({  # type: ignore[assignment]
    "day": "day days jour jours journée journées tag tage tagen día días dia dias "
           "день дня дней сутки суток",
    "week": "week weeks semaine semaines woche wochen semana semanas "
            "неделя неделю недели недель неделе",
    "month": "month months mois monat monate monaten monats mes meses "
             "месяц месяца месяцев месяце",
    "quarter": "quarter quarters trimestre trimestres quartal quartale quartalen quartals "
               "квартал квартала кварталов квартале",
    "year": "year years ans année années jahr jahre jahren jahres año años "
            "год года лет году",
    "decade": "decade decades décennie décennies jahrzehnt jahrzehnte jahrzehnten "
              "década décadas десятилетие десятилетия десятилетий",
    "fortnight": "fortnight fortnights",
    "hour": "hour hours heures stunden horas часа часов",
})
# A plural unit without a number ("in recent years", "en los últimos meses") is vague: it is left
# to the cue words ("recent", "últimos") rather than given an invented length.
PLURAL_UNITS = frozenset(
    "days jours journées tage tagen días dias дней суток weeks semaines wochen semanas недель "
    "недели months monate monaten meses месяцев quarters trimestres quartale quartalen кварталов "
    "years ans années jahre jahren años лет decades décennies jahrzehnte jahrzehnten décadas "
    "десятилетий fortnights hours heures stunden horas часов".split()
)
NUMBERS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
    "eighteen": 18, "twenty": 20, "thirty": 30, "fifty": 50, "hundred": 100,
    "a couple of": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3,
    "один": 1, "одна": 1, "одну": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5,
    "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10, "двенадцать": 12,
    "несколько": 3,
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8,
    "neuf": 9, "dix": 10, "douze": 12, "quelques": 3,
    "ein": 1, "eine": 1, "einem": 1, "einen": 1, "einer": 1, "zwei": 2, "drei": 3, "vier": 4,
    "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "zwölf": 12,
    "ein paar": 3, "einigen": 3,
    "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
    "ocho": 8, "nueve": 9, "diez": 10, "doce": 12, "unos": 3, "unas": 3, "varios": 3,
    "varias": 3,
}
# English tens, and the numbers between them written as words ("thirty-one years ago"): without
# them "one years ago" was read out of "Thirty-one years ago" and dated last year.
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
UNITS_1_9 = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
NUMBERS.update(TENS)
TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen")
NUMBERS.update({word: n for n, word in enumerate(TEENS, 10)})
NUMBERS.update({f"{tens}{sep}{unit}": value + i
                for tens, value in TENS.items() for i, unit in enumerate(UNITS_1_9, 1)
                for sep in ("-", " ")})
ORDINALS: dict[str, int] = {  # -1 is "the last one", whatever the number of parts
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
    "last": -1, "final": -1, "latter": -1,
    "premier": 1, "première": 1, "1er": 1, "1re": 1, "deuxième": 2, "seconde": 2, "2e": 2,
    "2ème": 2, "troisième": 3, "3e": 3, "3ème": 3, "quatrième": 4, "4e": 4, "4ème": 4,
    "dernier": -1, "dernière": -1,
    "erste": 1, "ersten": 1, "erstes": 1, "erster": 1, "zweite": 2, "zweiten": 2,
    "dritte": 3, "dritten": 3, "vierte": 4, "vierten": 4, "letzte": -1, "letzten": -1,
    "1.": 1, "2.": 2, "3.": 3, "4.": 4,
    "primer": 1, "primero": 1, "primera": 1, "segundo": 2, "segunda": 2, "tercer": 3,
    "tercero": 3, "cuarto": 4, "último": -1, "última": -1,
    "i": 1, "ii": 2, "iii": 3, "iv": 4,
}
_RU_ORDINAL_STEMS = (("перв", 1), ("втор", 2), ("трет", 3), ("четв", 4), ("последн", -1))
SEASONS: dict[str, int] = _table({  # type: ignore[assignment]  # value: first month
    3: "spring printemps frühling frühjahr primavera весна весной",
    6: "summer été sommer verano лето летом",
    9: "autumn fall automne herbst otoño осень осенью",
    12: "winter hiver invierno зима зимой",
})
# "this", "last" and "next" before or after a season's name ("cet été", "l'hiver dernier",
# "letzten Sommer", "el verano pasado", "этой зимой", "следующим летом")
SEASON_BEFORE: dict[str, str] = _table({  # type: ignore[assignment]
    "this": "cet cette ce diesen dieses diesem este esta этим этой этою",
    "last": "letzten letztes letztem vergangenen vergangenes vorigen voriges прошлым прошлой прошлою",
    "next": "nächsten nächstes kommenden kommendes próximo próxima следующим следующей будущим будущей",
})
SEASON_AFTER: dict[str, str] = _table({  # type: ignore[assignment]
    "last": "dernier dernière passé passée pasado pasada",
    "next": "prochain prochaine",
})
DECADE_WORDS = {"twenties": 2, "thirties": 3, "forties": 4, "fifties": 5, "sixties": 6,
                 "seventies": 7, "eighties": 8, "nineties": 9}
# early / mid / late thirds of a year or decade
PART_OF = _table({
    "early": "early start beginning début anfang principios comienzos inicios начале",
    "mid": "mid mitte mediados середине",
    "late": "late end fin ende finales fines конце",
})
# English month names that are also common words: read bare only when capitalised.
AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar", "jun", "dec", "aug", "sept", "sep"})
# English season names that are also everyday verbs and nouns ("inflation to fall back", "the
# fall in prices", "the fall of the Berlin Wall", "firms spring up", "a spring"): without a year
# or "last/this/next" they name the season only in a time phrase ("in the fall", "during the
# spring", "by early spring"), and not when a word that makes them a movement follows ("the
# fall in output", "the fall of the Wall").
AMBIGUOUS_SEASONS = frozenset({"fall", "spring"})
# The words just before a bare AMBIGUOUS_SEASONS word (an article between is skipped) that put it
# in a time phrase; "to" and "and" are left out ("to fall", "rise and fall") unless another
# season name stands before them ("summer and fall", "from winter to spring").
SEASON_TIME_WORDS = frozenset(
    "in during by until till through throughout over since before after into between from "
    "early mid late".split())
# A word after a bare AMBIGUOUS_SEASONS word that makes it a movement or a thing: "the fall in
# prices", "the fall of the Wall" (a year after "of" was read by the season-year rule first),
# "fall back", "spring up".
SEASON_NOT_BEFORE = frozenset(
    "of in to from by back below under across among against on at for with up off out into "
    "away down".split())
# Words before a bare month, weekday or season that make it a date ("in March", "depuis mars").
DATE_PREPS = frozenset(
    "in on during since before after until till by from of last this past early mid late "
    "the end start beginning between and or to through vs versus "
    "en depuis avant après jusqu'en jusqu'à de du au le fin début mi dès et ou à "
    "im am seit vor nach bis ab von anfang ende mitte und oder "
    "desde antes después hasta el a y o durante principios finales mediados "
    "в во с со до после по к и или на".split()
)
# ... and before a bare month only: "sales for September" (a weekday after "for" is more often
# a plan, "scheduled for Monday", which the reader would date to the one past)
MONTH_PREPS = DATE_PREPS | {"for"}
FRENCH_ONLY_PREPS = frozenset("en depuis avant après jusqu'en jusqu'à de du au le fin début mi dès".split())


def alternation(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def ordinal(word: str) -> int | None:
    """The position an ordinal names (1-based, -1 for "last"), in any of the languages."""
    word = word.lower()
    if word in ORDINALS:
        return ORDINALS[word]
    for stem, value in _RU_ORDINAL_STEMS:
        if word.startswith(stem):
            return value
    digits = re.match(r"([1-4])(?:-?(?:й|м|го|е|º|°|o))?$", word)
    return int(digits.group(1)) if digits else None


def number(text: str | None) -> int:
    """A count written as digits or words; 1 when absent ("the past year")."""
    if not text:
        return 1
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else NUMBERS.get(text, 1)


def unit_of(word: str) -> tuple[str, int]:
    """(calendar unit, multiplier) for a unit word in any language."""
    unit = UNITS[word.lower()]
    return ("week", 2) if unit == "fortnight" else (unit, 1)


def shift_back(day: dt.date, word: str, n: int, *, clamp: bool = True) -> dt.date:
    """`day` moved back `n` of the unit named by `word`; hours round up to whole days. Before
    the calendar's first day: that day, or (without `clamp`) OverflowError."""
    unit, mult = unit_of(word)
    if unit == "hour":
        return add_days(day, -((n * mult + 23) // 24), clamp=clamp)
    return shift(day, unit, -n * mult, clamp=clamp)


def group(m: re.Match[str], *names: str) -> str | None:
    """The first of several alternative named groups that matched; a pattern may lack some."""
    return next((m[name] for name in names if name in m.re.groupindex and m[name]), None)


def preceding_word(m: re.Match[str]) -> str:
    """The word just before the match, lower-cased ("" at the start)."""
    words = re.findall(r"[\w'’.-]+", m.string[max(0, m.start() - 24): m.start()])
    return words[-1].lower().replace("’", "'") if words else ""


# --- regex building blocks -------------------------------------------------------------------

START = r"(?<![\w])"  # a word start that, unlike \b, also works before "'90s" or "Q3"
END = r"(?![\w])"
MONTH = rf"(?P<m>{alternation(MONTHS)})\.?{END}"
WEEKDAY = rf"(?P<wd>{alternation(WEEKDAYS)}){END}"
UNIT = rf"(?P<u>{alternation(UNITS)}){END}"
NUM = rf"(?P<n>\d{{1,4}}|{alternation(NUMBERS)})"
YEAR = r"(?<![\d.,])(?P<y>[12]\d{3})(?![\d]|[.,]\d|['’]?s\b)"  # not the 1990 of "1990s"
# Russian writes "2015 года" / "в 2015 г."; the suffix belongs to the expression.
YEAR_SUFFIX = r"(?:\s*(?:год(?:а|у|ом|ы|ах|ов|ами)?|гг?\.)(?!\w))?"
THE = r"(?:(?:the|le|la|les|l['’]|der|die|das|dem|den|el|los|las)\s+)?"
ORD_WORD = (
    r"(?P<o>first|second|third|fourth|last|final|latter|1st|2nd|3rd|4th|"
    r"premi[eè]re?|1er|1re|deuxi[eè]me|seconde?|2e|2[eè]me|troisi[eè]me|3e|3[eè]me|"
    r"quatri[eè]me|4e|4[eè]me|derni[eè]re?|erste[nrms]?|zweite[nrs]?|dritte[nrs]?|"
    r"vierte[nrs]?|letzte[nrs]?|[1-4]\.|primer[oa]?|segund[oa]|tercer[oa]?|cuart[oa]|"
    r"últim[oa]|[1-4][ºo°]|перв\w*|втор\w*|трет\w*|четв[её]рт\w*|последн\w*|"
    r"[1-4]-?(?:й|м|го|е)|[1-4](?=\s+(?:квартал|полугод))|IV|I{1,3})"
)
PART = (
    r"(?P<part>quarter|trimestre|quartals?|квартал\w*|"
    r"half|semestre|halbjahr\w*|jahreshälfte|hälfte|mitad|moitié|полугоди\w+|половин\w+)"
)
OF_YEAR = r"(?:\s*,?\s*(?:of|de|del|du|des|d['’])?\s*(?:the\s+year|l['’]année|des\s+jahres|(?:el\s+)?año|года)?)\s*"


def lazy(pattern: str) -> LazyPattern:
    return LazyPattern(pattern)
