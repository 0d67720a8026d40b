"""The grammars ship inside the wheel and load from an installed copy, not the checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build a wheel from this checkout and install it (no deps) into a fresh folder."""
    tmp = tmp_path_factory.mktemp("wheel")
    dist, target = tmp / "dist", tmp / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "-w", str(dist), str(ROOT)],
        check=True, capture_output=True, text=True, timeout=600,
    )
    wheels = list(dist.glob("reactfuzz-*.whl"))
    assert len(wheels) == 1
    names = zipfile.ZipFile(wheels[0]).namelist()
    for g in ("bracket", "paper", "action_input", "json_args", "lines"):
        assert f"reactfuzz/grammars/{g}.lark" in names
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target),
         str(wheels[0])],
        check=True, capture_output=True, text=True, timeout=600,
    )
    return target


def _run(target: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    # the installed copy first on the path; run from an empty folder, away from the checkout
    env = dict(os.environ, PYTHONPATH=str(target), PYTHONIOENCODING="utf-8")
    cwd = target.parent
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def test_installed_copy_loads_its_own_grammars(installed: Path) -> None:
    code = (
        "import json, reactfuzz; from reactfuzz.grammars import grammar_dir, lark_parser;"
        "[lark_parser(n) for n in reactfuzz.BUILTIN_FORMATS];"
        "print(json.dumps([reactfuzz.__file__, str(grammar_dir())]))"
    )
    r = _run(installed, "-c", code)
    assert r.returncode == 0, r.stderr
    pkg_file, gdir = json.loads(r.stdout)
    assert Path(pkg_file).is_relative_to(installed)
    assert Path(gdir) == installed / "reactfuzz" / "grammars"


def test_installed_cli_lists_formats_and_parses(installed: Path) -> None:
    r = _run(installed, "-m", "reactfuzz", "formats")
    assert r.returncode == 0, r.stderr
    assert str(installed / "reactfuzz" / "grammars") in r.stdout
    for name in ("bracket", "paper", "action-input", "json-args"):
        assert name in r.stdout
    r = _run(installed, "-m", "reactfuzz", "parse", "--format", "bracket", "-",
             stdin="Action: list_invoices[cus_8812, 2026-07-01]\n")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["action"]["args"] == ["cus_8812", "2026-07-01"]
