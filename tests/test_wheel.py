"""The built artefacts (issue 24 item 6): ``python -m build`` makes an sdist
and a wheel; the wheel, installed into a fresh virtual environment (not
editable, no source tree on the path), runs the command line, serves the
browser table from its own static files and imports every module; neither
artefact holds tests, results, caches or notebooks; and the sdist rebuilds
the same wheel as the source tree.

One build of each kind and one virtual environment, shared by the tests of
this module.  The environment sees the dependencies of the running one
through a ``.pth`` line (nothing is downloaded but the build backend that
``python -m build`` puts in its isolated build environment); a ``.pth``
line only adds a folder to ``sys.path``, so the ``.pth`` files in that
folder, among them the editable install's finder, stay inactive there (the
first test checks it).  The new environment compiles the numba engine
afresh, which takes a minute or two: the sizes are tiny.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import tarfile
import urllib.request
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

#: what neither artefact may hold: the test suite, results, caches,
#: notebooks, analysis outputs, build leftovers
#: (domeng/results, the package of the Results API, is of course allowed)
FORBIDDEN = re.compile(
    r"^(results|analysis|benchmarks|docs|build|dist)/"
    r"|(^|/)(tests?|__pycache__|\.ipynb_checkpoints)/|(^|/)(conftest|test_[^/]*)\.py$"
    r"|\.(pyc|pyo|nbi|nbc|stamp|ipynb|parquet|npz|png|svg)$"
)

#: the top-level files a wheel is built from (the package folder aside)
TOP_FILES = ("pyproject.toml", "README.md", "MANIFEST.in", "CHANGELOG.md", "CITATION.cff")


def _run(cmd: list[str], *, cwd: Path, env: dict | None = None, timeout: float = 900) -> str:
    """Run ``cmd``; its stdout, or a failure that shows what it printed."""
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, (
        f"{' '.join(map(str, cmd))} exited {p.returncode}\n"
        f"--- stdout\n{p.stdout[-3000:]}\n--- stderr\n{p.stderr[-3000:]}"
    )
    return p.stdout


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment without PYTHONPATH (or any PYTHON* variable): no
    source tree on the path of what runs in it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(extra)
    return env


def _build(src: Path, out: Path, *kinds: str) -> None:
    cmd = [sys.executable, "-m", "build", *kinds, "--outdir", str(out), str(src)]
    _run(cmd, cwd=out.parent, env=_clean_env())


def _members(wheel: Path) -> dict[str, str]:
    """name -> sha256 of the content of every member of a wheel (the zip
    timestamps, which differ from build to build, left out)."""
    with zipfile.ZipFile(wheel) as z:
        return {n: hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist()}


def _copy_tolerant(src: str, dst: str) -> None:
    # another test process may replace a numba cache file while it is copied
    try:
        shutil.copy2(src, dst)
    except FileNotFoundError:
        pass


def _tree_copy(dest: Path) -> Path:
    """The files the wheel is built from, copied as they are in the
    repository, caches included, plus planted cache files and a notebook, so
    that the check that they stay out of the wheel can fail."""
    shutil.copytree(ROOT / "domeng", dest / "domeng", copy_function=_copy_tolerant)
    for name in TOP_FILES:
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, dest / name)
    for lic in ROOT.glob("LICEN[CS]E*"):
        shutil.copy2(lic, dest / lic.name)
    cache = dest / "domeng" / "engine" / "__pycache__"
    cache.mkdir(exist_ok=True)
    for planted in (
        "kernel.play-1.py311.nbi",
        "kernel.play-1.py311.1.nbc",
        "kernel.cpython-311.pyc",
    ):
        (cache / planted).write_bytes(b"planted by tests/test_wheel.py")
    (dest / "domeng" / "web" / "static" / "__pycache__").mkdir(exist_ok=True)
    (dest / "domeng" / "web" / "static" / "__pycache__" / "x.pyc").write_bytes(b"planted")
    (dest / "domeng" / "scratch.ipynb").write_text("{}")
    return dest


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """``python -m build`` of the repository (the sdist, then the wheel built
    from the sdist, as ``build`` does by default), and a wheel built straight
    from a copy of the source tree."""
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    dist.mkdir()
    _build(ROOT, dist)
    tree_dist = tmp / "tree-dist"
    tree_dist.mkdir()
    _build(_tree_copy(tmp / "tree"), tree_dist, "--wheel")
    (sdist,) = dist.glob("domeng-*.tar.gz")
    (wheel,) = dist.glob("domeng-*.whl")
    (tree_wheel,) = tree_dist.glob("domeng-*.whl")
    return {"tmp": tmp, "sdist": sdist, "wheel": wheel, "tree_wheel": tree_wheel}


@pytest.fixture(scope="module")
def venv(built) -> dict:
    """A fresh virtual environment with the wheel installed (not editable)
    and the running environment's site-packages visible through a ``.pth``
    line; the environment its commands run with (no PYTHONPATH) and a cwd
    outside the repository."""
    tmp = built["tmp"]
    env_dir = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], cwd=tmp)
    py = env_dir / "bin" / "python"
    purelib = Path(
        _run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=tmp
        ).strip()
    )
    env = _clean_env(XDG_DATA_HOME=str(tmp / "xdg"), PYTHONNOUSERSITE="1")
    # the wheel first, into the bare venv (pip would take the running
    # environment's editable domeng, once visible, for an installed one)
    _run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps"]
        + ["--no-index", "--disable-pip-version-check", str(built["wheel"])],
        cwd=tmp,
        env=env,
    )
    assert (purelib / "domeng" / "__init__.py").is_file(), "pip did not install the wheel"
    ours = [p for p in (*site.getsitepackages(), sysconfig.get_path("purelib")) if Path(p).is_dir()]
    (purelib / "_domeng_test_deps.pth").write_text("".join(f"{p}\n" for p in dict.fromkeys(ours)))
    work = tmp / "work"
    work.mkdir()
    return {"python": py, "bin": env_dir / "bin", "purelib": purelib, "cwd": work, "env": env}


def _in_venv(venv: dict, *args: str, timeout: float = 900) -> str:
    return _run(list(args), cwd=venv["cwd"], env=venv["env"], timeout=timeout)


# the artefacts ----------------------------------------------------------------


def test_the_wheel_holds_the_package_and_nothing_else(built):
    names = set(_members(built["wheel"]))
    bad = sorted(n for n in names if FORBIDDEN.search(n))
    assert not bad, f"the wheel holds {bad}"
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"domeng", built["wheel"].name.split("-py")[0] + ".dist-info"}, tops
    sources = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "domeng").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert sources == {n for n in names if n.startswith("domeng/")}, (
        "the wheel's package differs from the source tree's: "
        f"missing {sorted(sources - names)}, extra {sorted(names - sources)}"
    )
    for static in ("index.html", "app.js", "style.css"):
        assert f"domeng/web/static/{static}" in names
    assert "domeng/py.typed" in names
    assert "domeng/players/data/learned.json" in names  # the learned player's weights


def test_the_sdist_holds_no_tests_results_caches_or_notebooks(built):
    with tarfile.open(built["sdist"]) as t:
        names = [m.name.split("/", 1)[1] for m in t.getmembers() if m.isfile()]
    bad = sorted(n for n in names if FORBIDDEN.search(n))
    assert not bad, f"the sdist holds {bad}"
    assert "pyproject.toml" in names and "domeng/web/static/app.js" in names


def test_the_sdist_rebuilds_the_wheel_of_the_source_tree(built):
    """The wheel ``build`` made from the sdist and the one made straight
    from the tree (caches and a notebook planted in it) hold the same files
    with the same contents."""
    from_sdist, from_tree = _members(built["wheel"]), _members(built["tree_wheel"])
    assert sorted(from_sdist) == sorted(from_tree), (
        f"only from the sdist: {sorted(set(from_sdist) - set(from_tree))}; "
        f"only from the tree: {sorted(set(from_tree) - set(from_sdist))}"
    )
    differ = sorted(n for n in from_sdist if from_sdist[n] != from_tree[n])
    assert not differ, f"members whose contents differ: {differ}"


# the installed wheel ------------------------------------------------------------

_PROBE = r"""
import importlib, json, pkgutil, sys
import domeng
names = []
for m in pkgutil.walk_packages(domeng.__path__, "domeng."):
    if m.name.rsplit(".", 1)[-1] == "__main__":
        continue  # runs the command line when imported
    importlib.import_module(m.name)
    names.append((m.name, m.ispkg))
