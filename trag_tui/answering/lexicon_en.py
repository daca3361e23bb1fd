"""English, as the answer side reads it: word lists and the patterns built from them, as data.

Questions are read in five languages (trag_tui.temporal), but which source sentence answers,
what kind of answer is asked for, and whether a generated sentence is stated by its source are
read in English only: every English word those stages use is here, and nowhere in their logic.
Another language's lists would go beside this module, with the same names.
"""
from __future__ import annotations

import re

from ..temporal.lexicon import TEENS, TENS, UNITS_1_9
from ..temporal.mentions import MONTH_WORDS
from ..text.labels import MONTHS
from ..text.words import content_words, stem

# -- what a question asks for --------------------------------------------------------------------

PERSON_QUESTION = re.compile(
    r"^\s*(?:who|whom|whose)\b"
    # a person asked for by what they are: "which minister", "which Republican governor"
    r"|\bwhich (?:[\w-]+ ){0,3}?(?:person|minister|member|mp|senator|official|leader|politician|"
    r"secretary|chancellor|president|spokesperson|star|player|actor|actress|singer|governor|"
    r"athlete|rapper|comedian|author|billionaire|head of state)\b"
    r"|\bwho\s+(?:is|was|were|are)\b"
    # a person's name asked for itself: "What is the brothers' surname?"
    r"|\b(?:what|which)\s+(?:is|was|are|were)\s+(?:the\s+|their\s+|his\s+|her\s+)?"
    r"(?:[\w'’-]+\s+){0,2}?(?:surnames?|first names?|last names?|maiden names?|full names?)\b",
    re.I)
# A blank to fill in with a time: "…the highest hike since:" (a year, as "since when" is)
SINCE_BLANK = r"\b(?:since|until|till)\s*:\s*$"
DATE_QUESTION = re.compile(r"^\s*when\b|\b(?:what|which) (?:year|date|day|month)\b|\bhow long ago\b|"
                   rf"\b(?:from|since|until|till|by) when\b|{SINCE_BLANK}", re.I)
NUMBER_QUESTION = re.compile(
    r"^\W*(?:(?:approximately|roughly|about|around|so far|in total|overall),? )?"
    r"how (?:much|many|high|low|big|large|fast)\b"
    r"|\bhow (?:much|many)\b[^?]*\?\W*$"  # "…in which he won how many titles?"
    # ("What did Nate share a photo of?" asks no share: a verb, after its auxiliary)
    r"|\b(?:what|which) (?:was|is|were|are)? ?(?:the )?"
    r"(?:(?!(?:did|does|do|has|have|had|will|would|can|could|should|might)\b)[\w-]+ ){0,3}"
    r"(?:rate|percentage|share|"
    r"figure|level|number|amount|cost|price|total|score|count|size|threshold|salary|"
    r"fee|limit|cap|magnitude|sum|value(?=\s+of\b))\b|\bby how much\b", re.I)
WH = re.compile(r"^\W*(?:who|whom|whose|what|which|when|where|why|how|true or false)\b", re.I)
# A clause set before a question's question word, and the comma closing it: no question word
# (nor a relative "who", nor a quote) in it, and none of the question after it quoted
FRONTED = re.compile(r"^(?!\W*(?:who|whom|whose|what|which|when|where|why|how)\b)[^,?\"“]+,\s*"
                     r"(?=(?:who|whom|whose|what|which|when|where|how)\b[^,]*\?\W*$)", re.I)
# A request opening a question ("Compare UK emissions in 2018 and 2024"): capitalised by its
# place, not a name
REQUEST = re.compile(r"^\W*(?:compare|contrast|describe|explain|list|name|outline|show|"
                     r"summari[sz]e|tell|trace)\b", re.I)
# "Where did the launch occur?", "Which country…", "In which state…": a place is the answer
PLACE_QUESTION = re.compile(r"^\W*(?:where\b|(?:in |to |from )?which (?:country|countries|city|cities|"
                    r"state|states|town|region|island|nation|continent)\b)", re.I)
YEAR_NAMED = re.compile(rf"\b(?:what|which) year\b|{SINCE_BLANK}", re.I)
# a year or longer is asked for: any date in the right year answers
YEAR_ASKED = re.compile(rf"{YEAR_NAMED.pattern}|\bhow long\b|\bdecade\b|\bcentury\b", re.I)


# -- people, offices and names -------------------------------------------------------------------

