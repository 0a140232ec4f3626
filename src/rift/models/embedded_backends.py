"""The two runtimes that can run the embedded model, behind one small interface.

- `cyllama`: prebuilt wheels of llama.cpp (installed in seconds, no compile), used
  through its low-level API so the KV cache keeps the longest common prefix of the
  previous prompt (its high-level `LLM` clears the cache on every call);
- `llama-cpp-python` (compiled by pip): the fallback where cyllama has no wheel.

Both are imported only here, on the worker thread, when the embedded model runs.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from rift.errors import ModelNotUsable
from rift.models.embedded_prefix import PrefixStore, common_prefix
from rift.models.local_weights import RUNTIMES

log = logging.getLogger("rift.embedded")

__all__ = [
    "Backend",
    "Cyllama",
    "LlamaCppPython",
    "Pieces",
    "PrefixStore",
    "common_prefix",
    "installed",
    "load",
]
PREFILL_BATCH = 512
TOP_K, TOP_P, MIN_P = 40, 0.95, 0.05
"""llama-cpp-python's sampling defaults, used for both runtimes alike."""


Schemas = tuple[dict[str, Any], dict[str, Any]]
"""A JSON schema for the output and a looser one for when the first cannot become a grammar."""


def _gbnf(cache: dict[str, str], convert: Any, schemas: Schemas) -> str:
    """GBNF for the first of `schemas` the runtime's converter takes; cached (not free)."""
    key = json.dumps(schemas, sort_keys=True)
    if key not in cache:
        try:
            cache[key] = convert(schemas[0])
        except (ValueError, KeyError, TypeError, NotImplementedError):
            cache[key] = convert(schemas[1])
    return cache[key]


class Backend(Protocol):
    """One loaded model with its context."""

    name: str

    def render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
        """The prompt text from the model's own chat template."""
        ...

    def tokenize(self, text: str) -> list[int]: ...

    def n_ctx(self) -> int: ...

    def stream(
        self,
        prompt: list[int],
        max_tokens: int,
        temperature: float,
        schema: Schemas | None,
        keep: int = 0,
    ) -> Iterator[str]:
        """Text pieces as they are sampled; `schema` constrains the output. The first `keep`
        tokens of `prompt` (system prompt and tools) may be kept on disk for the next process."""
        ...

    def close(self) -> None: ...


def installed() -> str | None:
    """The runtime `load` would use (its import name), or None (looked up, not imported)."""
    return next((name for name in RUNTIMES if importlib.util.find_spec(name) is not None), None)


def load(path: Path, n_ctx: int) -> Backend:
    threads = max(1, len(os.sched_getaffinity(0)))
    if installed() == "cyllama":
        return Cyllama(path, n_ctx, threads, PrefixStore.beside(path, n_ctx))
    return LlamaCppPython(path, n_ctx, threads)


def _module(name: str) -> Any:
    """A runtime module; typed Any because the extra may be absent where mypy runs."""
    return importlib.import_module(name)


# --------------------------------------------------------- llama-cpp-python


