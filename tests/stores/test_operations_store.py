"""The operation store on its own: the schedule read from a clock the test turns, results, holds, cancel, paging,
bounds and isolation."""

from __future__ import annotations

import pytest

from gemini_emulator.protocol import errors
from gemini_emulator.stores.operations import OperationStore


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_done_only_after_the_delay_and_with_a_result(clock: Clock) -> None:
    ops = OperationStore(default_delay_s=0.5, clock=clock)
    op = ops.create("a", "video", parent="models/veo-3.0-generate-001", metadata={"x": 1})
    assert op.name.startswith("models/veo-3.0-generate-001/operations/")
    assert op.view() == {"name": op.name, "metadata": {"x": 1}}
    clock.now += 1
    assert not op.done()  # no result yet
    ops.complete(op, response={"@type": "t", "ok": True})
    assert op.view() == {"name": op.name, "metadata": {"x": 1}, "done": True, "response": {"@type": "t", "ok": True}}


def test_a_result_given_at_once_still_waits_for_the_schedule(clock: Clock) -> None:
    ops = OperationStore(default_delay_s=2, clock=clock)
    op = ops.create("a", "batch", name="batches/abc", response={"r": 1})
    assert op.name == "batches/abc" and not op.done()
    clock.now += 1.99
    assert not op.done()
    clock.now += 0.01
    assert op.done() and op.view()["response"] == {"r": 1}


def test_steps_walk_states_and_the_last_one_is_done(clock: Clock) -> None:
    ops = OperationStore(clock=clock)
    steps = [(0, "PENDING"), (1, "RUNNING"), (3, "SUCCEEDED")]
    op = ops.create("a", "batch", steps=steps, response={})
    seen = []
    for _ in range(4):
        seen.append((op.state(), op.done()))
        clock.now += 1
    assert seen == [("PENDING", False), ("RUNNING", False), ("RUNNING", False), ("SUCCEEDED", True)]


def test_errors_are_rpc_statuses(clock: Clock) -> None:
    ops = OperationStore(default_delay_s=0, clock=clock)
    op = ops.create("a", "video")
    ops.complete(op, error=errors.ApiError(400, "bad prompt"))
    assert op.view() == {"name": op.name, "done": True, "error": {"code": 3, "message": "bad prompt"}}


def test_hold_keeps_it_running_until_released(clock: Clock) -> None:
    ops = OperationStore(default_delay_s=0, clock=clock)
    op = ops.create("a", "batch", hold=True, response={})
    clock.now += 60
    assert not op.done()
    ops.release(op)
    assert op.done()
    held = ops.create("a", "batch", hold=True)
    ops.complete(held, response={"late": 1}, at=5)
    clock.now += 4
    assert not held.done()
    clock.now += 1
    assert held.view()["response"] == {"late": 1}


def test_cancel_a_running_one_and_leave_a_done_one(clock: Clock) -> None:
    ops = OperationStore(default_delay_s=10, clock=clock)
    running = ops.create("a", "batch", response={"r": 1})
    ops.cancel("a", running.name)
    assert running.view()["error"]["code"] == 1 and "response" not in running.view()
    ops.complete(running, response={"after": 1})  # a producer finishing late changes nothing
    assert running.view()["error"]["code"] == 1
    finished = ops.create("a", "batch", response={"r": 2}, delay_s=0)
    ops.cancel("a", finished.name)
    assert finished.view()["response"] == {"r": 2}


def test_namespaces_are_apart_and_unknown_is_404(clock: Clock) -> None:
    ops = OperationStore(clock=clock)
    op = ops.create("a", "video")
    assert ops.get("b", op.name) is None
    with pytest.raises(errors.ApiError) as caught:
        ops.require("b", op.name)
    assert caught.value.code == 404 and caught.value.status == "NOT_FOUND"
    with pytest.raises(errors.ApiError):
        ops.delete("b", op.name)
    ops.delete("a", op.name)
    assert ops.get("a", op.name) is None


def test_list_pages_newest_first_by_kind(clock: Clock) -> None:
    ops = OperationStore(clock=clock)
    names = [ops.create("a", "batch" if i % 2 else "video").name for i in range(7)]
    page, token = ops.list("a", page_size=3)
    assert [o.name for o in page] == names[::-1][:3] and token == names[3]
    page, token = ops.list("a", page_size=3, page_token=token)
    assert [o.name for o in page] == names[::-1][3:6]
    page, token = ops.list("a", page_size=3, page_token=token)
    assert [o.name for o in page] == names[:1] and token == ""
    assert [o.name for o in ops.list("a", kind="batch")[0]] == [n for i, n in enumerate(names) if i % 2][::-1]


def test_bounded_per_namespace_dropping_done_ones_first(clock: Clock) -> None:
    ops = OperationStore(default_delay_s=0, max_per_namespace=3, clock=clock)
    running = ops.create("a", "x", hold=True)
    done = [ops.create("a", "x", response={}) for _ in range(5)]
    assert ops.counts() == {"a": 3}
    assert ops.get("a", running.name) is running  # the running one outlived done ones
    assert [ops.get("a", o.name) is not None for o in done] == [False, False, False, True, True]
    ops.create("b", "x")
    ops.reset("a")
    assert ops.counts() == {"b": 1}
    ops.reset()
    assert ops.counts() == {}