# Capitalised words that are offices, bodies or forms of address, not parts of a person's name.
NOT_NAMES = frozenset("""
secretary state minister prime member members friend house government chancellor exchequer
bank office department committee national united kingdom british european union labour
conservative liberal democrats party lords commons parliament mr mrs ms miss dr lord lady sir
hon right the council court act bill deputy leader opposition speaker president senator
representative governor federal reserve district treasury ministry foreign home defence health
justice education affairs general attorney judge associate chief north south east west new great royal
police hospital school university college city county town village street road avenue church
centre center club company corporation association foundation fund service services agency
board authority institute museum library airport station park river lake mount palace
castle abbey cathedral chapel stadium square bridge island
""".split())
# The nouns offices are named by, and with them the words every office shares ("the Defence
# Secretary", "the Health Minister"): a source that says them names another office as readily
# as the one asked about.
OFFICE_NOUNS = "secretary minister chancellor president governor leader senator speaker"
OFFICE_WORDS = frozenset(f"{OFFICE_NOUNS} ministers state prime member deputy shadow".split())
# Words that stand before a name as its title or office.
TITLES = frozenset(f"mr mrs ms miss dr lord lady sir hon right prime {OFFICE_NOUNS} "
                    "representative judge justice associate chief deputy shadow former".split())
PEERAGE = frozenset("lord lady baron baroness dame sir".split())
STYLES = TITLES | frozenset("king queen prince princess duke duchess earl count".split())
# Words that make a role another office than the one they qualify: the Shadow Home Secretary is
# not the Home Secretary, nor is a deputy or a former one.
OTHER_OFFICE = content_words("shadow deputy former vice junior assistant under parliamentary")
# An office's formal title and its everyday name share its noun and its own word: "the
# Secretary of State for the Home Department" is the Home Secretary, "Secretary of State for
# Foreign, Commonwealth and Development Affairs" the Foreign Secretary.
OFFICE_STEMS = content_words(OFFICE_NOUNS)
# A speaker recorded by office and name: "The Cabinet Secretary for Education and Lifelong
# Learning (Fiona Hyslop)", as the Scottish Parliament and the Northern Ireland Assembly name them
LABELLED_SPEAKER = re.compile(r"^(?:the\s+)?(?P<office>[^()]+?)\s*\((?P<name>[^()]+)\)\s*$", re.I)
FORMAL = OFFICE_STEMS | content_words("state department affairs office")
# What stands between an office and its holder's name: "the Chancellor, my right hon. Friend
# the Member for Stratford-on-Avon (Nadhim Zahawi)", "the Chancellor of the Exchequer, George
# Osborne", "Defence Secretary Ben Wallace".
TO_HOLDER = re.compile(r"(?:,\s*)?(?:my\s+(?:right\s+)?hon(?:ourable)?\.?\s+(?:and\s+\w+\s+)?"
                        r"friend\s*)?(?:the\s+(?:right\s+hon(?:ourable)?\.?\s+)?member\s+for\s+"
                        r"(?:[^(),]|\([^()]*\))*?)?\s*\(?\s*$", re.I)
OFFICE_BEFORE = re.compile(rf"((?:[A-Z][\w'’-]+ ){{0,3}}(?:{'|'.join(OFFICE_NOUNS.title().split())})"
                            r"(?: (?:of|for|the|and|[A-Z][\w'’-]+,?))*?)$")
# An office said after the name it is held by: "Cyril Ramaphosa, who is now the country's
# acting president", "Jerome Powell, the Fed chair"
OFFICE_AFTER = re.compile(
    r"^,\s+(?:who\s+(?:is|was|has\s+been|had\s+been|became|becomes)\s+(?:now\s+)?)?"
    rf"((?:the|a|an)\s+(?:[\w'’-]+\s+){{0,3}}?(?:{'|'.join(OFFICE_NOUNS.split())}|chair|chairman|"
    r"chairwoman|chief executive|ceo|mayor|premier|speaker))\b", re.I)
# The noun a "which" or "what" question opens with names the kind of answer, not the office
# asked about: "Which minister was Health Secretary in November 2013?"
KIND_NOUN = re.compile(r"\b(?:which|what)\s+([\w'’-]+)\s+(?:was|is|were|are|did|does|do|has|"
                       r"have|had|will|would|could|can)\b", re.I)
