#!/usr/bin/env python3
"""The conformance job (issue 30): the peers' own test suites run against fovea.

    python tests/conformance/run.py [--suite scipy|skimage|all] [--report FILE]
    python tests/conformance/run.py --cupy [--cupy-dtypes skimage|cucim] [--results FILE]

- scipy: the tests of the installed SciPy's ``scipy.ndimage`` (they ship in its wheel),
  run in place (``pytest --pyargs scipy.ndimage``).
- skimage: scikit-image's tests of color, exposure, filters, measure, metrics,
  morphology, registration, restoration, segmentation and transform, from its source
  distribution (its wheels carry no tests), downloaded once from PyPI into build/conformance and checked against the
  pinned SHA-256.

The plugin tests/conformance/fovea_substitute.py puts fovea's function in place of
every peer function fovea provides. Every test outcome is compared with
tests/conformance/known-failures.txt (the exclusions, each with its reason): the job
fails on a failure that is not listed, and on a listed test that now passes (take it
off the list). --report writes the Markdown report (docs/compatibility.md is one,
regenerated with ``--report docs/compatibility.md``).

--cupy (the GPU machine: ``FOVEA_GPU_STEPS=conformance-cupy tools/gpu-check``) runs the
same suites with the tests' NumPy arrays moved to the GPU as CuPy arrays and the
results moved back (fovea_substitute.py, "CuPy mode"), so that fovea's CUDA paths
and its CuPy-in / CuPy-out rule meet the same cases. Its outcomes are judged against
known-failures.txt and known-failures-cupy.txt (the failures of this mode only); the
run writes build/conformance/runs-cupy/ and a results JSON (--results, default
build/conformance/runs-cupy/results.json). --report on a CPU run adds a "CuPy mode"
section when that JSON exists (--cupy-results to name another). Without --cupy
nothing changes; with --cupy and no CuPy or no GPU the job stops with a message.
"""

import argparse
import datetime
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORK = os.path.join(ROOT, "build", "conformance")

SKIMAGE_VERSION = "0.26.0"
SKIMAGE_SDIST = f"scikit_image-{SKIMAGE_VERSION}.tar.gz"
SKIMAGE_SHA256 = "f5f970ab04efad85c24714321fcc91613fcb64ef2a892a13167df2f3e59199fa"
SKIMAGE_MODULES = ("color", "exposure", "filters", "measure", "metrics", "morphology", "registration",
                   "restoration", "segmentation", "transform")
INDEX = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")


def log(*a):
    print("conformance:", *a, flush=True)


# ---- the suites ---------------------------------------------------------------------------------

def skimage_tests():
    """Extracts scikit-image's tests of the modules above (once) and returns their folder."""
    dest = os.path.join(WORK, f"skimage-{SKIMAGE_VERSION}")
    marker = os.path.join(dest, ".complete")
    if os.path.exists(marker) and all(os.path.isdir(os.path.join(dest, "tests", "skimage", m))
                                      for m in SKIMAGE_MODULES):
        return dest
    os.makedirs(WORK, exist_ok=True)
    sdist = os.path.join(WORK, SKIMAGE_SDIST)
    if not os.path.exists(sdist) or _sha256(sdist) != SKIMAGE_SHA256:
        page = urllib.request.urlopen(f"{INDEX}/scikit-image/", timeout=60).read().decode()
        m = re.search(r'href="([^"#]*' + re.escape(SKIMAGE_SDIST) + r')(?:#[^"]*)?"', page)
        if not m:
            raise SystemExit(f"conformance: {SKIMAGE_SDIST} not found on {INDEX}/scikit-image/")
        url = urllib.parse.urljoin(f"{INDEX}/scikit-image/", m.group(1))
        log("downloading", url)
        data = urllib.request.urlopen(url, timeout=300).read()
        if hashlib.sha256(data).hexdigest() != SKIMAGE_SHA256:
            raise SystemExit(f"conformance: {SKIMAGE_SDIST}: SHA-256 mismatch")
        with open(sdist, "wb") as f:
            f.write(data)
    prefix = f"scikit_image-{SKIMAGE_VERSION}/tests/"
    keep = [prefix + "skimage/conftest.py", prefix + "skimage/__init__.py"] + \
           [prefix + f"skimage/{m}/" for m in SKIMAGE_MODULES]
    with tarfile.open(sdist) as tar:
        members = [t for t in tar.getmembers()
                   if any(t.name == k or t.name.startswith(k) for k in keep) and (t.isfile() or t.isdir())]
        for t in members:
            t.name = t.name[len(prefix):]
        tar.extractall(os.path.join(dest, "tests"), members=members, filter="data")
    open(marker, "w").close()
    return dest


