"""The texts ``reactfuzz bench`` parses: canonical, realistic, and the user's own.

The grammar parser's cost depends on what it reads: the fast path takes the commonest
one-line shapes and everything else goes to Lark. So the bench times it on realistic
multi-step runs the project writes itself with its own writer (:func:`realistic_runs`:
seeded, no Hypothesis draws, no text from elsewhere) and on a JSON Lines file of real
completions read at run time (:func:`read_completions`), not only on one canonical
completion.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = ["TEXT", "read_completions", "realistic_runs"]

TEXT = (
    "Thought: I should list this customer's July invoices before assuming a duplicate.\n"
    "Action: list_invoices[cus_8812, 2026-07-01]"
)
"""The canonical completion every earlier bench run timed (kept for continuity)."""

_NAMES = ("Maria Silva", "Kenji Watanabe", "Amara Okafor", "Lena Fischer", "Tomás Ruiz",
          "Priya Natarajan", "Sean O'Brien", "Chloé Martin")
_CITIES = ("Lisbon", "Osaka", "Porto Alegre", "Cape Town", "Saint Paul", "Reykjavik",
           "Hamburg", "Chiang Mai")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_QUERIES = ("refund policy annual plans", "how to update a billing address",
            "charge disputed by the bank", "invoice shows the wrong currency",
            "cancel a subscription before renewal", "export invoices as PDF",
            "change the card on file", "why was I charged a late fee")
_DOCS = ("policies/refunds.md", "policies/late-fees.md", "runbooks/duplicate-charges.md",
         "faq/billing-address.txt", "templates/refund-confirmation.txt")
_ASIDES = (
    "The observation is consistent with what the customer reported.",
    "Nothing in the result contradicts that, so I can move on.",
    "I should not assume anything the tools have not confirmed.",
    "If this comes back empty I will have to ask the customer for more detail.",
    "That narrows it down, but I still need the exact amount before acting.",
    "The dates line up with the billing cycle, which makes an error less likely.",
)

_LAST_THOUGHTS = ("I have what I need to answer.", "That settles it.",
                  "The tools confirmed everything the answer needs, so I can reply now.")


def _rid(rng: random.Random, prefix: str, n: int) -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"
    return prefix + "".join(rng.choice(alphabet) for _ in range(n))


def _thought(rng: random.Random, lead: str) -> str:
    """A thought of one to three sentences; now and then the model breaks the line."""
    extra = rng.sample(_ASIDES, rng.choice((0, 0, 1, 1, 2)))
    if not extra:
        return lead
    return lead + ("\n" if rng.random() < 0.2 else " ") + " ".join(extra)


def _plan(rng: random.Random) -> tuple[str, list[tuple[str, Any, str]], str]:
    """One support task: the question, (thought, intent, observation) steps, the answer."""
    from ..model import Call

    cus, ch = _rid(rng, "cus_", 14), _rid(rng, "ch_", 24)
    month = rng.randrange(1, 13)
    since = f"2026-{month:02d}-01"
    inv = f"INV-{rng.randint(1000, 9999)}"
    amount = rng.choice((19.0, 49.5, 129.0, 240.0, 1299.99))
    name, city = rng.choice(_NAMES), rng.choice(_CITIES)
    email = name.lower().replace(" ", ".").replace("'", "") + "@example.com"
    kind = rng.randrange(4)
    steps: list[tuple[str, Any, str]] = []
    if kind == 0:
        question = f"Was {cus} charged twice for {inv} in {_MONTHS[month - 1]}?"
        steps.append((f"I should list this customer's {_MONTHS[month - 1]} invoices before"
                      " assuming a duplicate.", Call("list_invoices", (cus, since)),
                      f'[{{"id": "{inv}", "issued": "{since[:8]}03", "total": {amount:.2f},'
                      f' "charges": ["{ch}"]}}]'))
        steps.append((f"There is one invoice, {inv}, with a single charge. I will check that"
                      " the charge itself was not captured twice.", Call("get_charge", (ch,)),
                      f'{{"id": "{ch}", "amount": {amount:.2f}, "captured": true,'
                      ' "refunded": false}'))
        answer = (f"No. {cus} has one invoice in {_MONTHS[month - 1]} ({inv}) and its only"
                  f" charge was captured once, for {amount:.2f}.")
        if rng.random() < 0.5:
            answer += "\nIf the customer sees two entries, one is likely a pending authorisation."
    elif kind == 1:
        question = f"Email {name} at {email} the weather in {city} for tomorrow's site visit."
        units = rng.choice(("metric", "imperial"))
        steps.append((f"I need the current weather in {city} before writing the email.",
                      Call("get_weather", (city, units) if units != "metric" else (city,)),
                      f'{{"city": "{city}", "temperature": 18, "units": "{units}",'
                      ' "conditions": "light rain"}'))
        body = (f"Hi {name.split()[0]}, tomorrow in {city} expect light rain and about 18"
                " degrees, so bring a jacket.")
        steps.append(("It is rainy there, so the email should mention a jacket. I have"
                      " everything I need to write it.",
                      Call("send_email", (email, f"Weather in {city} for your visit", body)),
                      f"sent to {email}"))
        answer = f"I emailed {name} the forecast for {city}: light rain, about 18 degrees."
    elif kind == 2:
        query, doc = rng.choice(_QUERIES), rng.choice(_DOCS)
        question = f"A customer asks: {query}?"
        steps.append(("I should search the help center before answering from memory.",
                      Call("search", (query,)),
                      f'[{{"title": "{query.capitalize()}", "path": "{doc}"}}]'))
        if rng.random() < 0.5:
            steps.append((f'The first result, "{query.capitalize()}", looks relevant but the'
                          " title is vague. Let me try a narrower search.",
                          Call("search", (query + " 2026",)),
                          f'[{{"title": "Billing changes in 2026", "path": "{doc}"}}]'))
        steps.append((f"The article at {doc} should have the details. I will read it.",
                      Call("read_file", (f"/srv/agent-files/{doc}",)),
                      "Customers may request this within 30 days; see the steps below."))
        answer = (f"According to {doc}, this can be done within 30 days of the charge:\n"
                  "1. Open Billing in the account settings.\n2. Choose the invoice and follow"
                  ' "Request a change".' if rng.random() < 0.5 else
                  f"According to {doc}, this can be done within 30 days of the charge; I can"
                  " walk you through the steps.")
    else:
        question = f"Please refund {amount:.2f} of {ch}; the customer cancelled in time."
        steps.append(("Before refunding I should confirm the charge exists and covers the"
                      " amount.", Call("get_charge", (ch,)),
                      f'{{"id": "{ch}", "amount": {amount:.2f}, "refunded": false}}'))
        if rng.random() < 0.5:
            steps.append(("Refunds after a cancellation may have conditions. I will check the"
                          " policy first.", Call("search", ("refund after cancellation",)),
                          '[{"title": "Refunds", "path": "policies/refunds.md"}]'))
        steps.append((f"The charge is for {amount:.2f} and nothing was refunded yet, so the"
                      " full refund is allowed.",
                      Call("refund", (ch, amount, "requested_by_customer")),
                      f'{{"refund": "{_rid(rng, "re_", 24)}", "status": "succeeded"}}'))
        if rng.random() < 0.6:
            steps.append(("The refund succeeded. The customer should get a confirmation.",
                          Call("send_email", (email, "Your refund", "Your refund of"
                                              f" {amount:.2f} is on its way.")),
                          f"sent to {email}"))
        answer = f"Refunded {amount:.2f} of {ch} and let the customer know."
    if rng.random() < 0.4:  # the model double-checks the time before answering
        steps.insert(0, ("I should know today's date before reasoning about billing periods.",
                         Call("get_time", ()), "2026-09-14T10:02:11Z"))
    return question, steps, answer


def realistic_runs(count: int = 24, *, seed: int = 0,
                   fmt: str = "bracket") -> list[tuple[list[str], str]]:
    """Multi-step ReAct runs of a support agent over the default tools, written by ``render``.

    Each run is (the completions a model returns, one per step, each cut at the format's
    stop sequence by :func:`~reactfuzz.llm.apply_stop` as a provider would; the whole
    transcript). Runs have 3 to 6 steps, thoughts of one to three sentences (now and then
    over two lines, now and then quoting a title), arguments with ids, dates, amounts and
    free text (quoted where a comma needs it), and a final answer of one to three lines,
    like the ReAct paper's runs. Seeded and deterministic; no Hypothesis draws.
    """
    from ..formats import get_format
    from ..llm import apply_stop
    from ..model import FinalAnswer
    from ..render import render

    f = get_format(fmt)
    rng = random.Random(seed)
    runs: list[tuple[list[str], str]] = []
    for _ in range(count):
        question, steps, answer = _plan(rng)
        completions: list[str] = []
        lines = [f"{f.labels.headers[0]}: {question}"]
        for n, (lead, call, observation) in enumerate(steps, 1):
            text = render(call, f, thought=_thought(rng, lead), step=n, quote=True)
            # the model runs on into an observation of its own; the provider stops it
            said = f"{text}\n{f.label('observation', n)} {observation}"
            completions.append(apply_stop(said, f.stop)[0])
            lines += [text, f"{f.label('observation', n)} {observation}"]
        final = render(FinalAnswer(answer), f, thought=rng.choice(_LAST_THOUGHTS),
                       step=len(steps) + 1)
        completions.append(final)
        lines.append(final)
        runs.append((completions, "\n".join(lines) + "\n"))
    return runs


def read_completions(path: str, field: str = "text") -> list[str]:
    """The completions in a JSON Lines file: the string ``field`` of each object.

    Blank lines are skipped. A line that is not a JSON object holding a string under
    ``field`` is an :class:`~reactfuzz.errors.InputFileError` naming the file and line.
    """
    import json

    from ..errors import InputFileError
    from ..limits import MAX_JSONL_BYTES, load_json_text, read_user_file

    raw = read_user_file(path, "completions file", limit=MAX_JSONL_BYTES)
    try:
        lines = raw.decode("utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    out: list[str] = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = load_json_text(line, f"{path}:{i}", allow_nan=True)
        except json.JSONDecodeError as exc:
            raise InputFileError(f"{path}:{i}: invalid JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get(field), str):
            raise InputFileError(
                f"{path}:{i}: expected a JSON object with a string {field!r}"
                " (choose the key with --field)"
            )
        out.append(obj[field])
    if not out:
        raise InputFileError(f"{path}: no completions (one JSON object per line)")
    return out