# A who-question asking who said, asked or answered something ("Which minister answered Lord
# Chidgey's question…?", "Which MP asked for leave to bring in a Bill…?"): the one who spoke is
# the answer, and the record names them as the speaker, not in what they said
SPEAKER_ASKED = re.compile(r"^\W*(?:who|which\b[^?]{0,60}?)\s+(?P<verb>said|asked|answered|"
                           r"replied|responded|opened|moved|told|announced|introduced|tabled|"
                           r"proposed|spoke|wound\s+up)\b", re.I)
# An office's noun where a question names it: the holder is asked for only where a word of
# being or holding comes before it ("Who was Home Secretary…", "Who took over as…", "Which MP
# was Chancellor…"), not where the office acts ("Whom did the President nominate…", "Who chaired
# the Leader's Group…"); one straight after "which" or "what" names the answer's kind
OFFICE_NOUN = re.compile(rf"\b(?:{'|'.join(OFFICE_NOUNS.split())})s?\b", re.I)
KIND_BEFORE = re.compile(r"\b(?:which|what)\s+$", re.I)
HOLDING = re.compile(r"\b(?:is|was|were|are|be|been|became|become|becomes|as|held|holds|hold)\b",
                     re.I)
# An office of something ("Secretary of State for …") that ends on a joining word runs on into
# the capitalised words after it: "…for Energy Security and Net Zero"
_JOINED = r"\b(?:of|for|the|and)$"
ENDS_JOINED = re.compile(_JOINED)  # what any such office ends on: tried first, it is cheap
TITLE_GOES_ON = re.compile(r"\b(?:of|for)\b.*" + _JOINED)
QUALIFIED = re.compile(rf"\b([\w'’-]+)\s+(?:{'|'.join(OFFICE_NOUNS.split())})\b", re.I)
# A sentence whose subject is a pronoun, after at most a short opening phrase ("Tuesday night,")
# A determiner before an office a text names ("The Chancellor, …"): not part of the office
OPENING_DETERMINER = re.compile(r"^(?:The|This|That|Our|Their|His|Her) ")
THE_OPENING = re.compile(r"^the\s+", re.I)  # "the Prime Minister": "speaking as Prime Minister"
# The small words an acronym's spelled-out form may hold between its letters ("United States
# of America" for USA)
ACRONYM_JOINER = r"\s+(?:(?:of|and|the|for|&)\s+)*"
# How a sentence opens with the time its figure belongs to: "In 2022, …", "Back in March, …",
# followed by the time expression itself
TIME_OPENING = r"\W*(?:(?:back\s+)?in\s+)?"
PRONOUN_SUBJECT = re.compile(r"^\W*(?:[^,.;:]{1,30},\s*)?(?:he|she|they)\b", re.I)
# A name the question gives: two to five capitalised words ("Roger Federer", "Edinburgh
# Fringe", "Secretary of State for Defence"), "of"/"the" allowed inside.
NAME_PHRASE = re.compile(r"\b[A-Z][\w'’.-]*(?:\s+(?:of\s+|the\s+|for\s+)*[A-Z][\w'’.-]*){1,4}")
# A name of one word is too often a common word capitalised ("Christmas", "Britain" for "UK");
# an acronym ("GDP", "NATO") is a name of its own.
ACRONYM = re.compile(r"[A-Z]{3,6}")
NAME_PHRASE_OR_ACRONYM = re.compile(rf"{NAME_PHRASE.pattern}|\b{ACRONYM.pattern}\b")


# -- what a sentence does: asks, announces, hedges, tells of an earlier time ---------------------

ASKS = re.compile(r"^\s*to ask\b|\?\W*$", re.I)
ANNOUNCES = re.compile(r"^\W*(?:with (?:your )?permission,? (?:mr|madam) (?:deputy )?speaker,? )?"
                        r"I (?:will|shall|should like to|would like to|wish to) make a statement "
                        r"(?:on|about)\b[^.;:]*[.;:]?\W*$", re.I)
# A figure after these words is an expectation, a goal or an extreme, not the level itself:
# "expects inflation to average 7.4 per cent", "inflation peaked at 3.8 per cent".
HEDGE = re.compile(r"\b(?:expect|forecast|project|predict|target|peak|ambition|aim|could|"
                    r"would|might|may|hope|plan)\w*[^,;:()]*", re.I)
# A change asked for by its size ("By how much did it rise?", "plunged by what percentage?"),
# and the figure that gives it, after "by" ("by 0.75 percentage points", "by nearly 60%").
BY_ASKED = re.compile(r"\bby\s+(?:how\s+(?:much|many)|what\s+(?:percentage|per\s?cent|"
                       r"proportion|amount|margin|factor))\b", re.I)
