"""The server pool (pool/) against two real fake servers over HTTP: work spreads,
no server gets more requests in flight than its `/props` slots, a conversation stays
on the server holding its cache, and a server killed mid-race loses nothing."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from rift.config.records import Config, PoolHost
from rift.events import Event, Warning
from rift.models.base import ChatRequest, ContentDelta, Message
from rift.pool.provider import PooledProvider, pooled_connect, shared_pool

DELAY = 0.3


def script(slots: int, delay: float = DELAY) -> dict[str, Any]:
    return {
        "props": {"total_slots": slots, "default_generation_settings": {"n_ctx": 4096}},
        "turns": [{"content": "done", "repeat": 1000, "delay_first_byte": delay}],
    }


def pool_config(*servers: Any) -> Config:
    return Config(hosts=tuple(PoolHost(s.url, "fake-model") for s in servers))


def ask(slot: int | None, text: str = "task") -> ChatRequest:
    messages: list[Message] = [{"role": "user", "content": text}]
    return ChatRequest(model="fake-model", messages=messages, slot=slot)


async def answer(provider: PooledProvider, request: ChatRequest) -> str:
    return "".join(
        [e.text async for e in provider.stream_chat(request) if isinstance(e, ContentDelta)]
    )


def test_attempts_spread_over_both_servers_within_their_slots(fake_server: Any) -> None:
    a, b = fake_server(script(2)), fake_server(script(2))

    async def main() -> list[str]:
        provider = PooledProvider(shared_pool(pool_config(a, b).hosts, 30))
        return await asyncio.gather(*(answer(provider, ask(n)) for n in range(8)))

    assert asyncio.run(main()) == ["done"] * 8
    assert (a.max_in_flight, b.max_in_flight) == (2, 2)  # full, never over
    assert len(a.chat_requests()) == len(b.chat_requests()) == 4


def test_a_one_slot_server_never_gets_two_at_once(fake_server: Any) -> None:
    """A server without `/props` is taken at one slot; the other has three."""
    one = fake_server({"turns": script(1)["turns"]})
    three = fake_server(script(3))

    async def main() -> int:
        provider = PooledProvider(shared_pool(pool_config(one, three).hosts, 30))
        await asyncio.gather(*(answer(provider, ask(n)) for n in range(8)))
        return (await provider.show("fake-model")).slots or 0

    assert asyncio.run(main()) == 4
    assert one.max_in_flight == 1
    assert three.max_in_flight == 3
    assert len(one.chat_requests()) + len(three.chat_requests()) == 8


def test_a_conversation_stays_on_the_server_holding_its_cache(fake_server: Any) -> None:
    a, b = fake_server(script(2, 0.05)), fake_server(script(2, 0.05))

    async def main() -> None:
        provider = PooledProvider(shared_pool(pool_config(a, b).hosts, 30))
        # four conversations, each three requests long, interleaved
        for _ in range(3):
            await asyncio.gather(*(answer(provider, ask(n, f"task {n}")) for n in range(4)))
        for text in ("alpha", "beta"):  # unpinned: keyed by their opening
            for _ in range(3):
                await answer(provider, ask(None, text))

    asyncio.run(main())
    for n in range(4):
        on_a = [r for r in a.chat_requests() if f"task {n}" in str(r["messages"])]
        on_b = [r for r in b.chat_requests() if f"task {n}" in str(r["messages"])]
        assert sorted((len(on_a), len(on_b))) == [0, 3], n
    for text in ("alpha", "beta"):
        hits = [len([r for r in s.chat_requests() if text in str(r["messages"])]) for s in (a, b)]
        assert sorted(hits) == [0, 3], text
    # slot ids stay within each server's own slots (llama.cpp refuses others)
    assert {r.get("id_slot") for r in a.chat_requests() + b.chat_requests()} <= {0, 1, None}


def test_a_server_killed_mid_race_moves_its_work_and_says_one_line(fake_server: Any) -> None:
    a, b = fake_server(script(2, 1.0)), fake_server(script(2, 1.0))
    said: list[Event] = []

    async def main() -> list[str]:
        provider = PooledProvider(shared_pool(pool_config(a, b).hosts, 30))
        provider.listen(said.append)
        race = asyncio.gather(*(answer(provider, ask(n)) for n in range(4)))
        await asyncio.sleep(0.4)  # every attempt is waiting on its first byte
        await asyncio.to_thread(b.stop)
        return await race

    assert asyncio.run(main()) == ["done"] * 4
    lines = [e for e in said if isinstance(e, Warning)]
    assert len(lines) == 1, said
    assert "stopped answering" in lines[0].text and b.url in lines[0].text
    assert a.max_in_flight == 2
    assert len(a.chat_requests()) == 4  # its own two, then the two moved off b


def test_hosts_in_the_config_route_the_default_model_through_the_pool(fake_server: Any) -> None:
    a, b = fake_server(script(2, 0)), fake_server(script(1, 0))

    async def main() -> tuple[Any, Any]:
        bound = await pooled_connect("fake-model", pool_config(a, b))
        assert bound is not None
        return bound[0], bound[2]

    route, checked = asyncio.run(main())
    assert route.provider_kind == "openai"
    assert checked.info.slots == 3
    assert checked.info.context_length == 4096


def test_doctor_checks_every_endpoint_of_the_pool(fake_server: Any, tmp_path: Path) -> None:
    from rift_bin import run_rift, write_json

    a, b = fake_server(script(2, 0)), fake_server({"turns": []})
    dead = "http://127.0.0.1:9"
    hosts = [{"url": s, "model": "fake-model"} for s in (a.url, b.url, dead)]
    write_json(Path(os.environ["XDG_CONFIG_HOME"]) / "rift/config.json", {"hosts": hosts})
    run = run_rift(["doctor"], cwd=tmp_path)
    lines = run.stdout.splitlines()
    assert run.returncode != 0, run.stdout  # the dead endpoint is a failure
    assert any(a.url in x and "context 4096, 2 slots" in x for x in lines), run.stdout
    assert any(b.url in x and "1 slot (not reported" in x for x in lines), run.stdout
    assert any(dead in x and "FAIL" in x for x in lines), run.stdout
    assert any("match" in x and "windows differ" in x for x in lines), run.stdout


def test_a_project_file_cannot_add_hosts(tmp_path: Path) -> None:
    from rift.config.load import load_config

    evil = {"hosts": [{"url": "http://evil.example", "model": "m"}]}
    (tmp_path / ".rift.json").write_text(json.dumps(evil))
    config = load_config(dict(os.environ), tmp_path)
    assert config.hosts == ()
    assert any("ignoring 'hosts'" in w for w in config.warnings)


def test_attempts_sharing_one_opening_do_not_all_queue_on_one_server(fake_server: Any) -> None:
    """A swarm's unpinned attempts share their opening messages; started together on a
    pool nobody had asked yet, they still fill both servers' slots."""
    a, b = fake_server(script(2)), fake_server(script(2))

    async def main() -> list[str]:
        provider = PooledProvider(shared_pool(pool_config(a, b).hosts, 30))
        return await asyncio.gather(*(answer(provider, ask(None, "same task")) for _ in range(4)))

    assert asyncio.run(main()) == ["done"] * 4
    assert (a.max_in_flight, b.max_in_flight) == (2, 2)
