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

# builds and installs a wheel with pip: the packaging, not the code, so CI's slow tier
pytestmark = pytest.mark.slow


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


@pytest.fixture
def installed_run(installed: Path, python_run):
    """Run python with the installed copy first on the path, from an empty folder."""
    env = dict(os.environ, PYTHONPATH=str(installed), PYTHONIOENCODING="utf-8")

    def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return python_run(*args, stdin=stdin, env=env, cwd=installed.parent)

    return run


def test_installed_copy_loads_its_own_grammars(installed: Path, installed_run) -> None:
    code = (
        "import json, reactfuzz; from reactfuzz.formats.grammars import grammar_dir, lark_parser;"
        "[lark_parser(n) for n in reactfuzz.BUILTIN_FORMATS];"
        "print(json.dumps([reactfuzz.__file__, str(grammar_dir())]))"
    )
    r = installed_run("-c", code)
    assert r.returncode == 0, r.stderr
    pkg_file, gdir = json.loads(r.stdout)
    assert Path(pkg_file).is_relative_to(installed)
    assert Path(gdir) == installed / "reactfuzz" / "grammars"


def test_installed_cli_lists_formats_and_parses(installed: Path, installed_run) -> None:
    r = installed_run("-m", "reactfuzz", "formats")
    assert r.returncode == 0, r.stderr
    assert str(installed / "reactfuzz" / "grammars") in r.stdout
    for name in ("bracket", "paper", "action-input", "json-args"):
        assert name in r.stdout
    r = installed_run("-m", "reactfuzz", "parse", "--format", "bracket", "-",
             stdin="Action: list_invoices[cus_8812, 2026-07-01]\n")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["action"]["args"] == ["cus_8812", "2026-07-01"]