BY_FIGURE = re.compile(r"\bby\s+(?:(?:about|around|almost|nearly|roughly|some|over|more\s+than|"
                        r"less\s+than|a\s+further|another|just|only|up\s+to)\s+)*\S+(?:\s+\S+){0,2}",
                        re.I)
# A sentence opening so tells of an earlier time than the one it was written in.
THEN = re.compile(r"\W*(back then|at the time|previously|before that|until then|earlier|"
                   r"in the past|a year earlier|last year)\b", re.I)


# -- figures asked for ---------------------------------------------------------------------------

# Words that name the kind of answer ("rate", "figure"), not what it is about: "the current
# inflation rate" is about inflation, and a sentence saying "rate" is no closer to it.
MEASURE_WORDS = "rate rates level figure figures number amount percentage share total " \
                 "current currently latest now today present"
# "How much does it cost…", "…a starting pay of how much?": a sum of money is asked for, so a
# figure that is not one ("a 10-member council") is no answer. Not so for a rate or a change.
HOW_MUCH = re.compile(r"\bhow (?:much|large|big)\b", re.I)  # with a word of money: a sum
MONEY = re.compile(r"\b(?:costs?|pay|paid|salary|salaries|wages?|worth|earn\w*|spen[dt]\w*|"
                    r"fund\w*|budget|fines?|fined|compensation|forgiveness|loans?|debt|aid|"
                    r"jackpot|prize|raised?|sold|bought|money)\b", re.I)
# "Which salary threshold…", "What was the cost of…": a sum of money named as what is asked
PRICE_ASKED = re.compile(r"\b(?:what|which)\s+(?:[\w'’-]+\s+){0,3}?(?:salary|salaries|wages?|"
                         r"fees?|price|cost)\b", re.I)
NOT_MONEY = re.compile(r"\b(?:rates?|per ?cent|percent\w*|points?)\b(?!-)|%", re.I)  # not "points-based"
TIME_UNITS = "years months weeks days hours minutes seconds decades centuries"
# "10 years", "3-day", "1 century": a figure with a unit of time after it
SPAN = re.compile(r"\b\d[\d,.]*(?:\s+|-)(?:"
                   + "|".join(re.sub(r"(?:ies|s)$", "", u) for u in TIME_UNITS.split())
                   + r")(?:y|ies|s)?\b", re.I)
# "25 miles", "40 kg", "3-metre": a figure with a unit of measure after it, a size and not a
# count of things ("Scotland's MPs … 25 miles from our largest city" counts no MPs)
MEASURE = re.compile(r"\b\d[\d,.]*(?:\s+|-)(?:miles?|kilomet(?:re|er)s?|km|metres?|meters?|feet|"
                     r"foot|inch(?:es)?|yards?|acres?|hectares?|tonnes?|tons?|kilograms?|kg|"
                     r"grams?|litres?|liters?|gallons?|degrees?)\b", re.I)
SHARE = re.compile(r"\b(?:what|which) (?:share|percentage|proportion)\b|\bwhat per ?cent\b|"
                    r"\bby (?:what|how many) (?:percentage|per ?cent|%)", re.I)
# "What was the unemployment rate…?" asks for a rate (a percentage, basis points, a sum per
# unit), not a count: "1.96 million unemployed people" is no rate
RATE = re.compile(r"\b(?:what|which) (?:was|is|were|are)? ?(?:the )?((?:[\w-]+ ){0,3})rates?\b", re.I)
# A rate a sentence names by what it measures ("Bank Rate", "the unemployment rate")
NAMED_RATE = re.compile(r"\b([\w-]+) rates?\b", re.I)
# A measured quantity set against itself over time ("Compare Bank Rate in August 2024 and
# November 2025", "How has inflation changed since 2022?") is answered by its levels.
OVER_TIME = re.compile(
    r"\b(?:compar\w*|versus|vs|differ\w*|chang\w*|evolv\w*|develop\w*|trend\w*|moved?)\b", re.I)
