"""A tiny character-level language model trained on the Python standard library's own source, for ``charlm.yaml``.

    cadence fit examples/charlm.yaml

The text is read at run time from a fixed, sorted list of modules in ``os.path.dirname(os.__file__)``
(a few hundred KB; no download). It is cut into segments of random length (seeded), so the batches hold
variable-length sequences padded to the longest one: the number of *tokens* (bytes that are not padding)
differs from batch to batch, unlike the number of samples. The trainer counts tokens with
:func:`count_tokens` (``get_num_tokens`` in the YAML) and the schedule and the run length are in tokens.
The model (embedding, GRU, linear head) returns the loss itself (``loss_fn: null``).
"""

from __future__ import annotations

import os

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset

__all__ = ["PAD", "SOURCES", "CharGRU", "collate", "corpus", "count_tokens", "make_model", "train_loader", "val_loader"]

#: Standard-library modules whose source is the corpus (sorted; those missing from an install are skipped).
SOURCES = (
    "argparse.py",
    "bisect.py",
    "calendar.py",
    "difflib.py",
    "fnmatch.py",
    "functools.py",
    "heapq.py",
    "queue.py",
    "random.py",
    "shlex.py",
    "string.py",
    "textwrap.py",
)
PAD = 256  # bytes are 0..255; the padding index comes after them
VOCAB = 257
_VALIDATION_FRACTION = 0.05


def corpus(files: tuple[str, ...] = SOURCES) -> bytes:
    """The source files, in sorted order, joined by a newline (at least one of them must exist)."""
    root = os.path.dirname(os.__file__)
    parts = []
    for name in sorted(files):
        path = os.path.join(root, name)
        if os.path.isfile(path):
            with open(path, "rb") as file:
                parts.append(file.read())
    if not parts:
        raise FileNotFoundError(f"none of {', '.join(files)} is in {root}: this Python has no standard-library source")
    return b"\n".join(parts)


class Segments(Dataset):
    """Consecutive segments of ``data`` with lengths drawn from ``[min_length, max_length]`` (seeded).

    Item ``i`` is a LongTensor of the segment's bytes plus the next one (the last target).
    """

    def __init__(self, data: bytes, *, min_length: int, max_length: int, seed: int) -> None:
        if not 1 <= min_length <= max_length:
            raise ValueError(f"need 1 <= min_length={min_length} <= max_length={max_length}")
        self.data = torch.tensor(list(data), dtype=torch.long)
        generator = torch.Generator().manual_seed(seed)
        self.starts: list[int] = []
        self.lengths: list[int] = []
        position = 0
        while position + max_length + 1 <= len(data):
            length = int(torch.randint(min_length, max_length + 1, (), generator=generator))
            self.starts.append(position)
            self.lengths.append(length)
            position += length

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, index: int) -> torch.Tensor:
        start = self.starts[index]
        return self.data[start : start + self.lengths[index] + 1]


def collate(items: list[torch.Tensor]) -> torch.Tensor:
    """Pad a list of sequences to the longest with :data:`PAD`: a ``(batch, length)`` LongTensor."""
    batch = torch.full((len(items), max(len(item) for item in items)), PAD, dtype=torch.long)
    for row, item in enumerate(items):
        batch[row, : len(item)] = item
    return batch


def count_tokens(batch: torch.Tensor) -> int:
    """The tokens of a batch: the entries that are not padding (``get_num_tokens``)."""
    return int((batch != PAD).sum())


class CharGRU(nn.Module):
    """Embedding → GRU → linear head; ``forward(batch)`` returns the mean next-byte cross entropy (padding ignored)."""

    def __init__(self, embedding: int = 48, hidden: int = 128, layers: int = 1) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, embedding, padding_idx=PAD)
        self.rnn = nn.GRU(embedding, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, VOCAB)

    def logits(self, inputs: torch.Tensor) -> torch.Tensor:
        output, _ = self.rnn(self.embed(inputs))
        return self.head(output)

    def forward(self, batch: torch.Tensor) -> torch.Tensor:
        inputs, targets = batch[:, :-1], batch[:, 1:]
        logits = self.logits(inputs)
        return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1), ignore_index=PAD)

    @torch.no_grad()
    def sample(self, prompt: str, length: int = 200, temperature: float = 0.8, seed: int = 0) -> str:
        """Continue ``prompt`` by ``length`` bytes (for fun: ``print(model.sample("def "))``)."""
        generator = torch.Generator().manual_seed(seed)
        data = list(prompt.encode())
        output, hidden = self.rnn(self.embed(torch.tensor([data])))
        for _ in range(length):
            probabilities = F.softmax(self.head(output[0, -1])[:PAD] / temperature, dim=-1)
            byte = int(torch.multinomial(probabilities, 1, generator=generator))
            data.append(byte)
            output, hidden = self.rnn(self.embed(torch.tensor([[byte]])), hidden)
        return bytes(data).decode(errors="replace")


def make_model(
    embedding: int = 48, hidden: int = 128, layers: int = 1, seed: int = 0, num_threads: int | None = None
) -> CharGRU:
    """A :class:`CharGRU` initialised from ``seed``; ``num_threads`` (optional) sets torch's CPU threads
    (a model this small trains fastest on one: less synchronisation, and no spinning on a busy machine)."""
    if num_threads is not None:
        torch.set_num_threads(num_threads)
    torch.manual_seed(seed)
    return CharGRU(embedding, hidden, layers)


def _split(validation: bool) -> bytes:
    data = corpus()
    cut = int(len(data) * (1 - _VALIDATION_FRACTION))
    return data[cut:] if validation else data[:cut]


def train_loader(batch_size: int = 32, min_length: int = 8, max_length: int = 64, seed: int = 0) -> DataLoader:
    """The first 95% of the corpus in segments of 8..64 bytes, shuffled."""
    dataset = Segments(_split(False), min_length=min_length, max_length=max_length, seed=seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, collate_fn=collate, drop_last=True)


def val_loader(batch_size: int = 64, min_length: int = 8, max_length: int = 64, seed: int = 1) -> DataLoader:
    """The last 5% of the corpus, in order."""
    dataset = Segments(_split(True), min_length=min_length, max_length=max_length, seed=seed)
    return DataLoader(dataset, batch_size=batch_size, collate_fn=collate)
