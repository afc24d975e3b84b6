"""legal_document: eleven versions of a preferred stock purchase agreement under review
(MCPMark's tree: legal_files/Preferred_Stock_Purchase_Agreement_v0.txt ... _v10.txt; its
original is an NVCA model agreement).

v0 is the clean first draft and v10 the clean final text. In v1-v9 the four reviewers (Bill
Harvey, Michelle Jackson, David Russel, Tony Taylor) and sometimes "All parties" comment on
clauses: a comment is a line `[Name: text]` under the clause it is about, and each version's
file holds only the comments of that round. Every clause states one negotiable figure (a number
of days, a percentage or a dollar amount); some comments propose a figure, and the next version
may adopt it. For clauses 4.6, 4.16, 6.8 and 6.16 (the ones the solution-tracing task asks
about) the rounds v5-v9 are scripted: a rejected proposal, then the proposal that the final text
adopts, then others agreeing with it, so that exactly one comment first proposes the final
figure.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

PEOPLE = ("Bill Harvey", "Michelle Jackson", "David Russel", "Tony Taylor")
SECTIONS = (
    (1, "PURCHASE AND SALE OF PREFERRED STOCK", 5),
    (2, "REPRESENTATIONS AND WARRANTIES OF THE COMPANY", 4),
    (3, "REPRESENTATIONS AND WARRANTIES OF THE PURCHASERS", 3),
    (4, "CONDITIONS TO THE PURCHASERS' OBLIGATIONS AT CLOSING", 18),
    (5, "CONDITIONS OF THE COMPANY'S OBLIGATIONS AT CLOSING", 4),
    (6, "MISCELLANEOUS", 18),
)
TRACED = ("4.6", "4.16", "6.8", "6.16")
TITLES = ("Sale of Preferred Stock", "Closing", "Use of Proceeds", "Defined Terms",
          "Additional Closings", "Organization", "Capitalization", "Subsidiaries",
          "Authorization", "Accredited Investor", "Restricted Securities", "Legends",
          "Representations", "Performance", "Compliance Certificate", "Qualifications",
          "Opinion of Counsel", "Board of Directors", "Indemnification Agreement",
          "Investors' Rights", "Information Rights", "Voting Agreement", "Management Rights",
          "Secretary's Certificate", "Proceedings", "Minimum Number of Shares",
          "Preemptive Rights", "Survival", "Successors", "Governing Law", "Counterparts",
          "Notices", "Finder's Fee", "Fees and Expenses", "Amendments", "Severability",
          "Delays or Omissions", "Entire Agreement", "Dispute Resolution", "Confidentiality",
          "Waiver of Conflicts", "Attorneys' Fees", "Aggregation of Stock", "Titles",
          "Publicity", "Expenses Cap", "Escrow", "Termination")
BODIES = {
    "days": ("The Company shall deliver the required documents to the Purchasers within {v}.",
             "Any notice under this clause must be given at least {v} in advance.",
             "The parties shall cure any breach within {v} of written notice."),
    "percent": ("This right applies to holders of at least {v} of the outstanding shares.",
                "The approval of holders of {v} of the Preferred Stock is required.",
                "The fee shall not exceed {v} of the aggregate purchase price."),
    "dollars": ("The Company shall reimburse reasonable expenses of up to {v}.",
                "Any single obligation above {v} requires the Board's approval.",
                "The minimum investment under this clause is {v}."),
}
PROPOSE = ("I suggest we change this to {v}.", "We would accept {v}, not more.",
           "Please revise the figure to {v}.", "Our side proposes {v} here.",
           "Could we settle on {v}?")
AGREE = ("Agreed, {v} works for us.", "We support {v}.", "Fine with {v}.")
REMARK = ("Please clarify the wording of this clause.", "We need to review this with the board.",
          "This is consistent with the term sheet.", "Who bears the risk here?",
          "Let us discuss this on the next call.", "The definition should match Section 1.",
          "No objection to the current text.", "This needs a carve-out for affiliates.")


def fmt(kind: str, n: int) -> str:
    return f"{n} days" if kind == "days" else f"{n}%" if kind == "percent" else f"${n:,}"


def _value(rng: np.random.Generator, kind: str) -> int:
    if kind == "days":
        return int(rng.choice((5, 10, 15, 20, 30, 45, 60, 90)))
    if kind == "percent":
        return int(rng.choice((2, 3, 5, 10, 15, 20, 25, 33, 50, 60, 66, 75)))
    return int(rng.choice((10, 15, 25, 50, 75, 100, 150, 250, 500))) * 1000


def _other(rng: np.random.Generator, kind: str, avoid: set[int]) -> int:
    while True:
        v = _value(rng, kind)
        if v not in avoid:
            return v


def build(root: Path, rng: np.random.Generator) -> None:
    folder = root / "legal_files"
    folder.mkdir()
    clauses = [f"{s}.{i}" for s, _, n in SECTIONS for i in range(1, n + 1)]
    kind = {c: str(rng.choice(list(BODIES))) for c in clauses}
    title = {c: str(rng.choice(TITLES)) for c in clauses}
    body = {c: str(rng.choice(BODIES[kind[c]])) for c in clauses}
    value = {c: _value(rng, kind[c]) for c in clauses}
    # comments[v][clause] = [(name, text)], for v in 1..9
    comments: dict[int, dict[str, list[tuple[str, str]]]] = {v: {} for v in range(1, 10)}
    values = {0: dict(value)}
    untraced = [c for c in clauses if c not in TRACED]
    scripts = {c: _script(rng, kind[c], value[c]) for c in TRACED}
    for v in range(1, 10):
        cur = dict(values[v - 1])
        for c in [untraced[i] for i in rng.choice(len(untraced), int(rng.integers(6, 11)),
                                                  replace=False)]:
            for _ in range(int(rng.integers(1, 3))):
                who = "All parties" if rng.random() < 0.1 else str(rng.choice(PEOPLE))
                if who != "All parties" and rng.random() < 0.5:
                    new = _other(rng, kind[c], {cur[c]})
                    text = str(rng.choice(PROPOSE)).format(v=fmt(kind[c], new))
                    if rng.random() < 0.4:
                        cur[c] = new
                else:
                    text = str(rng.choice(REMARK))
                comments[v].setdefault(c, []).append((who, text))
        for c in TRACED:
            for who, text in scripts[c]["rounds"].get(v, []):
                comments[v].setdefault(c, []).append((who, text))
            if v in scripts[c]["set"]:
                cur[c] = scripts[c]["set"][v]
        values[v] = cur
    for v in range(11):
        lines = ["SERIES A PREFERRED STOCK PURCHASE AGREEMENT", f"Version {v}", "",
                 "This Agreement is made between the Company and the Purchasers listed in "
                 "Exhibit A.", ""]
        for s, heading, n in SECTIONS:
            lines += [f"SECTION {s}. {heading}", ""]
            for i in range(1, n + 1):
                c = f"{s}.{i}"
                # a round's comments sit on the text as it stood; what they win shows next time
                shown = values[max(v - 1, 0)][c]
                lines.append(f"{c} {title[c]}. " + body[c].format(v=fmt(kind[c], shown)))
                for who, text in comments.get(v, {}).get(c, []):
                    lines.append(f"[{who}: {text}]")
                lines.append("")
        lines.append("IN WITNESS WHEREOF, the parties have executed this Agreement.")
        (folder / f"Preferred_Stock_Purchase_Agreement_v{v}.txt").write_text(
            "\n".join(lines) + "\n")


def _script(rng: np.random.Generator, kind: str, start: int) -> dict:
    """v5-v9 rounds of a traced clause: someone proposes a figure that is not taken, the
    originator proposes the final figure in version `at`, others agree later (one may also
    float a third figure), and the final figure is adopted in the last round."""
    at = int(rng.integers(5, 9))
    final = _other(rng, kind, {start})
    rejected = _other(rng, kind, {start, final})
    third = _other(rng, kind, {start, final, rejected})
    people = [str(p) for p in rng.permutation(PEOPLE)]
    origin, first, *rest = people
    rounds: dict[int, list[tuple[str, str]]] = {}
    if at > 5:
        rounds.setdefault(int(rng.integers(5, at)), []).append(
            (first, str(rng.choice(PROPOSE)).format(v=fmt(kind, rejected))))
    else:  # the rejected figure is floated in the same round, after the originator's
        rest.append(first)
    own = [(origin, str(rng.choice(PROPOSE)).format(v=fmt(kind, final)))]
    if at == 5:
        own.append((first, str(rng.choice(PROPOSE)).format(v=fmt(kind, rejected))))
    if rng.random() < 0.5:
        own.insert(0, (str(rng.choice(rest)), str(rng.choice(REMARK))))
    rounds.setdefault(at, []).extend(own)
    later = list(range(at + 1, 10))
    agree_at = int(rng.choice(later))
    rounds.setdefault(agree_at, []).append(
        (str(rng.choice(rest)), str(rng.choice(AGREE)).format(v=fmt(kind, final))))
    if rng.random() < 0.5:
        rounds.setdefault(int(rng.choice(later)), []).append(
            (str(rng.choice(rest)), str(rng.choice(PROPOSE)).format(v=fmt(kind, third))))
    rounds.setdefault(9, []).append(("All parties", f"Final: {fmt(kind, final)}."))
    return {"rounds": rounds, "set": {9: final}}