# "How many grand slams has she won?" counts grand slams: a figure with another noun after it
# ("Serena Williams, 40, announced…") is not the count asked for, "23 Grand Slam titles" is.
HOW_MANY = re.compile(r"\bhow many\s+((?:[\w'’-]+\s+){0,2}[\w'’-]+)", re.I)
# A division's tally: "Ayes 472, Noes 117" (the Commons), "Contents, 201; Not-Contents, 150"
# (the Lords), "the yeas are 52, the nays 48" (the Senate). How many voted for a motion
# ("voted in favour", "supported", "backed") is the first side's figure, how many against the
# second's, though neither says who was counted.
TALLY_FOR = re.compile(r"\b(?:ayes|yeas|contents)\b[\s,:;]*(?:(?:are|were)\s+)?\d", re.I)
TALLY_AGAINST = re.compile(r"\b(?:noes|nays|not[- ]contents)\b[\s,:;]*(?:(?:are|were)\s+)?\d",
                           re.I)
VOTES_FOR = re.compile(r"\bin\s+favou?r\b|\bvot\w*\s+for\b|\bsupport\w*|\bback(?:ed|ing)\b",
                       re.I)
VOTES_AGAINST = re.compile(r"\bvot\w*\s+against\b|\boppos\w*|\breject\w*", re.I)
# "How many times in a row…?" is answered by the ordinal of the latest one: "for a seventh time
# in a row", "its third straight", "the 10th consecutive" ("the first time since 2001" counts
# nothing).
NTH_TIME = re.compile(r"\b(?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
                      r"twelfth|\d+(?:st|nd|rd|th))\s+(?:time|straight|consecutive|successive)\b",
                      re.I)
COUNT = re.compile(r"(?<![\w.])(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|"
                    r"eleven|twelve|twenty|thirty|forty|fifty|hundred|dozens?|hundreds|thousands|"
                    r"millions)\b((?:\s+[\w'’-]+){1,4})", re.I)


# -- what a question is about, and what only frames it -------------------------------------------

# Words that say who speaks or that they spoke, not what about: offices, forms of address, verbs.
NOT_TOPIC = frozenset(content_words(
    "say said says tell told speak spoke talk talked mention mentioned state stated announce "
    "announced publish published publishes write wrote written decide decided " +
    " ".join(sorted(NOT_NAMES))))
# Names a question about change over time may give that are not its subject: "How did the UK
# position on Israel and Gaza evolve?" is about Israel and Gaza.
NOT_SUBJECT = content_words("uk british britain government parliament house commons " +
                             MEASURE_WORDS)
# Words asking for the present state say when, not what about ("What book did John recently
# finish…" is not about lines saying "recently")
NOW_WORDS = content_words("latest recent recently current currently now nowadays presently today")
# Words of a question about change over time that say how it is asked, not what about.
NOT_ABOUT = NOT_SUBJECT | content_words(
    "how has have did does the trend trends evolve evolved evolution develop developed change "
    "changed compare compared comparison differ difference between versus over years time since "
    "position stance view views discussion debate debates said say official plans decide "
    "decided decision")
# "the government's policy", and a position, policy or stance asked about with no one named as
# holding it ("the UK position on Israel", "the official position"): a country's is its
# government's
GOVERNMENT = re.compile(r"\bgovernment(?:'s|’s|s)?\b|^(?:(?!\b(?:labour|conservatives?|tor(?:y|ies)|"
                         r"lib ?dems?|party|parties)\b).)*\b(?:position|policy|stance)\b", re.I)
OPPOSITION = content_words("shadow opposition")
PRESENT = re.compile(r"\b(?:is|are|has|have|will|can|could|does|do)\b", re.I)


# -- figures as written --------------------------------------------------------------------------

SCALE = {"thousand": 10**3, "k": 10**3, "million": 10**6, "mn": 10**6, "m": 10**6,
          "billion": 10**9, "bn": 10**9, "trillion": 10**12, "tn": 10**12}
# A digit inside a name is no figure ("4moms", "COVID-19", "F-35"); a short unit or an
# ordinal's ending after it still leaves one ("-23C", "5km", "3rd").
FIGURE = re.compile(
    r"(?<![\w.])(?<![^\W\d_]-)(?P<cur>[£$€])?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|mn|bn|tn|k|m)\b)?"
    r"(?:\s?(?P<unit>%|per\s?cent\b|percent\b|percentage[\s-]points?\b|points?\b|pp\b"
    r"|basis\s+points?\b|bps\b))?"
    r"(?!\d|[^\W\d_]{4})",
    re.I)
CURRENCY_AFTER = re.compile(r"\s*(?:dollars?|pounds?|euros?|cents?|pence|yen|yuan|rupees?)\b",
                             re.I)
