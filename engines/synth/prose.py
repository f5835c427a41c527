"""The zero-config answer text: what the model says when nothing is scripted.

Derived from the request alone: the same request always gives the same text, different prompts give
different text, and the length follows what was asked ("Say hello" gets a sentence, "write three
paragraphs" gets three paragraphs, "list five ..." gets five numbered items, "in one word" gets one
word). Streamed, the text is split into several chunks.

Only the prompt's first SCAN_CHARS characters are read for its topic and shape, and every pattern's gaps are
bounded, so a 20 MiB prompt costs no more than a short one (the length still adds sentences).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import TypeVar

_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "a": 1,
    "an": 1,
    "single": 1,
}
_COUNT = r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten|a|an|single)"
SCAN_CHARS = 16 * 1024  # how much of the prompt decides the topic and the shape of the answer
_PARAGRAPHS = re.compile(rf"\b{_COUNT}[\s-]{{1,8}}(?:short\s{{1,8}}|long\s{{1,8}})?paragraphs?\b", re.I)
_SENTENCES = re.compile(rf"\b{_COUNT}[\s-]{{1,8}}(?:short\s{{1,8}})?sentences?\b", re.I)
_ITEMS = re.compile(rf"\b(?:list|name|give)\b[^.?!]{{0,80}}?\b{_COUNT}\b", re.I)
_ONE_WORD = re.compile(r"\b(?:one|single|1)[\s-]word\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")
_STOP = frozenset(
    "the and for are but not you your with this that from what which who whom how why when where "
    "about into over under than then them they their there these those have has had was were will "
    "would could should can may might must shall does did done say tell give write please make list "
    "name short long word words sentence sentences paragraph paragraphs one two three four five six "
    "seven eight nine ten some any all each every very just also only more most less least".split()
)

_OPENERS = (
    "Here is a clear answer about {t}.",
    "Good question about {t}.",
    "Let's look at {t} step by step.",
    "In short, {t} comes down to a few ideas.",
    "Thinking about {t}, a few points stand out.",
)
_SENTENCE_TEMPLATES = (
    "{T} is easiest to understand through a concrete example.",
    "Most people first notice {t} when it affects their daily work.",
    "The key idea behind {t} is simple, even if the details are not.",
    "A useful way to think about {t} is as a balance of trade-offs.",
    "Experts often describe {t} in terms of causes and effects.",
    "{T} has changed a lot over the last few years.",
    "When you look closely at {t}, patterns begin to emerge.",
    "It helps to compare {t} with something familiar.",
    "The history of {t} explains much of how it works today.",
    "Small changes in {t} can have surprisingly large effects.",
    "There is no single right answer about {t}, but some answers are better than others.",
    "A good first step with {t} is to define the terms carefully.",
)


def _form(template: str) -> str:
    """A template's %-format: its one {t} or {T} as %s (formatting it then parses no braces on every call)."""
    form = template.replace("%", "%%").replace("{T}", "%s").replace("{t}", "%s")
    if form.count("%s") != 1:
        raise ValueError(f"a template names its topic once: {template!r}")
    return form


_OPENER_FORMS = tuple(_form(t) for t in _OPENERS)
# (form, whether the topic starts the sentence capitalised)
_SENTENCE_FORMS = tuple((_form(t), "{T}" in t) for t in _SENTENCE_TEMPLATES)
_ONE_WORDS = ("Yes.", "Paris.", "Blue.", "Seven.", "Hello.", "Certainly.", "Tomorrow.", "Water.")


T = TypeVar("T")
_MASK = (1 << 64) - 1


class Rng:
    """A tiny xorshift generator: deterministic per seed, far cheaper to create than random.Random."""

    __slots__ = ("state",)

    def __init__(self, seed: str) -> None:
        self.state = int.from_bytes(hashlib.blake2b(seed.encode(), digest_size=8).digest()) or 1

    def below(self, n: int) -> int:
        x = self.state
        x ^= (x << 13) & _MASK
        x ^= x >> 7
        x ^= (x << 17) & _MASK
        self.state = x
        return x % n

    def choice(self, items: Sequence[T]) -> T:
        x = self.state  # `below`, inlined: the answer text calls this a few times per request
        x ^= (x << 13) & _MASK
        x ^= x >> 7
        x ^= (x << 17) & _MASK
        self.state = x
        return items[x % len(items)]

    def randint(self, low: int, high: int) -> int:
        return low + self.below(high - low + 1)


