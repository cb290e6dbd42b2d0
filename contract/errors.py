"""One error type for bad input: it renders as one clear line (path, field, what is wrong)."""

from __future__ import annotations


class ContractError(ValueError):
    """A file or value that breaks the contract.

    ``str()`` is one line: ``PATH: FIELD: MESSAGE`` (the field part is dropped when empty).
    """

    def __init__(self, path: str, field: str, message: str) -> None:
        self.path, self.field, self.message = str(path), field, message
        parts = [p for p in (self.path, field, message) if p]
        super().__init__(": ".join(parts).replace("\n", " "))