EARLIER_VALUE = re.compile(r"\b(?:from|previously|compared with|against)\s*\W?\s*$", re.I)
UNIT_NAMES = {"%": "%", "per cent": "%", "percent": "%", "percentage point": "pt",
         "percentage points": "pt", "point": "pt", "points": "pt", "pp": "pt",
         "basis point": "bp", "basis points": "bp", "bps": "bp"}
NUMBER_UNITS = {word: n for n, word in enumerate(UNITS_1_9, 1)}
NUMBER_SMALL = dict(zip((*UNITS_1_9[1:], *TEENS), range(2, 20)))
CARDINAL = (rf"(?:{'|'.join(TENS)})(?:[- ](?:{'|'.join(NUMBER_UNITS)}))?|{'|'.join(NUMBER_SMALL)}")
# A number written as words: "six months", "twenty-five", "two hundred", "one million". "One"
# alone is left as a word ("one of the few"), and so is a fraction ("two-thirds") and a word
# joined to another than a unit of time ("a two-state solution", "the two-child limit": a kind,
# not a count; "a forty-two-year-old" is an age).
# Lower case, or capitalised where a sentence starts (after a heading's closing mark too): "Big
# Ten" and "Seven Network" are names.
WORD_FIGURE = re.compile(
    r"(?:(?<![\w-])(?=[a-z])|(?:^|(?<=[.!?:;\"“(#] )|(?<=[\"“(]))(?=[A-Z]))"
    rf"(?P<n>(?i:{CARDINAL}|one(?=\s+(?:hundred|thousand|million|billion|trillion)\b)))"
    r"(?P<h>\s+hundred)?"
    r"(?!\w|-(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|thirds|quarters?"
    r"|halves|fifths|sixths|sevenths|eighths|ninths|tenths)\b"
    r"|-(?!(?:years?|months?|weeks?|days?|hours?|minutes?|decades?)\b)[a-z])",
    re.M)


# -- names and claims ----------------------------------------------------------------------------

# Capitalised words that carry no claim of their own: sentence openers and answer framing.
FRAMING = frozenset("""
according additionally also answer answers although however therefore overall yes no the a an
in on at of for to from by with as it its this that these those there their they he she his her
we our you your i source sources question today yesterday while when where who what which why
how since after before during under between both each some many most more less first then thus
so but and or if not nor based
""".split())
MONTH_NAMES = frozenset(m.lower() for m in MONTHS) | frozenset(m[:3].lower() for m in MONTHS)
NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|none|without)\b|n't\b", re.I)
SAYING = frozenset(stem(w) for w in """
said says say told tells argued argues stated states announced announces asked asks warned
warns claimed claims added explained explains confirmed confirms promised promises described
called calls urged urges according spoke speaking reported reports insisted insists
""".split())


# -- model output that is no answer --------------------------------------------------------------

# A heading copied from the prompt ("[1] 19 November 2025 | Keir Starmer | ...", with or
# without the number, ISO or spelled-out date), a source list, or the next turn of a chat.
FAKE_LISTING = re.compile(
    r"(?im)(?:^|(?<=[.!?\]])\s)\s*(?:[-*]\s*)?(?:\[\d{1,3}\]\s*)?[.:)]?\s*"
    rf"(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}\s+(?:{MONTH_WORDS})\s+\d{{4}}|undated)\s*\|"
    r"|^\s*(?:sources?|references?|evidence)\s*:|\b(?:question|user|assistant)\s*:"
    r"|(?:^|(?<=[.!?\]])\s)[^\n|.!?]*\s\|\s[^\n|]*\s\|\s")  # "2011 | Ed Miliband | House of …"
# What a small model puts before its sentence: "The answer is:", "Response:", or a period label
# copied from the prompt ("2022:", "Newer sources:"). It says nothing; the sentence after it is
# what is checked and shown.
LEAD_IN = re.compile(r"^\s*(?:(?:the\s+)?(?:answer|response|reply)(?:\s+is)?\s*:\s*"
                      r"|(?:\d{4}|older sources|newer sources|middle sources)\s*:\s*)+", re.I)
# A question that asks for something (not "True or false: …", not "Did…?"): a claim must add
# to it.
OPEN_QUESTION = re.compile(r"(?is)^(?!\W*true or false).*\b(?:who|whom|whose|what|which|when|"
                            r"where|why|how)\b")
