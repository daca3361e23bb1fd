"""The words that reveal a question's intent: current, evolution, comparison, a quantity.

They are patterns rather than a classifier so that each decision can be explained by the words
that made it."""
from __future__ import annotations

from .lexicon import lazy

# --- words that reveal the intent ------------------------------------------------------------
# Searched in the question with its time expressions blanked out, so the "last" of "last month"
# or the "текущем" of "в текущем году" is not mistaken for a cue.

# Of the words that make a question "current", those that ask outright for the newest state
# ("latest", "now", "this week") rather than implying it ("Who is…"): retrieval leans on
# recency harder for them.
RECENCY_CUES = lazy(
    r"latest|most recent|current|now|today|this week|recent|сейчас|actuel|aktuell|actual")

# Verb forms of something happening around the day asked, in a question that names no time:
# done lately ("has brought back", "have fled"), under way ("are fleeing") or ahead ("will
# soon", "next"). Not a time cue (the question stays `none`), but a news question so worded is
# about the news of the last days ("Which menu item has Taco Bell brought back?").
ONGOING = lazy(
    r"\b(?:has|have)\s+(?:(?:not|never|just|already|now|finally|recently|been)\s+)*[a-z]+"
    r"(?:ed|en|wn|ght|ne|un|de|id|ld|nd|ft|st|ot|it|ut|et|nt|lt|pt|ck|od|on|ung|um)\b"
    r"|\b(?:is|are)\s+(?:now\s+|still\s+)?[a-z]{3,}ing\b|\bwill\b|\bsoon\b|\bnext\b|\bupcoming\b")

