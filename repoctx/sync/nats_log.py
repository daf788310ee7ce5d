"""sync/nats_log — the change log as a NATS JetStream delta log, for many replicas.

Each replica publishes what its change log says changed — the full current records,
batched, msgpack — to one JetStream stream per repository, on the subject
``repoctx.<repoId>.<replicaId>``, and consumes everybody else's through a durable
pull consumer named after itself, which JetStream resumes from the last acknowledged
message. A message is acknowledged only after its records were merged and committed;
a redelivered or duplicated message is harmless, because merging is idempotent.
Publishing records the last change-log sequence it published (``nats-published`` in
the store-local tree) after JetStream acknowledged every message up to it; a replica
whose cursor fell behind the trimmed log republishes every record instead. Messages
of a newer store format or another repository are refused and not acknowledged.
Records merged from the log enter this replica's change log too and are republished
once by it (harmless, and what lets a replica that only talks to some peers relay).
Client: ``nats-py`` (the optional extra ``repoctx[nats]``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from repoctx.errors import PeerUnavailableError, SyncError, SyncRefusedError
from repoctx.store import FORMAT_VERSION, Store
from repoctx.trees import changelog

from .digests import ensure_digests
from .receive import Received, receive
from .transport import pack, unpack

CURSOR = "nats-published"
BATCH_RECORDS = 500
BATCH_BYTES = 512 << 10


def subject_token(text: str) -> str:
    """``text`` as one NATS subject token: characters beyond ``[A-Za-z0-9_-]`` become
    ``~XX`` (injective, since ``~`` itself is escaped)."""
    return re.sub(r"[^A-Za-z0-9_-]", lambda m: "".join(f"~{b:02x}" for b in
                                                      m.group().encode()), text)


def stream_name(repo_id: str) -> str:
    """The JetStream stream of a repository."""
    return f"REPOCTX_{subject_token(repo_id)}"


def subject(repo_id: str, replica_id: str) -> str:
    """The subject a replica publishes on."""
    return f"repoctx.{subject_token(repo_id)}.{subject_token(replica_id)}"


@dataclass
class Round:
    """What one publish-and-consume round did."""

    published: int = 0
    """Records published."""
    messages_published: int = 0
    consumed: int = 0
    """Messages of other replicas merged and acknowledged."""
    received: Received = field(default_factory=Received)
    refused: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The round as a JSON-ready dict."""
        return {"published": self.published, "messagesPublished": self.messages_published,
                "consumed": self.consumed, "merged": self.received.merged,
                "rejected": [str(e) for e in self.received.rejected], "refused": self.refused}


def _import_nats() -> Any:
    try:
        import nats
    except ImportError as exc:  # optional dependency
        raise SyncError("--nats needs the NATS client: pip install 'repoctx[nats]'") from exc
    return nats


