"""generator/common/gcpause.py: the collector's thresholds raised inside the block (and inside a decorated
function), restored after it, also when it raises, and when nested."""

from __future__ import annotations

import gc

import pytest

from generator.common.gcpause import THRESHOLDS, fewer_collections


def test_thresholds_raised_inside_and_restored_after():
    before = gc.get_threshold()
    assert before != THRESHOLDS
    with fewer_collections():
        assert gc.get_threshold() == THRESHOLDS
        with fewer_collections():
            assert gc.get_threshold() == THRESHOLDS
        assert gc.get_threshold() == THRESHOLDS
    assert gc.get_threshold() == before

    @fewer_collections()
    def fails():
        assert gc.get_threshold() == THRESHOLDS
        raise ValueError("inside")

    with pytest.raises(ValueError):
        fails()
    assert gc.get_threshold() == before