CURRENT_CUES = lazy(
    r"\b(?:current(?:ly)?|now(?:adays)?|at\s+present|presently|at\s+the\s+moment|right\s+now|latest|"
    r"most\s+recent(?:ly)?|recent(?:ly)?|these\s+days|still|any\s*more|up[-\s]to[-\s]date|"
    # "Which product remains hard to find?": the verb says "still", the noun ("human remains") does not
    r"(?<!\bthe\s)(?<!\bhuman\s)(?<!\bhis\s)(?<!\bher\s)(?<!\btheir\s)(?<!\bits\s)remains?(?!\s+(?:of|were|was)\b)|"
    r"as\s+(?:things|it)\s+stands?|"
    r"when\s+(?:did|was|were|has|have|had)\s+(?:\S+\s+){1,5}?last|"  # "When did the Bank last cut rates?"
    r"сейчас|в\s+настоящее\s+время|на\s+данный\s+момент|на\s+сегодня(?:шний\s+день)?|текущ\w+|нынешн\w+|"
    r"последн\w+|недавн\w+|по-прежнему|вс[её]\s+ещ[её]|до\s+сих\s+пор|теперь|ныне|актуальн\w+|"
    r"actuel(?:le)?s?|actuellement|maintenant|à\s+présent|de\s+nos\s+jours|en\s+ce\s+moment|derni[eè]re?s?|"
    r"récent(?:e|es|s)?|récemment|toujours|encore|jusqu['’]à\s+présent|désormais|"
    r"aktuell\w*|derzeit\w*|zurzeit|zur\s+zeit|jetzt|momentan\w*|gegenwärtig\w*|heutzutage|neueste\w*|"
    r"jüngste\w*|kürzlich|vor\s+kurzem|immer\s+noch|noch\s+immer|nach\s+wie\s+vor|inzwischen|mittlerweile|"
    r"bisher|bislang|noch|"
    r"actualmente|actuales|ahora|hoy\s+en\s+día|en\s+la\s+actualidad|en\s+este\s+momento|últim[oa]s?|"
    r"recientes?|recientemente|todavía|aún|sigue|siguen|hasta\s+ahora|a\s+día\s+de\s+hoy)(?!\w)"
)
# The adverb that dates an event from the moment of asking ("a card from 1952 recently sold"): a
# period that only says where a thing comes from ("from 1952") describes that thing and does not
# end the search; "passed in 2015" still does.
SPEECH_TIME_CUES = lazy(
    r"^(?:recently|récemment|kürzlich|vor\s+kurzem|recientemente|недавно)$"
)
ORIGIN_BEFORE = lazy(r"(?:^|\s)(?:from|dating\s+from|aus|de|del|из)\s+(?:the\s+)?$")
# The subset that only says "now" and can leave the semantic query ("the current inflation rate").
STRIPPABLE_CUES = lazy(
    r"\b(?:current(?:ly)?|now(?:adays)?|at\s+present|presently|at\s+the\s+moment|right\s+now|latest|"
    r"most\s+recent|these\s+days|сейчас|в\s+настоящее\s+время|текущ\w+|нынешн\w+|actuel(?:le)?s?|"
    r"actuellement|maintenant|de\s+nos\s+jours|aktuell\w*|derzeit\w*|zurzeit|jetzt|actualmente|actuales|ahora|"
    r"en\s+la\s+actualidad)(?!\w)"
)
# A verb of saying: a question that asks what was said, asked, published, announced, reported,
# decided, voted or written in a period is about when documents appeared there ("said" in the
# contract), not about a time they speak of ("about": the state, figure or event of the period).
# Someone's view, stance or position on a thing, their plans and policies, and what it is
# according to someone, are what they said.
SAID_CUES = lazy(
    r"\b(?:say|says|said|saying|tell|tells|told|mention(?:s|ed)?|discuss(?:es|ed)?|debat(?:e|es|ed)|"
    r"ask(?:s|ed)?|publish(?:es|ed)?|announc(?:e|es|ed)|report(?:s|ed)?|decid(?:e|es|ed)|"
    r"vot(?:e|es|ed)|writ(?:e|es|ten)|wrote|speak(?:s)?|spoke(?:n)?|stated|"
    r"argu(?:e|es|ed)|claimed|describ(?:e|es|ed)|commented|warn(?:s|ed)?|"
    r"promised|pledged|recommend(?:s|ed)?|according\s+to|stance|position\s+on|views?\s+(?:of|on)|"
    r"plans|polic(?:y|ies)|"
    r"(?<=['’]s\s)view|"
    r"dit|dites|déclaré|annoncé|publié|débattu|voté|écrit|"
    r"sagte|sagten|gesagt|erklärt\w*|angekündigt|veröffentlicht\w*|debattiert|beschlossen|geschrieben|"
    r"dijo|dijeron|dicho|declaró|anunció|publicó|debatió|votó|escribió|"
    r"сказал\w*|заявил\w*|объявил\w*|опубликова\w*|обсуждал\w*|говорил\w*|писал\w*)(?!\w)"
)
# A period straight after a deed in the past, not a saying ("cars sold in 2008", "the bill
# passed in 2015", "what happened on Tuesday"): the time of that deed, which the thing said is
# about, whatever verb of saying the question also has. English only.
DONE_BEFORE = lazy(
    r"(?:^|\s)([a-z]{2,}(?<!e)ed|sold|spent|paid|held|built|made|lost|won|bought|brought|"
    r"taken|took|given|gave|seen|saw|done|did|grown|grew|risen|rose|fallen|fell|begun|began|"
    r"cut|set|hit|kept|left|met|sent|went|came|ran|broke|broken|chosen|drawn|driven|flown|"
    r"hidden|known|shown|shot|sunk|struck|stolen|sworn|thrown|worn|lent|fought|caught|taught)"
    r"\s+(?:(?:in|on|during|throughout|over|between|from|by|at)\s+)?(?:the\s+)?$"
)
# A report or a sitting named by its date ("the October 2025 Beige Book", "the November 2014
# labour market release"): the period names when it appeared, as a verb of saying would. Read
# right after a named period. Not "budget": "the 2033 to 2037 carbon budget" is a budget for it.
REPORT_NAMED = lazy(
    r"\s*(?:['’]s\s+)?(?:[\w-]+\s+){0,3}?(?:beige\s+book|report|release|bulletin|statement|"
    r"(?:spending\s+)?review|minutes|edition|issue|debate|session|sitting|hearing|meeting|speech|"
    r"press\s+conference|survey|publication|rapport|bericht|informe|доклад\w*|отч[её]т\w*)s?(?!\w)"
)