class NatsLog:
    """One replica's connection to its repository's JetStream delta log."""

    def __init__(self, store: Store, url: str, *, ack_wait_s: float = 30.0) -> None:
        self.store, self.url, self.ack_wait_s = store, url, ack_wait_s
        self.stream = stream_name(store.repo_id)
        self.subject = subject(store.repo_id, store.replica_id)
        self.durable = f"repoctx-{subject_token(store.replica_id)}"
        self._nc: Any = None
        self._js: Any = None
        self._sub: Any = None

    async def connect(self) -> None:
        """Connect, and create the stream and this replica's durable consumer if missing."""
        nats = _import_nats()
        try:
            self._nc = await nats.connect(self.url, allow_reconnect=False,
                                          connect_timeout=5, max_reconnect_attempts=0)
        except (TimeoutError, OSError, nats.errors.Error) as exc:
            raise PeerUnavailableError(f"cannot reach NATS at {self.url}: {exc}") from exc
        self._js = self._nc.jetstream()
        from nats.js.api import ConsumerConfig, DeliverPolicy
        from nats.js.errors import NotFoundError

        try:
            await self._js.stream_info(self.stream)
        except NotFoundError:
            await self._js.add_stream(name=self.stream,
                                      subjects=[f"repoctx.{subject_token(self.store.repo_id)}.>"])
        config = ConsumerConfig(ack_wait=self.ack_wait_s, deliver_policy=DeliverPolicy.ALL)
        self._sub = await self._js.pull_subscribe(
            f"repoctx.{subject_token(self.store.repo_id)}.>", durable=self.durable,
            stream=self.stream, config=config)

    async def close(self) -> None:
        """Drop the connection (unacknowledged messages will be redelivered)."""
        if self._nc is not None:
            await self._nc.close()
            self._nc = self._js = self._sub = None

    async def publish(self) -> tuple[int, int]:
        """Publish every record changed since the last publish; (records, messages)."""
        ensure_digests(self.store)
        with self.store.snapshot() as snap:
            done = snap.get_local(CURSOR, 0)
            head, first = changelog.log_head(snap)
            if head - 1 <= done:
                return 0, 0
            keys = _all_keys(snap) if done < first - 1 else _logged_keys(snap, done)
            batches = list(_batches(snap, keys))
        base = {"repoId": self.store.repo_id, "replicaId": self.store.replica_id,
                "format": FORMAT_VERSION}
        for i, records in enumerate(batches):
            await self._js.publish(self.subject, pack(base | {"records": records}),
                                   headers={"Nats-Msg-Id": f"{self.store.replica_id}:{head}:{i}"})
        with self.store.batch() as b:
            b.put_local(CURSOR, head - 1)
        return sum(len(r) for r in batches), len(batches)

    async def consume(self, *, max_messages: int | None = None, timeout_s: float = 1.0,
                      ack: bool = True) -> Round:
        """Merge the other replicas' messages until none arrive within ``timeout_s``.

        Each message is acknowledged after its merge committed (``ack=False`` leaves
        them unacknowledged, as a consumer killed right after merging would).
        """
        import nats.errors

        out = Round()
        while max_messages is None or out.consumed < max_messages:
            want = 16 if max_messages is None else min(16, max_messages - out.consumed)
            try:
                msgs = await self._sub.fetch(batch=want, timeout=timeout_s)
            except (nats.errors.TimeoutError, TimeoutError):  # nothing more within the wait
                break
            for msg in msgs:
                if msg.subject == self.subject:
                    await msg.ack()  # our own, already here
                    continue
                try:
                    got = self._merge(unpack(msg.data))
                except SyncRefusedError as exc:
                    out.refused.append(str(exc))
                    await msg.term()  # never mergeable here; do not redeliver forever
                    continue
                out.received.add(got)
                out.consumed += 1
                if ack:
                    await msg.ack()
        return out

    def _merge(self, body: dict[str, Any]) -> Received:
        if int(body.get("format", 0)) > FORMAT_VERSION:
            raise SyncRefusedError(
                f"replica {body.get('replicaId')} publishes store format {body['format']}, "
                f"newer than format {FORMAT_VERSION} that this repoctx reads")
        if body.get("repoId") != self.store.repo_id:
            raise SyncRefusedError(f"a message for repository {body.get('repoId')} "
                                   f"in the stream of {self.store.repo_id}")
        return receive(self.store, ((t, k, r) for t, k, r in body["records"]))

    async def round(self, timeout_s: float = 1.0) -> Round:
        """Publish what changed here, then merge what the others published."""
        published, messages = await self.publish()
        out = await self.consume(timeout_s=timeout_s)
        out.published, out.messages_published = published, messages
        return out


def _logged_keys(snap: Any, after: int) -> dict[str, set[str]]:
    keys: dict[str, set[str]] = {}
    while True:
        entries = changelog.read_log(snap, after)
        if not entries:
            return keys
        for seq, entry in entries:
            for tree, names in entry.items():
                keys.setdefault(tree, set()).update(names)
            after = seq


def _all_keys(snap: Any) -> dict[str, set[str]]:
    return {tree: {k.decode() for k, _ in changelog.raw_records(snap, tree)}
            for tree in changelog.REPLICATED}


def _batches(snap: Any, keys: dict[str, set[str]]) -> Iterator[list[list[Any]]]:
    """The current records of ``keys`` (deleted ones left out), in bounded batches."""
    batch: list[list[Any]] = []
    size = 0
    for tree in sorted(keys):
        for key in sorted(keys[tree]):
            raw = changelog.raw_get(snap, tree, key.encode())
            if raw is None:
                continue
            batch.append([tree, key, raw])
            size += len(key) + len(raw)
            if len(batch) >= BATCH_RECORDS or size >= BATCH_BYTES:
                yield batch
                batch, size = [], 0
    if batch:
        yield batch


def replicate(store: Store, url: str, *, timeout_s: float = 1.0) -> Round:
    """One publish-and-consume round against the NATS server at ``url`` (blocking)."""

    async def run() -> Round:
        log = NatsLog(store, url)
        await log.connect()
        try:
            return await log.round(timeout_s)
        finally:
            await log.close()

    return asyncio.run(run())
