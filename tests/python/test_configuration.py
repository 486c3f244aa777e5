"""docs/configuration.md and the configuration module agree (issue 27): every
environment variable the C library reads is in src/core/config.h's list and on the
page, nothing else in the library calls getenv, and the Python package reads only
variables the page names."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, "src", "core", "config.h")),
                                reason="needs the source tree")


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def _sources(*dirs, exts=(".c", ".h", ".cu", ".cuh")):
    for d in dirs:
        for base, _, files in os.walk(os.path.join(ROOT, d)):
            for name in files:
                if name.endswith(exts):
                    path = os.path.join(base, name)
                    yield os.path.relpath(path, ROOT), open(path, encoding="utf-8", errors="replace").read()


def _strip_comments(code):
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    return re.sub(r"//[^\n]*", "", code)


def _c_list():
    return re.findall(r'X\((\w+), "(\w+)"\)', _strip_comments(_read("src", "core", "config.h")))


def _documented():
    return set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", _read("docs", "configuration.md"), flags=re.M))


def test_list_is_well_formed():
    items = _c_list()
    # library settings, one test hook and the planner's one override: kernel paths are
    # the planner's (src/core/plan.h), never variables of their own
    assert {n for _, n in items} == {
        "FOVEA_NUM_THREADS", "FOVEA_CACHE_BYTES", "FOVEA_CACHE_SHM", "FOVEA_GPU_CACHE_BYTES", "FOVEA_CUFILE",
        "FOVEA_CUFILE_LIBRARY", "FOVEA_NVJPEG_BACKEND", "CUDA_HOME", "FOVEA_TEST_SHM_INSERT_PAUSE",
        "FOVEA_VARIANT"}
    names = [n for _, n in items]
    assert len(set(names)) == len(names), "a variable is listed twice"
    for ident, name in items:
        assert name in ("CUDA_HOME",) or name == "FOVEA_" + ident, (ident, name)


def test_every_listed_variable_is_documented_and_back():
    listed = {n for _, n in _c_list()}
    doc = _documented()
    python_only = {"FOVEA_IMPORT_RUNS"}
    assert listed - doc == set(), f"not in docs/configuration.md: {sorted(listed - doc)}"
    assert doc - listed - python_only == set(), f"documented but read nowhere: {sorted(doc - listed - python_only)}"


def test_getenv_only_in_the_configuration_module():
    offenders = []
    for path, code in _sources("src", "python/src", "cli"):
        if path == os.path.join("src", "core", "config.c"):
            continue
        if re.search(r"\b(secure_)?getenv\s*\(", _strip_comments(code)):
            offenders.append(path)
    assert offenders == [], f"getenv outside src/core/config.c: {offenders}"


def test_every_id_is_used():
    used = set()
    for _, code in _sources("src", "python/src", "cli"):
        used.update(re.findall(r"FV__ENV_(\w+)", _strip_comments(code)))
    unused = {i for i, _ in _c_list()} - used - {"LIST", "ENUM", "NAME", "COUNT"}
    assert unused == set(), f"listed but never read: {sorted(unused)}"


def test_python_package_reads_documented_variables_only():
    doc = _documented()
    read = set()
    for path, code in _sources("python/fovea", exts=(".py",)):
        read.update(re.findall(r"environ(?:\.get\(|\[)\s*[\"'](FOVEA_\w+)[\"']", code))
        read.update(re.findall(r"[\"'](FOVEA_\w+)[\"']\s+(?:not )?in\s+_?os\.environ", code))
    assert read, "the scan found no reads at all"
    assert read - doc == set(), f"read by the Python package, not documented: {sorted(read - doc)}"
    # the package reads only library settings (which it sets for worker processes or
    # the C library); its own choices of code path are internal switches
    # (fovea._interop.switched), never variables
    listed = {n for _, n in _c_list()}
    assert read - listed == set(), f"Python-only variables: {sorted(read - listed)}"