# Words that ask how something moved through time, whatever the span.
EVOLUTION_CUES = lazy(
    r"\b(?:evolv\w*|evolution\w*|trajector(?:y|ies)|over\s+time|over\s+the\s+(?:years|decades|course\s+of)|"
    r"through\s+the\s+years|across\s+the\s+years|(?:the\s+)?history\s+of|historically|shift(?:ed|s|ing)?|"
    r"develop(?:ed|s)?|been\s+developing|"
    r"эволюци\w+|эволюционир\w+|развивал\w*|развил\w*|динамик\w+|с\s+течением\s+времени|со\s+временем|"
    r"за\s+эти\s+годы|на\s+протяжении\s+(?:лет|многих\s+лет|времени)|"
    r"évolu\w+|au\s+fil\s+du\s+temps|au\s+fil\s+des\s+(?:ans|années)|au\s+cours\s+des\s+années|"
    r"avec\s+le\s+temps|"
    r"trajectoire|entwickel\w+|entwickelt|entwicklung\w*|im\s+lauf(?:e)?\s+der\s+(?:zeit|jahre)|"
    r"über\s+die\s+jahre|"
    r"mit\s+der\s+zeit|verlauf|evoluci\w+|evolucion\w+|a\s+lo\s+largo\s+del?\s+(?:tiempo|los\s+años)|"
    r"con\s+el\s+tiempo|con\s+los\s+años|trayectoria|desarroll\w+)(?!\w)"
)
# Weaker: a trend, or a change, asked about. Over a span they mean evolution; inside one named
# period ("How did employment change in the October 2025 Beige Book?") they do not.
TREND_CUES = lazy(r"\b(?:trend\w*|tendenc\w+|tendance\w*|тенденци\w+|истори\w+|historique|geschichte)(?!\w)")
CHANGE_CUES = lazy(
    r"(?<!climate\s)\bchang(?:ed|ing)\b|\bwhat\s+(?:has\s+)?changed\b|"
    r"(?<!climate\s)\bchanges\s+(?:in|to|of|between|from|since|over)\b|"
    r"\b(?:did|does|do|has|have|had|will|would|could|might)\s+"
    r"(?:(?!about\b|on\b|of\b|regarding\b|for\b|in\b|to\b|with\b|over\b|climate\b)\S+\s+){0,5}change\b|"
    # "How did the position on tariffs change": after "how", a closing "change" is the verb
    r"\bhow\s+(?:did|does|do|has|have|had|will|would|could|might)\b[^?.!]{1,80}?(?<!climate\s)\bchange\b|"
    # "Has unemployment risen over the last 12 months?": a movement asked about
    r"\b(?:has|have|had)\s+(?:\S+\s+){0,3}?(?:risen|fallen|increased|decreased|grown|declined|improved|worsened|"
    r"shrunk|dropped|climbed|rebounded|recovered|moved)\b|"
    r"\bhow\s+(?:much|far)\b[^?.!]{1,60}?\b(?:rise|fall|increase|decrease|grow|decline|drop|climb)\b|"
    r"\b(?:изменил\w*|изменени\w+|измени\w+|менял\w*|поменял\w*|changé\w*|changement\w*|modifié\w*|"
    r"verändert\w*|geändert|veränderung\w*|gewandelt|cambiad[oa]s?|cambió|cambiaron)(?!\w)"
)
# "change between P1 and P2": the two ends are periods to set side by side, not one range.
CHANGE_BETWEEN = lazy(
    r"(?<!climate\s)\bchang(?:e|es|ed)\s+between\b|\bchangements?\s+entre\b|\bcambios?\s+entre\b|"
    r"\bveränderung\w*\s+zwischen\b|\bизменени\w+\s+между\b"
)
COMPARISON_CUES = lazy(
    r"\b(?:compar\w*|versus|vs\.?(?!\w)|v\.(?!\w)|relative\s+to|as\s+opposed\s+to|in\s+contrast\s+(?:to|with)|"
    r"contrast\w*|differ\w*|side\s+by\s+side|сравн\w+|против|отлича\w+|отличи\w+|разниц\w+|"
    r"par\s+rapport\s+(?:à|au|aux)|différ\w+|vergleich\w*|verglichen|gegenüber|unterscheid\w+|unterschied\w*|"
    r"frente\s+a|diferenci\w+|difier\w+|distint\w+)(?!\w)"
)
# A current cue directly before an evolution noun names the newest state ("latest developments",
# "neueste Entwicklungen"), not a change over time.
CURRENT_BEFORE = lazy(
    r"(?:latest|recent|current|most\s+recent|neueste\w*|jüngste\w*|aktuelle\w*|derni[eè]re?s|récente?s|"
    r"últim[oa]s|recientes?|последн\w+|текущ\w+|недавн\w+)\s+$"
)
# A change asked about ahead ("How much will defence spending rise by 2027?"): what is planned
# or forecast now, which the latest documents say, not a history.
AHEAD = lazy(r"\b(?:will|shall|going\s+to|(?:expected|set|planned|projected|forecast|meant|supposed|"
             r"intended|scheduled)\s+to)\b")