def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run_suite(suite, outdir, cupy=None):
    """Runs one suite under the plugin (cupy: the CuPy mode's dtype rules, or None);
    returns (junit path, substituted names)."""
    xml = os.path.join(outdir, f"{suite}.xml")
    names = os.path.join(outdir, f"{suite}-names.json")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "python"), HERE, env.get("PYTHONPATH", "")])
    env["FOVEA_CONFORMANCE_SUITE"] = suite
    env["FOVEA_CONFORMANCE_NAMES"] = names
    env.pop("FOVEA_CONFORMANCE_CUPY", None)
    if cupy:
        env["FOVEA_CONFORMANCE_CUPY"] = cupy
    # tests that fetch data sets (pooch) fail at once instead of waiting for a network
    # CI does not have: a proxy on a closed loopback port refuses every connection
    env.update(HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9", NO_PROXY="",
               http_proxy="http://127.0.0.1:9", https_proxy="http://127.0.0.1:9", no_proxy="")
    args = [sys.executable, "-m", "pytest", "-p", "fovea_substitute", "-p", "no:cacheprovider", "-q",
            "--continue-on-collection-errors", "-o", "addopts=", f"--junitxml={xml}", "-W", "ignore::DeprecationWarning"]
    if suite == "scipy":
        cwd = outdir
        args += ["--pyargs", "scipy.ndimage"]
    else:
        cwd = skimage_tests()
        args += [os.path.join("tests", "skimage", m) for m in SKIMAGE_MODULES]
    log(f"{suite}: {' '.join(args[1:])}")
    args.append("--durations=10")
    p = subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(outdir, f"{suite}.log"), "w") as f:
        f.write(p.stdout)
    tail = p.stdout.strip().splitlines()[-1:] if p.stdout.strip() else ["(no output)"]
    log(f"{suite}: pytest exit {p.returncode}: {tail[0]}")
    if not os.path.exists(xml):
        print(p.stdout[-5000:])
        raise SystemExit(f"conformance: {suite}: pytest wrote no report")
    with open(names) as f:
        return xml, json.load(f)


# ---- outcomes and the known failures ------------------------------------------------------------

def outcomes(suite, xml):
    """{test id: (outcome, message)}: outcome passed, failed, error, skipped."""
    res = {}
    for tc in ET.parse(xml).getroot().iter("testcase"):
        cls, name = tc.get("classname", ""), tc.get("name", "")
        # the same id wherever the suite lies (site-packages, build/conformance)
        cls = re.sub(r"^.*?(scipy\.ndimage\.tests\.|tests\.skimage\.)", r"\1", cls)
        if suite == "scipy" and cls.startswith("tests."):   # pytest's rootdir inside the package
            cls = "scipy.ndimage." + cls
        name = re.sub(r"^.*?(tests\.skimage\.)", r"\1", name)
        tid = f"{suite}:{cls}::{name}" if cls else f"{suite}:{name}"
        outcome, msg = "passed", ""
        for kind in ("failure", "error", "skipped"):
            el = tc.find(kind)
            if el is not None:
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[kind]
                msg = (el.get("message") or "").splitlines()[0][:200] if el.get("message") else ""
                break
        if outcome == "skipped" and "xfail" in msg.lower():
            outcome = "xfailed"
        res[tid] = (outcome, msg)
    return res