print(json.dumps({
    "file": domeng.__file__,
    "version": domeng.__version__,
    "modules": names,
    "sys_path": sys.path,
    "finders": [type(f).__module__ + "." + type(f).__qualname__ for f in sys.meta_path],
    "editable": sorted(k for k in sys.modules if "editable" in k),
}))
"""


def test_the_installed_wheel_is_the_one_imported_and_every_module_imports(built, venv):
    got = json.loads(_in_venv(venv, str(venv["python"]), "-c", _PROBE))
    pkg = Path(got["file"]).resolve().parent
    assert pkg == (venv["purelib"] / "domeng").resolve(), got["file"]
    # no source tree on the path: the only folder on it that holds a domeng package is the venv's
    with_domeng = {
        (venv["cwd"] / p).resolve()
        for p in got["sys_path"]
        if (venv["cwd"] / p / "domeng").exists()
    }
    assert with_domeng == {venv["purelib"].resolve()}, got["sys_path"]
    assert not any("editable" in f.lower() for f in got["finders"]), got["finders"]
    assert not got["editable"], got["editable"]
    import domeng

    assert got["version"] == domeng.__version__
    # every module of the wheel was found and imported, every subpackage among them
    wheel_modules = {
        n[: -len(".py")].replace("/", ".").removesuffix(".__init__")
        for n in _members(built["wheel"])
        if n.endswith(".py") and not n.endswith("__main__.py")
    }
    imported = {name for name, _ in got["modules"]} | {"domeng"}
    assert imported == wheel_modules, sorted(imported ^ wheel_modules)
    packages = {name for name, ispkg in got["modules"] if ispkg}
    assert {"domeng.engine", "domeng.batch", "domeng.web", "domeng.envs"} <= packages


def test_simulate_json_from_the_wheel(venv):
    out = _in_venv(
        venv, str(venv["bin"] / "domeng"), "simulate", "--tables", "10", "--rounds", "10", "--json"
    )
    summary = json.loads(out)
    assert summary["schema"].startswith("domeng.summary/")
    assert summary["tables"] == 10 and summary["rounds"] == 10
    assert summary["total_rounds"] == 100
    assert abs(sum(v["value"] for v in summary["end_kind"].values()) - 1) < 1e-9
    assert not any(venv["cwd"].iterdir()), "simulate without --out wrote into the cwd"


def test_rules_from_the_wheel(venv):
    out = _in_venv(venv, str(venv["bin"] / "domeng"), "rules")
    assert "DECISIONS" in out and "D17" in out and "CAPPU" in out


def test_trace_from_the_wheel(venv):
    out = _in_venv(
        venv, str(venv["bin"] / "domeng"), "trace", "--seed", "1", "--table", "0", "--rounds", "1"
    )
    assert out.startswith("round 1:"), out[:200]
    assert re.search(r"seat \d leads \[\d\|\d\]", out), out[:500]


def test_serve_from_the_wheel_serves_the_page_and_its_static_files(built, venv):
    """``domeng serve --port 0`` (the free port the system chooses, printed
    on the first line) answers ``/`` and a static file, whose bytes are the
    wheel's."""
    with zipfile.ZipFile(built["wheel"]) as z:
        app_js = z.read("domeng/web/static/app.js")
    proc = subprocess.Popen(
        [str(venv["bin"] / "domeng"), "serve", "--port", "0"],
        cwd=venv["cwd"],
        env=venv["env"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m and int(m.group(1)) != 0, line or proc.stderr.read()
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(m.group(0), timeout=60) as r:
            page = r.read()
            assert r.status == 200 and b"<html" in page.lower()
        assert b"/static/app.js" in page
        with opener.open(m.group(0) + "static/app.js", timeout=60) as r:
            assert r.status == 200 and r.read() == app_js
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
