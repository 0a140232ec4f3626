"""Prompt-lookup decoding for the embedded model: draft-free speculation.

An edit or a whole-file rewrite re-types text already in the prompt, and on a CPU each
decode step reads every weight once however many tokens it evaluates. So the next
tokens are guessed from what followed the last few tokens earlier, and checked in one
batch. The output is the one plain decoding gives: the sampler is asked once per
produced token, in order, at the position plain decoding would ask it at, and a guess
is kept only while it equals what the sampler chose. A batch may round the logits
differently; tests/embedded/test_embedded_lookup.py watches for that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

NGRAM = (3, 2)
"""Lookup lengths, longest first: the last 3 (then 2) tokens must occur earlier."""
DRAFT_MAX = 8
"""Tokens guessed per step: past this a wrong guess costs more than a right one saves."""


def draft(history: list[int], limit: int) -> list[int]:
    """Up to `limit` tokens that followed the latest earlier occurrence of the last
    NGRAM tokens of `history`; [] when they never occurred before."""
    for n in NGRAM:
        if len(history) <= n or limit <= 0:
            continue
        tail = history[-n:]
        first = tail[0]
        for start in range(len(history) - n - 1, -1, -1):
            if history[start] == first and history[start : start + n] == tail:
                return history[start + n : start + n + limit]
    return []


def speculate(
    runtime: Any, sampler: Any, pieces: Callable[[int], str], prompt: list[int], max_tokens: int
) -> Iterator[str]:
    """The reply's text pieces, as plain decoding would give them, `runtime` being a
    prefilled `Cyllama` (its `ctx`, `cy`, `vocab` and `cached`)."""
    history = list(prompt)
    produced = 0
    token = sampler.sample(runtime.ctx, -1)
    while not runtime.vocab.is_eog(token):
        produced += 1
        history.append(token)
        yield pieces(token)
        if produced >= max_tokens:
            return
        guess = draft(history, min(DRAFT_MAX, max_tokens - produced))
        at = len(runtime.cached)
        batch = runtime.cy.LlamaBatch(n_tokens=len(guess) + 1, embd=0, n_seq_max=1)
        for i, t in enumerate([token, *guess]):
            batch.add(t, at + i, [0], True)
        runtime.ctx.decode(batch)
        runtime.cached.extend([token, *guess])
        kept = 0
        token = sampler.sample(runtime.ctx, 0)
        while kept < len(guess) and token == guess[kept] and not runtime.vocab.is_eog(token):
            kept += 1
            produced += 1
            history.append(token)
            yield pieces(token)
            if produced >= max_tokens:
                break
            token = sampler.sample(runtime.ctx, kept)
        runtime.accepted += kept
        runtime.drafted += len(guess)
        end = at + 1 + kept
        if end < len(runtime.cached):  # the rejected guesses leave the cache
            runtime.ctx.memory_seq_rm(0, end, -1)
            del runtime.cached[end:]
        if produced >= max_tokens:
            return