def load_known(path, missing_ok=False):
    """[(pattern, reason)] from known-failures.txt: '[reason] text' lines open a group,
    the lines below it are fnmatch patterns of test ids."""
    known, reason = [], None
    if missing_ok and not os.path.exists(path):
        return known
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("[reason] "):
                reason = line[len("[reason] "):].strip()
                continue
            if reason is None:
                raise SystemExit(f"conformance: {path}: pattern before any [reason]: {line}")
            known.append((line.strip(), reason))
    return known


def match_known(tid, known):
    """(pattern, reason) of the first entry that is tid itself or, with '*' or '?' in
    it, matches it (brackets in ids are parameters, not character classes)."""
    for pat, reason in known:
        if pat == tid or (("*" in pat or "?" in pat) and
                          fnmatch.fnmatchcase(tid, pat.replace("[", "[[]"))):
            return pat, reason
    return None, None


# ---- the report ---------------------------------------------------------------------------------

def module_of(suite, tid):
    body = tid.split(":", 1)[1]
    if suite == "scipy":
        m = re.search(r"scipy\.ndimage\.tests\.(test_\w+)", body)
        return "ndimage/" + (m.group(1) if m else "?")
    m = re.search(r"tests\.skimage\.(\w+)\.(?:(\w+)\.)?(test_\w+)", body)
    if m:
        return "/".join(x for x in m.groups() if x)
    m = re.search(r"tests[./]skimage[./](\w+)", body)
    return m.group(1) if m else "?"


def summary_rows(results, known_hits):
    """The Markdown rows of the summary table: one per suite and module, then the suite's total."""
    lines = []
    for suite, res in results.items():
        per = {}
        for tid, (outcome, _) in res.items():
            row = per.setdefault(module_of(suite, tid), {"n": 0, "passed": 0, "known": 0, "skipped": 0, "bad": 0})
            row["n"] += 1
            if outcome == "passed":
                row["passed"] += 1
            elif outcome in ("skipped", "xfailed"):
                row["skipped"] += 1
            elif tid in known_hits:
                row["known"] += 1
            else:
                row["bad"] += 1
        tot = {k: sum(r[k] for r in per.values()) for k in ("n", "passed", "known", "skipped", "bad")}
        for mod in sorted(per):
            r = per[mod]
            lines.append(f"| {suite} | {mod} | {r['n']} | {r['passed']} | {r['known']} | {r['skipped']} | {r['bad']} |")
        lines.append(f"| **{suite}** | **all** | **{tot['n']}** | **{tot['passed']}** | **{tot['known']}** | "
                     f"**{tot['skipped']}** | **{tot['bad']}** |")
    return lines