# The word that sets a deadline before a period ("cut emissions by 2035"); English only (other
# languages' words for it also mean "up to", which says nothing of the period itself).
DEADLINE = lazy(r"by\s+")
# A period named as the point a figure is measured against ("up from 3.8 per cent in
# September", "unchanged from September", "lower than in April", "compared with 2019"), read
# on the words before it: the figure stated is of another time, the report's own. "More than
# 28,000 … in 2022" and "from 3.8 per cent in September to 4.0 per cent in October" name no
# baseline in their last period. English only, as the deadline.
_TOKEN = r"(?:[^\s,;:()]|,(?=\d))+\s+"  # a word or a figure ("860,000"), not a clause's comma
BASELINE = lazy(rf"\b(?:from\s+(?:{_TOKEN}){{0,4}}|than\s+(?:in\s+|on\s+|during\s+)?|"
                rf"compared\s+(?:with|to)\s+(?:{_TOKEN}){{0,4}})$")
# "since December 2021, when the rate stood at 0.1 per cent": the clause after an open-ended
# period tells that period's own state. English only.
WHEN_CLAUSE = lazy(r",?\s*when\b")
PAST_TENSE = lazy(
    r"\b(?:was|were|did|had|happened|said|discussed|debated|announced|был\w*|писали|говорил\w*|сказал\w*|"
    r"était|étaient|avait|fut|war|waren|wurde|wurden|hatte|gesagt|fue|fueron|era|eran|hubo|dijo)(?!\w)"
)

# "Who is the Prime Minister?": a role someone holds now.
ROLE_QUESTION = lazy(
    r"\bwho(?:['’]s|\s+is|\s+are)\s+(?:currently\s+|now\s+)?(?:the|our|their|its|his|her|this|that)\b|"
    r"\bwho\s+(?:is\s+)?(?:in\s+charge\s+of|heads|leads|runs|chairs|governs|holds|represents|manages|"
    r"controls)\b|"
    r"\bqui\s+(?:est|sont)\s+(?:actuellement\s+)?(?:le|la|les|l['’])|\bqui\s+(?:dirige|préside|gouverne)\b|"
    r"\bwer\s+(?:ist|sind)\s+(?:derzeit\s+|aktuell\s+|jetzt\s+)?(?:der|die|das|den|unser\w*)\b|"
    r"\bwer\s+(?:leitet|führt|regiert)\b|"
    r"\bqui[eé]n(?:es)?\s+(?:es|son)\s+(?:el|la|los|las)\b|\bqui[eé]n\s+(?:dirige|gobierna|preside|lidera)\b|"
    r"\bкто\s+(?:сейчас\s+)?(?:является|возглавляет|руководит|управляет|занимает|"
    r"министр|премьер|президент|глав|председател|губернатор|мэр|директор|руководител|спикер|посол|канцлер|"
    r"лидер)"
)
# "What is the government planning?": something going on now.
PRESENT_PROGRESSIVE = lazy(
    r"\b(?:what|how|who|which|why)\b[^?.!]{0,40}?\b(?:is|are|am)\s+(?:\S+\s+){0,4}?"
    r"(?:doing|planning|proposing|saying|considering|discussing|debating|pushing|seeking|offering|arguing|"
    r"calling|happening|going\s+on|trying|working|preparing|negotiating)\b"
)
# "What is the inflation rate?": a changing quantity. The noun phrase is checked in query.py.
QUANTITY_QUESTION = lazy(
    r"\b(?:what|which)(?:['’]s|\s+is|\s+are)\s+(?P<det>the|our|their|its|this|that|[\w'’-]+['’]s?)\s+"
    r"(?P<np>[\w'’-]+(?:\s+[\w'’-]+){0,4}?)(?=\s+(?:of|on|for|in|regarding|about|towards?|at|with|from|by|"
    r"under|"
    r"concerning|between|among|against|and|today|now)\b|\s*[?.!,;:§]|\s*$)|"
    r"\bquel(?:le)?s?\s+(?:est|sont)\s+(?:actuellement\s+)?(?:le|la|les|l['’])\s*(?P<np_fr>[\w-]+)|"
    r"\bcu[aá]l(?:es)?\s+(?:es|son)\s+(?:actualmente\s+)?(?:el|la|los|las)\s+(?P<np_es>\w+)|"
    r"\bwas\s+(?:ist|sind)\s+(?:der|die|das)\s+(?:\w+e[nrs]?\s+)?(?P<np_de>\w+)|"
    r"\b(?:какой|какая|какое|какие|каков|какова|каково|каковы)\s+(?:сейчас\s+|сегодня\s+|"
    r"нынче\s+)?(?P<np_ru>\w+)"
)
# How much / how high: a present quantity whatever the noun.
HOW_MUCH = lazy(
    r"\bhow\s+(?:much|many|high|low|big|large)\b[^?.!]{0,60}?\b(?:is|are|does|do)\b|"
    # "What percentage of the population is vaccinated?": a share asked in the present tense
    r"\bwhat\s+(?:percentage|percent|share|proportion|fraction|portion)\s+of\b[^?.!]{1,60}?\b(?:is|are)\b|"
    r"\bwie\s+(?:hoch|viel|viele|groß|teuer|stark)\s+(?:ist|sind)\b|\bсколько\s+(?:стоит|сейчас)\b|"
    r"\bcombien\s+(?:coûte|vaut|y\s+a-t-il)\b|\bcu[aá]nto\s+(?:cuesta|vale)\b"
)
# A figure asked for: the level, count or rate of something measured ("the latest inflation
# figure", "What is unemployment now?", "How many people…") or set ("the carbon budget for 2023
# to 2027"), not a policy, a view or a holder. The current mode ages a passage about such a
# figure by the period its figure is for; a question about a period finds it in what speaks of
# the period as readily as in what was published in it (a figure is published after its
# period, a budget set before it). Not "funding": "NHS funding in 2018 versus 2024" then read
# 2019's "announced last year" before the 2018 settlement itself.
FIGURE = lazy(
    r"\bhow\s+(?:much|many)\b|\b(?:rates?|prices?|levels?|numbers?|figures?|costs?|totals?|"
    r"amounts?|counts?|budgets?|"
    r"percentage|proportion|share|average|inflation|unemployment|employment|gdp|"
    r"growth|wages?|salar(?:y|ies)|debt|deficit|borrowing|spending|migration|population|"
    r"arrivals|crossings|output|yields?)\b")
