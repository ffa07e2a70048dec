"""Tiny pytest suite whose runs produce the pytest JUnit fixtures."""

import asyncio
from unittest import mock

import pytest


def add(a, b):
    return a + b


class Box:
    def __init__(self, item):
        self.item = item


def test_add():
    assert add(2, 3) == 5


def test_add_wrong():
    assert add(1, 1) == 3


def test_none_attribute():
    box = Box(None)
    assert box.item.size == 1


@pytest.mark.skip(reason="not on this platform")
def test_skipped():
    assert False


def test_mock_called():
    notify = mock.Mock()
    notify.assert_called_once()


def test_timeout():
    async def slow():
        await asyncio.sleep(1)

    async def main():
        await asyncio.wait_for(slow(), timeout=0.01)

    asyncio.run(main())


@pytest.fixture
def broken():
    raise RuntimeError("fixture could not connect")


def test_uses_broken_fixture(broken):
    assert broken


class TestMath:
    def test_type(self):
        assert add("1", 2) == 3

    @pytest.mark.xfail(reason="known bug")
    def test_known_bug(self):
        assert add(0.1, 0.2) == 0.3
