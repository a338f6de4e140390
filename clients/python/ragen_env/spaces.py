"""TextSpace: any string of at most max_length characters (Unicode included), what the envs read and write.

Gymnasium's own `Text` space only holds characters of a fixed charset; an env's observations and
an agent's replies are free text. Two TextSpaces of the same max_length compare equal, so vector
envs accept them, and the space is registered with Gymnasium's shared-memory functions, so
`AsyncVectorEnv` works with its default `shared_memory=True`.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

# The server refuses request bodies over 1 MiB: no reply is longer.
MAX_TEXT = 1 << 20
# A random reply from sample(): printable ASCII, up to this many characters.
SAMPLE_LENGTH = 32


class TextSpace(spaces.Space):
    """Any str of at most `max_length` characters. `sample()` is a random reply of printable ASCII
    (almost never a parsable `<answer>`: a random agent pays the format penalty)."""

    def __init__(self, max_length: int = MAX_TEXT, seed: Any = None):
        if not isinstance(max_length, int) or max_length < 1:
            raise ValueError(f"max_length must be a positive int, got {max_length!r}")
        self.max_length = max_length
        super().__init__(shape=None, dtype=None, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        if mask is not None or probability is not None:
            raise NotImplementedError("TextSpace.sample takes no mask or probability")
        n = int(self.np_random.integers(0, min(SAMPLE_LENGTH, self.max_length) + 1))
        return "".join(chr(int(c)) for c in self.np_random.integers(32, 127, size=n))

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def to_jsonable(self, sample_n):
        return list(sample_n)

    def from_jsonable(self, sample_n):
        return list(sample_n)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, TextSpace) and other.max_length == self.max_length

    def __hash__(self) -> int:
        return hash((TextSpace, self.max_length))

    def __repr__(self) -> str:
        return f"TextSpace(max_length={self.max_length})"


# --- AsyncVectorEnv's shared memory: per env a length (8 bytes) and up to MAX_TEXT bytes of UTF-8.
_HEADER = 8
_SLOT = _HEADER + MAX_TEXT


class SharedTexts(Sequence):
    """The observations of an AsyncVectorEnv as they are in shared memory now; a deepcopy (what the
    vector env returns by default) is a tuple of str."""

    def __init__(self, space: TextSpace, memory: Any, n: int):
        self.space, self.memory, self.n = space, memory, n

    def _buffer(self) -> np.ndarray:
        return np.frombuffer(self.memory.get_obj(), dtype=np.uint8)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[k] for k in range(*i.indices(self.n)))
        if not -self.n <= i < self.n:
            raise IndexError(i)
        i %= self.n
        buf, start = self._buffer(), i * _SLOT
        size = int.from_bytes(buf[start : start + _HEADER].tobytes(), "little")
        return buf[start + _HEADER : start + _HEADER + size].tobytes().decode("utf-8")

    def __len__(self) -> int:
        return self.n

    def __deepcopy__(self, memo) -> tuple:
        return tuple(self)

    def __eq__(self, other: Any) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, (tuple, list, SharedTexts)) else other)

    def __repr__(self) -> str:
        return repr(tuple(self))


try:
    from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

    @create_shared_memory.register(TextSpace)
    def _create_text_memory(space: TextSpace, n: int = 1, ctx=mp):
        return ctx.Array("B", n * _SLOT)

    @read_from_shared_memory.register(TextSpace)
    def _read_texts(space: TextSpace, shared_memory, n: int = 1) -> SharedTexts:
        return SharedTexts(space, shared_memory, n)

    @write_to_shared_memory.register(TextSpace)
    def _write_text(space: TextSpace, index: int, value: str, shared_memory) -> None:
        data = value.encode("utf-8")
        if len(data) > MAX_TEXT:
            raise ValueError(f"an observation of {len(data)} bytes does not fit AsyncVectorEnv's shared memory ({MAX_TEXT}); use AsyncVectorEnv(..., shared_memory=False)")
        buf = np.frombuffer(shared_memory.get_obj(), dtype=np.uint8)
        start = index * _SLOT
        buf[start : start + _HEADER] = np.frombuffer(len(data).to_bytes(_HEADER, "little"), dtype=np.uint8)
        buf[start + _HEADER : start + _HEADER + len(data)] = np.frombuffer(data, dtype=np.uint8)

except ImportError:  # pragma: no cover - an older gymnasium without these functions
    pass
