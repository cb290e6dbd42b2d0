"""No import circles among the project's modules.

The graph is built from the source text (``ast``), not by importing: a node is each module of
the project's packages, an edge each import of another project module found anywhere in its
file, at the top, inside a function (a lazy import) or under ``if TYPE_CHECKING:``. All three
count: a lazy or type-only import that closes a circle still ties the two modules together
(neither can be read, tested or moved without the other). ``from pkg import name`` is an edge
to ``pkg.name`` when that is a module, else to ``pkg``; importing ``a.b.c`` is not counted as
importing the packages ``a`` and ``a.b`` (their ``__init__`` files import nothing of ours).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "contract",
    "vision",
    "calibration",
    "adjudicator",
    "service",
    "synth",
    "bench",
    "models",
)


def modules(root: Path) -> dict[str, Path]:
    """Dotted name -> file of every module under the project's packages."""
    out: dict[str, Path] = {}
    for pkg in PACKAGES:
        for p in sorted((root / pkg).rglob("*.py")):
            parts = list(p.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = p
    return out


def _known(name: str, mods: dict[str, Path]) -> str | None:
    """The project module ``name`` names, or the nearest package or module above it."""
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    """The project modules that the module ``name`` (file ``path``) imports anywhere."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(_known(a.name, mods) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                out.add(full if full in mods else _known(base, mods))
    out.discard(None)
    out.discard(name)
    return out  # type: ignore[return-value]


def graph(root: Path) -> dict[str, set[str]]:
    """Module -> the project modules it imports."""
    mods = modules(root)
    return {m: imports(m, p, mods) for m, p in mods.items()}


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``g``: its strongly connected components of two or more
    modules (Tarjan's algorithm, iterative), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(g):
        if start in index:
            continue
        work = [(start, iter(sorted(g[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found)


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        (
            {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}, "e": {"a", "c"}},
            [["a", "b"], ["c", "d"]],
        ),
    ],
)
def test_circles_finds_every_circle(edges, expected):
    assert circles(edges) == expected


def test_imports_reads_lazy_relative_and_type_only_imports(tmp_path):
    pkg = tmp_path / "vision"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import b\n"
        "if TYPE_CHECKING:\n    from vision.sub.c import C\n"
        "def f():\n    import vision.d\n"
    )
    for m in ("b", "c"):
        (pkg / "sub" / f"{m}.py").write_text("")
    (pkg / "d.py").write_text("from vision.sub import a\nimport numpy\n")
    g = graph(tmp_path)
    assert g["vision.sub.a"] == {"vision.sub.b", "vision.sub.c", "vision.d"}
    assert g["vision.d"] == {"vision.sub.a"}
    assert circles(g) == [["vision.d", "vision.sub.a"]]


def test_no_import_circles():
    found = circles(graph(ROOT))
    assert found == [], "import circles (move what both need to a module below both):\n" + (
        "\n".join(" <-> ".join(c) for c in found)
    )