_SHORT_PROMPT = 256  # up to this length the words are found in one findall; past it one by one, stopping early


def _topic(prompt: str, low: str) -> str:
    """The prompt's first three words that are not stop words (repeats dropped), or "this" (`low`: the prompt
    lowercased; an ASCII prompt's words are found in it already lowercased, where they stand in the prompt)."""
    words: list[str] = []  # each once, in order of first appearance
    seen = 0  # topic words read, repeats included
    # A long prompt is not read to its end: its words are found lazily, up to the third topic word.
    lowered = len(prompt) <= _SHORT_PROMPT and prompt.isascii()
    if lowered:
        found: Iterable[str] = _WORD.findall(low)
    elif len(prompt) <= _SHORT_PROMPT:
        found = _WORD.findall(prompt)
    else:
        found = (m.group() for m in _WORD.finditer(prompt))
    for word in found:
        if not lowered:
            word = word.lower()
        if word not in _STOP:
            if word not in words:
                words.append(word)
            seen += 1
            if seen == 3:
                break
    return " ".join(words) if words else "this"


def _count(match: re.Match[str] | None, default: int) -> int:
    if not match:
        return default
    raw = match.group(1).lower()
    return max(1, min(int(raw) if raw.isdigit() else _NUMBERS[raw], 50))


def _sentences(rng: Rng, topic: str, n: int) -> list[str]:
    x = rng.state  # `rng.choice(_SENTENCE_FORMS)` n times, its step inlined
    out = []
    for _ in range(n):
        x ^= (x << 13) & _MASK
        x ^= x >> 7
        x ^= (x << 17) & _MASK
        form, capital = _SENTENCE_FORMS[x % _SENTENCE_COUNT]
        # The topic is lowercase ASCII words, so capitalize() only raises its first letter.
        out.append(form % (topic.capitalize() if capital else topic))
    rng.state = x
    return out


_SENTENCE_COUNT = len(_SENTENCE_FORMS)


def compose(prompt: str, seed: str) -> str:
    """The zero-config answer text for a prompt; `seed` makes it vary with the whole request."""
    rng = Rng(seed)
    length = len(prompt)
    prompt = prompt[:SCAN_CHARS]
    low = prompt.lower()
    topic = _topic(prompt, low)
    # Cheap substring tests guard each pattern: most prompts need none of the regular expressions.
    if "word" in low and _ONE_WORD.search(prompt):
        return rng.choice(_ONE_WORDS)
    if ("hello" in low and "hello" in low.split()) or low.startswith(("hi", "hello", "say hello")):
        return f"Hello! {rng.choice(('How can I help you today?', 'Nice to meet you.', 'What can I do for you?'))}"
    items = _ITEMS.search(prompt) if ("list" in low or "name" in low or "give" in low) else None
    if items:
        n = _count(items, 3)
        lines = [f"{i + 1}. {s}" for i, s in enumerate(_sentences(rng, topic, n))]
        return rng.choice(_OPENER_FORMS) % topic + "\n\n" + "\n".join(lines)
    paragraphs = _PARAGRAPHS.search(prompt) if "paragraph" in low else None
    if paragraphs or "essay" in low or "story" in low or "article" in low or "explain in detail" in low:
        n = _count(paragraphs, 3)
        return "\n\n".join(" ".join(_sentences(rng, topic, rng.randint(3, 5))) for _ in range(n))
    sentences = _SENTENCES.search(prompt) if "sentence" in low else None
    if sentences:
        return " ".join(_sentences(rng, topic, _count(sentences, 1)))
    # A one-line question gets a sentence or two; a longer prompt a little more.
    extra = min(length // 200, 4)
    body = _sentences(rng, topic, 1 + rng.randint(0, 1) + extra)
    return " ".join([rng.choice(_OPENER_FORMS) % topic, *body])


def split_for_stream(text: str, pieces: int = 4) -> list[str]:
    """Split text into up to `pieces` chunks on word boundaries; concatenation gives the text back."""
    words = text.count(" ") + 1
    if words <= 1:
        return [text]
    size = max(1, -(-words // pieces))  # words per chunk, the last one holding what is left
    out = []
    rest = text
    while True:
        head = rest.split(" ", size)  # `size` words, then the rest after the space that ends them
        if len(head) <= size:
            out.append(rest)
            return out
        tail = head[-1]
        out.append(rest[: len(rest) - len(tail)])
        rest = tail