class LlamaCppPython:
    """llama-cpp-python's `Llama`: it renders, samples and reuses the cached prefix itself."""

    name = "llama-cpp-python"

    def __init__(self, path: Path, n_ctx: int, threads: int) -> None:
        llama_cpp = _module("llama_cpp")
        chat_format = _module("llama_cpp.llama_chat_format")
        self.llama = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=threads,
            verbose=False,
        )
        template = self.llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelNotUsable(f"{path.name} has no chat template")
        self.eos = self._token_text(self.llama.token_eos())
        bos = self._token_text(self.llama.token_bos())
        self.formatter = chat_format.Jinja2ChatFormatter(
            template=template, eos_token=self.eos, bos_token=bos
        )
        self.grammars: dict[str, str] = {}

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        raw: bytes = self.llama.detokenize([token], special=True)
        return raw.decode("utf-8", "replace")

    def render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
        return str(self.formatter(messages=messages, tools=tools).prompt)

    def tokenize(self, text: str) -> list[int]:
        return list(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def n_ctx(self) -> int:
        return int(self.llama.n_ctx())

    def _grammar(self, schemas: Schemas) -> Any:
        grammar = _module("llama_cpp.llama_grammar")
        gbnf = _gbnf(self.grammars, lambda s: grammar.json_schema_to_gbnf(json.dumps(s)), schemas)
        return grammar.LlamaGrammar.from_string(gbnf, verbose=False)

    def stream(
        self,
        prompt: list[int],
        max_tokens: int,
        temperature: float,
        schema: Schemas | None,
        keep: int = 0,
    ) -> Iterator[str]:
        del keep  # `Llama` keeps its cache in memory only
        chunks = self.llama.create_completion(
            prompt=prompt,
            max_tokens=max_tokens,
            temperature=temperature,
            top_k=TOP_K,
            top_p=TOP_P,
            min_p=MIN_P,
            stop=[self.eos],
            stream=True,
            grammar=None if schema is None else self._grammar(schema),
        )
        try:
            for chunk in chunks:
                text = chunk["choices"][0].get("text")
                if text:
                    yield text
        finally:
            chunks.close()

    def close(self) -> None:
        self.llama.close()


# ------------------------------------------------------------------ cyllama


class Pieces:
    """The text of sampled tokens, one token at a time, without broken characters.

    A token can end inside a multibyte UTF-8 character, so tokens are held back while
    their text ends in U+FFFD, at most `HOLD` of them, and detokenized together. Each
    call starts with an anchor token whose text is cut off again, because llama.cpp
    drops the leading space of the first token it detokenizes.
    """

    HOLD = 4

    def __init__(self, vocab: Any) -> None:
        self.vocab = vocab
        self.anchor = int(vocab.tokenize("a", add_special=False, parse_special=False)[0])
        self.skip = len(self._text([]))
        self.pending: list[int] = []

    def _text(self, tokens: list[int]) -> str:
        return str(self.vocab.detokenize([self.anchor, *tokens], unparse_special=True))

    def decode(self, token: int) -> str:
        self.pending.append(token)
        text = self._text(self.pending)[self.skip :]
        if text.endswith("\ufffd") and len(self.pending) < self.HOLD:
            return ""
        self.pending.clear()
        return text

    def flush(self) -> str:
        """What is still held back (a character the model never finished)."""
        text = self._text(self.pending)[self.skip :] if self.pending else ""
        self.pending.clear()
        return text


class Cyllama:
    """cyllama's low-level API, with the prompt-prefix reuse its `LLM` class does not do."""

    name = "cyllama"

    def __init__(
        self, path: Path, n_ctx: int, threads: int, store: PrefixStore | None = None
    ) -> None:
        self.cy = _module("cyllama.llama.llama_cpp")
        self.store = store
        self.cy.disable_logging()
        self.cy.ggml_backend_load_all()
        self.model = self.cy.LlamaModel(str(path), self.cy.LlamaModelParams())
        self.vocab = self.model.get_vocab()
        params = self.cy.LlamaContextParams()
        params.n_ctx, params.n_batch = n_ctx, PREFILL_BATCH
        params.n_threads = params.n_threads_batch = threads
        self.ctx = self.cy.LlamaContext(self.model, params)
        self.size = n_ctx
        self.cached: list[int] = []
        """The tokens whose keys and values the context holds, in order."""
        self.reused = 0
        """Prompt tokens the last call found in the cache (for tests and the debug log)."""
        self.speculative = False
        """Decode by prompt lookup (models/embedded_lookup.py): same output, fewer steps."""
        self.seed: int | None = None
        """The sampler's seed; None: the clock's (a fixed one makes runs comparable)."""
        self.drafted = self.accepted = 0
        """Tokens prompt lookup guessed and the sampler confirmed, over this runtime's life."""
        template = self.model.get_default_chat_template()
        if not template:
            raise ModelNotUsable(f"{path.name} has no chat template")
        self.template = self._environment().from_string(template)
        self.bos = self._piece(self.vocab.token_bos())
        self.eos = self._piece(self.vocab.token_eos())
        self.grammars: dict[str, str] = {}

    @staticmethod
    def _environment() -> Any:
        """A sandboxed Jinja2 environment as Hugging Face renders chat templates."""
        sandbox = _module("cyllama._vendor.jinja2.sandbox")
        ext = _module("cyllama._vendor.jinja2.ext")
        errors = _module("cyllama._vendor.jinja2.exceptions")

        def raise_exception(message: str) -> str:
            raise errors.TemplateError(message)

        env = sandbox.ImmutableSandboxedEnvironment(
            trim_blocks=True, lstrip_blocks=True, extensions=[ext.loopcontrols]
        )
        env.filters["tojson"] = lambda value, indent=None, **_: json.dumps(
            value, ensure_ascii=False, indent=indent
        )
        env.globals["raise_exception"] = raise_exception
        env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
        return env

    def _piece(self, token: int) -> str:
        return str(self.vocab.token_to_piece(token, special=True)) if token >= 0 else ""

    def render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
        return str(
            self.template.render(
                messages=messages,
                tools=tools,
                add_generation_prompt=True,
                bos_token=self.bos,
                eos_token=self.eos,
            )
        )

    def tokenize(self, text: str) -> list[int]:
        return list(self.vocab.tokenize(text, add_special=False, parse_special=True))

    def n_ctx(self) -> int:
        return self.size

    def _sampler(self, temperature: float, schema: Schemas | None) -> Any:
        chain = self.cy.LlamaSampler(self.cy.LlamaSamplerChainParams())
        if schema is not None:  # first: later links choose among the tokens it admits
            convert = _module("cyllama.utils.json_schema_to_grammar").json_schema_to_grammar
            chain.add_grammar(self.vocab, _gbnf(self.grammars, convert, schema), "root")
        if temperature <= 0:
            chain.add_greedy()
            return chain
        chain.add_top_k(TOP_K)
        chain.add_top_p(TOP_P, 1)
        chain.add_min_p(MIN_P, 1)
        chain.add_temp(temperature)
        chain.add_dist(self.seed if self.seed is not None else int(time.time()) & 0x7FFFFFFF)
        return chain

    def _prefill(self, prompt: list[int], keep: int) -> None:
        """Evaluate what of `prompt` the cache does not hold yet (at least its last token,
        whose logits the first sample needs); the first `keep` tokens go to the store
        when it holds something else."""
        if not self.cached and self.store is not None:
            self.cached = self.store.load(self.ctx, prompt)
        common = common_prefix(prompt, self.cached, len(prompt) - 1)
        self.ctx.memory_seq_rm(0, common, -1)
        del self.cached[common:]
        self.reused = common
        if common < keep:  # split there whether or not it is saved: the same batches give
            self._decode(prompt[common:keep], common)  # the same numbers, so a warm start
            common = keep  # samples exactly what a cold one does
            if self.store is not None and self.store.wants(prompt[:keep]):
                self.store.save(self.ctx, self.cached)
        self._decode(prompt[common:], common)

    def _decode(self, tokens: list[int], at: int) -> None:
        for start in range(0, len(tokens), PREFILL_BATCH):
            batch = tokens[start : start + PREFILL_BATCH]
            self.ctx.decode(self.cy.llama_batch_get_one(batch, at + start))
            self.cached.extend(batch)

    def stream(
        self,
        prompt: list[int],
        max_tokens: int,
        temperature: float,
        schema: Schemas | None,
        keep: int = 0,
    ) -> Iterator[str]:
        self._prefill(prompt, keep)
        sampler = self._sampler(temperature, schema)
        decoder = Pieces(self.vocab)
        if self.speculative:
            from rift.models.embedded_lookup import speculate

            pieces = speculate(self, sampler, decoder.decode, prompt, max_tokens)
        else:
            pieces = self._plain(sampler, decoder.decode, max_tokens)
        yield from filter(None, pieces)
        tail = decoder.flush()
        if tail:
            yield tail

    def _plain(self, sampler: Any, decode: Callable[[int], str], max_tokens: int) -> Iterator[str]:
        """One token per decode step (see `speculate` for several)."""
        for _ in range(max_tokens):
            token = sampler.sample(self.ctx, -1)
            if self.vocab.is_eog(token):
                return
            yield decode(token)
            self.ctx.decode(self.cy.llama_batch_get_one([token], len(self.cached)))
            self.cached.append(token)

    def close(self) -> None:
        self.ctx.close()
