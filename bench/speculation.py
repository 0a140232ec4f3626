"""Output tokens/s of a whole-file rewrite, plain decoding against prompt lookup.

    python bench/speculation.py [--model qwen2.5-coder-0.5b] [--lines 80] [--threads 2]

A whole-file rewrite of a LINES-line Python file with one change (a rename) is
what a small model's edit mostly is: text already in the prompt, re-typed. The
embedded runtime (cyllama) decodes it twice from a cold cache, greedy, once
plainly and once by prompt lookup (models/embedded_lookup.py); the outputs must
be the same, and the figure is output tokens per second of decode time
(first token to last), side by side, with their ratio (goal: >= 1.8x).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from rift.models import local_weights  # noqa: E402
from rift.models.embedded_backends import Cyllama  # noqa: E402


def source(lines: int) -> str:
    """A plain Python module of about `lines` lines: small functions, as exercises have."""
    out: list[str] = ['"""Inventory helpers."""', ""]
    n = 0
    while len(out) < lines - 3:
        out += [
            f"def item_{n}(stock, name):",
            f'    """Return the count of {{name}} in stock, plus {n}."""',
            f"    return stock.get(name, 0) + {n}",
            "",
        ]
        n += 1
    return "\n".join(out) + "\n"


def decode(rt: Cyllama, prompt: list[int], limit: int, speculative: bool) -> tuple[str, float]:
    """(text, decode seconds from the first piece) from a cold cache."""
    rt.speculative, rt.seed = speculative, 7
    rt.ctx.memory_seq_rm(0, 0, -1)
    rt.cached.clear()
    pieces, first = [], 0.0
    for piece in rt.stream(prompt, limit, 0.0, None):
        first = first or time.monotonic()
        pieces.append(piece)
    return "".join(pieces), time.monotonic() - first if first else 0.0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="qwen2.5-coder-0.5b", choices=sorted(local_weights.MODELS))
    p.add_argument("--lines", type=int, default=80)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "rift")
    args = p.parse_args()
    path = local_weights.assemble(local_weights.MODELS[args.model], args.cache)
    text = source(args.lines)
    task = (
        "Rename the function item_3 to restock_3. Reply with the whole updated file in one"
        f" ```python block and nothing else.\n\n```python\n{text}```"
    )
    rt = Cyllama(path, 4096, args.threads)
    prompt = rt.tokenize(rt.render([{"role": "user", "content": task}], None))
    limit = len(rt.tokenize(text)) + 64
    plain, plain_s = decode(rt, prompt, limit, False)
    fast, fast_s = decode(rt, prompt, limit, True)
    tokens = len(rt.tokenize(plain))
    a, b = tokens / plain_s, len(rt.tokenize(fast)) / fast_s
    print(f"# bench/speculation.py, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"model {path.name}, {args.threads} threads, {text.count(chr(10))}-line file, greedy")
    print(f"{'':<18}{'plain':>10}{'lookup':>10}{'ratio':>8}")
    print(f"{'output tokens':<18}{tokens:>10}{len(rt.tokenize(fast)):>10}")
    print(f"{'decode s':<18}{plain_s:>10.1f}{fast_s:>10.1f}")
    print(f"{'output tok/s':<18}{a:>10.2f}{b:>10.2f}{b / a:>7.2f}x")
    print(f"guesses kept: {rt.accepted} of {rt.drafted}; same output: {plain == fast}")
    print(f"reply lines: {plain.count(chr(10))} (a whole rewrite has about {args.lines})")
    return 0 if plain == fast else 1


if __name__ == "__main__":
    raise SystemExit(main())