QUANTITY_WORDS = frozenset(
    "rate rates price prices level levels number numbers cost costs value figure figures budget position "
    "policy stance view views status state situation size population debt deficit balance target targets "
    "outlook forecast yield yields share total amount count ranking majority score inflation unemployment "
    "gdp growth wage wages salary fee fees tariff tariffs tax taxes spending approval polling poll polls "
    "standing lead capacity strategy plan plans approach attitude opinion guidance percentage proportion "
    "average membership headcount exchange stock reserves turnover output demand supply "
    # fr / es first nouns
    "taux prix niveau nombre coût valeur chiffre montant chômage dette déficit croissance état statut "
    "solde salaire loyer tarif stratégie politique cours tasa precio nivel número costo coste valor cifra "
    "presupuesto posición postura política tipo inflación desempleo paro deuda crecimiento situación "
    "estado población salario tarifa cotización".split()
)
QUANTITY_STEMS = (  # Russian nouns inflect, German ones compound: match by stem / ending
    "курс", "ставк", "уровен", "уровн", "цен", "инфляц", "безработиц", "бюджет", "позици", "политик", "долг",
    "дефицит", "рост", "ситуац", "состояни", "численност", "размер", "стоимост", "зарплат", "пенси", "тариф",
)
QUANTITY_SUFFIXES = (
    "rate", "zins", "zinsen", "quote", "preis", "preise", "kurs", "stand", "niveau", "zahl", "zahlen", "wert",
    "budget", "haushalt", "position", "haltung", "politik", "lage", "inflation", "schulden", "defizit",
    "wachstum", "steuer", "lohn", "miete",
)
# Heads of a noun phrase that name a fixed thing: "What is the Online Safety Act?" is not current.
FIXED_HEADS = frozenset(
    "act acts bill law treaty agreement convention directive regulation scheme programme program charter "
    "constitution report committee commission party organisation organization institution department "
    "ministry union council court definition meaning purpose origin origins name acronym abbreviation "
    "concept book article doctrine principle theory framework role function history story idea reason "
    "gesetz abkommen vertrag".split()
)