SUMMARY_HEAD = ["| suite | module | tests | passed | known failures | skipped / xfail | unexpected |",
                "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]


def by_reason(known_hits, level="###"):
    lines = []
    groups = {}
    for tid, reason in known_hits.items():
        groups.setdefault(reason, []).append(tid)
    for reason in sorted(groups):
        tids = sorted(groups[reason])
        lines.append(f"{level} {reason} ({len(tids)})")
        lines.append("")
        for t in tids[:40]:
            lines.append(f"- `{t}`")
        if len(tids) > 40:
            lines.append(f"- ... and {len(tids) - 40} more")
        lines.append("")
    return lines


def cupy_section(data):
    """The report's "CuPy mode" section from a --cupy run's results JSON."""
    results = {s: {t: tuple(v) for t, v in r.items()} for s, r in data["results"].items()}
    cupy_only = {t: r for t, r in data["known"].items() if data["lists"].get(t) == "cupy"}
    lines = [
        "## CuPy mode",
        "",
        "The same suites with the tests' NumPy arrays moved to the GPU as CuPy arrays before each",
        "substituted call and the results moved back (`run.py --cupy`; `fovea_substitute.py`), so",
        "that fovea's CUDA paths and its CuPy-in / CuPy-out rule meet the same cases. Failures of",
        "this mode only are listed in `tests/conformance/known-failures-cupy.txt`.",
        "",
        f"Run: {data['date']}, {data['device']}, `{data['command']}` ({data['dtypes']} dtype rules); " +
        ", ".join(f"{k} {v}" for k, v in data["versions"].items()) + ".",
        "",
    ] + SUMMARY_HEAD + summary_rows(results, data["known"]) + [""]
    if data.get("unexpected"):
        lines += [f"Unexpected failures in that run: {len(data['unexpected'])} (not in either list).", ""]
    lines += ["### Failures of the CuPy mode only, by reason", ""]
    lines += by_reason(cupy_only, "####") if cupy_only else ["None.", ""]
    return lines


def report(path, results, names, known_hits, versions, command, cupy=None):
    lines = [
        "# Compatibility: the peers' own tests against fovea",
        "",
        "Generated by `tests/conformance/run.py` (the conformance job of `tools/test`; issue 30);",
        "do not edit. fovea's function replaces every SciPy / scikit-image function it provides",
        "(`tests/conformance/fovea_substitute.py`), and the peers' own test suites run unchanged.",
        "Failures that are known gaps are listed in `tests/conformance/known-failures.txt`, each",
        "with its reason; the job fails on any other failure and on a listed test that passes.",
        "",
        f"Run: {datetime.date.today().isoformat()}, CPU, `{command}`; " +
        ", ".join(f"{k} {v}" for k, v in versions.items()) + ".",
        "",
        "## Summary",
        "",
    ] + SUMMARY_HEAD + summary_rows(results, known_hits)
    lines += ["", "## Functions substituted", ""]
    for suite, mods in names.items():
        for mod, fns in sorted(mods.items()):
            lines.append(f"- `{mod}` ({len(fns)}): " + ", ".join(f"`{f}`" for f in fns))
    lines += ["", "## Known failures, by reason", ""] + by_reason(known_hits)
    if cupy is not None:
        lines += cupy_section(cupy)
    with open(path, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    log("report:", os.path.relpath(path, ROOT))


# ---- main ---------------------------------------------------------------------------------------

def check_cupy():
    """The GPU this run's CuPy mode uses, by name; SystemExit saying what is missing."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    try:
        import cupy

        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:   # ImportError, or CUDA without a device / driver
        raise SystemExit(f"conformance: --cupy needs CuPy and a CUDA GPU ({type(e).__name__}: {e}); run it on the "
                         "GPU machine (FOVEA_GPU_STEPS=conformance-cupy tools/gpu-check)")
    import fovea

    if n < 1 or not fovea.gpu_available():
        raise SystemExit("conformance: --cupy: fovea sees no usable GPU: " + str(fovea.config()["cuda"].get("reason")))
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def judge(results, lists):
    """(known_hits {tid: reason}, from_list {tid: list name}, unexpected, fixed) of the
    outcomes against the lists [(name, [(pattern, reason)]), ...] (the first that
    matches explains a failure); fixed: passing tests that the last list names."""
    unexpected, fixed, known_hits, from_list = [], [], {}, {}
    for suite, res in results.items():
        for tid, (outcome, msg) in sorted(res.items()):
            for lname, known in lists:
                pat, reason = match_known(tid, known)
                if reason:
                    break
            if outcome in ("failed", "error"):
                if reason:
                    known_hits[tid], from_list[tid] = reason, lname
                else:
                    unexpected.append((tid, outcome, msg))
            elif outcome == "passed" and reason and lname == lists[-1][0]:
                fixed.append((tid, pat, lname))
    return known_hits, from_list, unexpected, fixed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", choices=("scipy", "skimage", "all"), default="all")
    ap.add_argument("--report", help="write the Markdown report here")
    ap.add_argument("--known", default=os.path.join(HERE, "known-failures.txt"))
    ap.add_argument("--no-run", action="store_true", help="judge and report the last run's results again")
    ap.add_argument("--cupy", action="store_true",
                    help="CuPy mode (GPU machine): the tests' NumPy arrays go to the GPU as CuPy arrays")
    ap.add_argument("--cupy-dtypes", choices=("skimage", "cucim"), default="skimage",
                    help="CuPy mode: the dtype rules fovea.skimage follows (default: scikit-image's, which "
                         "the tests assert; cucim: fovea's own rule for CuPy data)")
    ap.add_argument("--known-cupy", default=os.path.join(HERE, "known-failures-cupy.txt"))
    ap.add_argument("--results", help="CuPy mode: write the results JSON here too")
    ap.add_argument("--cupy-results", default=os.path.join(WORK, "runs-cupy", "results.json"),
                    help="a CPU run's --report: the CuPy run's results JSON for its section (if it exists)")
    a = ap.parse_args(argv)
    device = check_cupy() if a.cupy and not a.no_run else None
    suites = ("scipy", "skimage") if a.suite == "all" else (a.suite,)
    out = os.path.join(WORK, "runs-cupy" if a.cupy else "runs")
    os.makedirs(out, exist_ok=True)
    lists = [("cpu", load_known(a.known))]
    if a.cupy:
        lists.append(("cupy", load_known(a.known_cupy, missing_ok=True)))
    results, names = {}, {}
    for s in suites:
        if a.no_run:
            xml = os.path.join(out, f"{s}.xml")
            with open(os.path.join(out, f"{s}-names.json")) as f:
                nm = json.load(f)
        else:
            xml, nm = run_suite(s, out, a.cupy_dtypes if a.cupy else None)
        results[s] = outcomes(s, xml)
        names[s] = nm
    known_hits, from_list, unexpected, fixed = judge(results, lists)
    import scipy
    import skimage
    import numpy
    versions = {"NumPy": numpy.__version__, "SciPy": scipy.__version__, "scikit-image": skimage.__version__}
    command = "python tests/conformance/run.py" + ("" if a.suite == "all" else f" --suite {a.suite}")
    cupy_data = None
    if a.cupy:
        command += " --cupy" + ("" if a.cupy_dtypes == "skimage" else " --cupy-dtypes cucim")
        cupy_data = {"date": datetime.date.today().isoformat(), "device": device or "GPU", "command": command,
                     "dtypes": a.cupy_dtypes, "versions": versions,
                     "results": {s: {t: list(v) for t, v in r.items()} for s, r in results.items()},
                     "known": known_hits, "lists": from_list, "unexpected": [list(u) for u in unexpected]}
        paths = {os.path.join(out, "results.json"), os.path.abspath(a.results or os.path.join(out, "results.json"))}
        for path in paths:
            with open(path, "w") as f:
                json.dump(cupy_data, f, indent=1, sort_keys=True)
            log("results:", path)
    elif a.report and os.path.exists(a.cupy_results):
        with open(a.cupy_results) as f:
            cupy_data = json.load(f)
        # judged again against today's lists (known-failures-cupy.txt is filled after the run)
        res = {s: {t: tuple(v) for t, v in r.items()} for s, r in cupy_data["results"].items()}
        hits, src, unexp, _ = judge(res, lists + [("cupy", load_known(a.known_cupy, missing_ok=True))])
        cupy_data.update(known=hits, lists=src, unexpected=[list(u) for u in unexp])
    if a.report and a.cupy:
        with open(os.path.abspath(a.report), "w") as f:
            f.write("\n".join(["# Compatibility: the peers' own tests against fovea, CuPy mode", ""] +
                              cupy_section(cupy_data)).rstrip() + "\n")
    elif a.report:
        report(os.path.abspath(a.report), results, names, known_hits, versions, command, cupy_data)
    n = sum(len(r) for r in results.values())
    npass = sum(1 for r in results.values() for o, _ in r.values() if o == "passed")
    log(f"{n} tests, {npass} passed, {len(known_hits)} known failures, {len(unexpected)} unexpected failures, "
        f"{len(fixed)} listed tests now passing")
    for tid, outcome, msg in unexpected:
        print(f"  UNEXPECTED {outcome}: {tid}  {msg}")
    for tid, pat, lname in fixed:
        path = os.path.basename(a.known_cupy if lname == "cupy" else a.known)
        print(f"  NOW PASSES (take it off {path}, pattern {pat}): {tid}")
    # the plain closing line (passed / failed counts)
    print(f"conformance: {npass} passed, {len(unexpected) + len(fixed)} failed")
    return 1 if unexpected or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
