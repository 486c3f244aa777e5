#!/usr/bin/env python3
"""Writes tests/conformance/known-failures.txt from the last run's unexpected failures
(build/conformance/runs/*.xml), each under the reason the rules below give it; a
failure no rule explains stops the script (explain it first: fix fovea, or add a rule
with the reason). Run after a deliberate change of what fails:

    python tests/conformance/run.py; python tests/conformance/make-known.py

--cupy writes known-failures-cupy.txt from the last CuPy-mode run
(build/conformance/runs-cupy/*.xml, run.py --cupy on the GPU machine): the failures
known-failures.txt does not explain, under the reason RULES_CUPY gives or, until
one is written, a placeholder naming the exception type (replace it with the cause).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

# (regex on the test id, reason); the first match wins. Only gaps that still exist:
# a rule for a fixed gap would give a regression of it an old reason
RULES = [
    (r"test_c_api::test_geometric_transform",
     "deliberate: fovea.ndimage.geometric_transform takes Python callables as the mapping, not scipy's "
     "LowLevelCallable (C function pointers); TypeError says so (docs/transform.md)"),
    (r"test_(black|white)_tophat03",
     "deliberate: scipy's grey erosion / dilation of bool input with a non-flat `structure` store raw "
     "sums (bytes 255, 2) in the bool output, which its tophat's second step reads as integers; fovea "
     "writes canonical 0 / 1 (each step alone equals scipy's)"),
    (r"test_distance_transform_cdt05",
     "deliberate: scipy's distance_transform_cdt reads the first bytes of a non-bool metric array as "
     "bools (a float64 ones((3, 3)) becomes [[0,0,0],[0,0,0],[1,1,0]], hence its -21); fovea takes the "
     "metric's values (non-zero = in the structure); with that bool structure fovea gives -21 too"),
    (r"test_random_walker",
     "deliberate: fovea's 'cg' is its own block conjugate gradient (no UMFPACK), so it does not emit "
     "scikit-image's '\"cg\" mode may be slow because UMFPACK is not available' warning, which these tests "
     "require; the labels equal scikit-image's (test_random_walker_3d_multispectral_spacing)"),
    (r"test_ccomp.*test_nd",
     "deliberate: fovea labels 4-d and higher input, where scikit-image raises NotImplementedError"),
    (r"test_regionprops::test_(orientation_continuity)",
     "skimage.measure.regionprops: weighted central moments with spacing differ from the direct sums by "
     "~1e-12 relatively (fovea's one pass shifts raw sums to the centroid), past the test's 7 decimals "
     "on values near 2e6; the orientations themselves agree (issue 30)"),
    (r"test_regionprops::test_docstrings_and_props",
     "skimage.measure.regionprops: the test parses the docstrings of every RegionProperties property "
     "(issue 30)"),
]
# the CuPy mode's own gaps: (regex on the test id, reason), as RULES
RULES_CUPY = []
NETWORK = ("needs a data file scikit-image downloads at test time (gitlab.com); CI has no "
           "network beyond the package index")


def reason_for(tid, msg):
    if "ConnectionError" in msg or "gitlab.com" in msg or (
            "collection failure" in msg and "rank" in tid):
        return NETWORK
    for pat, reason in RULES:
        if re.search(pat, tid):
            return reason
    return None


def reason_for_cupy(tid, msg, cpu_known):
    """The CuPy mode's reason for a failure (None: known-failures.txt explains it)."""
    if run.match_known(tid, cpu_known)[1]:
        return None
    for pat, reason in RULES_CUPY:
        if re.search(pat, tid):
            return reason
    exc = re.match(r"\s*([A-Za-z_][\w.]*(?:Error|Exception|Warning))\b", msg or "")
    return "CuPy mode, not yet explained (fill in the cause): " + (exc.group(1) if exc else "failure")


def main():
    cupy = "--cupy" in sys.argv[1:]
    out = os.path.join(run.WORK, "runs-cupy" if cupy else "runs")
    cpu_known = run.load_known(os.path.join(run.HERE, "known-failures.txt")) if cupy else None
    groups, unexplained = {}, []
    for suite in ("scipy", "skimage"):
        xml = os.path.join(out, f"{suite}.xml")
        if cupy and not os.path.exists(xml):
            continue
        for tid, (outcome, msg) in sorted(run.outcomes(suite, xml).items()):
            if outcome not in ("failed", "error"):
                continue
            if cupy:
                r = reason_for_cupy(tid, msg, cpu_known)
                if r is not None:
                    groups.setdefault(r, []).append(tid)
                continue
            r = reason_for(tid, msg)
            if r is None:
                unexplained.append(f"{tid}: {msg}")
            else:
                groups.setdefault(r, []).append(tid)
    if unexplained:
        print("make-known: no reason for:\n  " + "\n  ".join(unexplained))
        return 1
    path = os.path.join(run.HERE, "known-failures-cupy.txt" if cupy else "known-failures.txt")
    with open(path, "w") as f:
        if cupy:
            f.write("# Known failures of the conformance job's CuPy mode (tests/conformance/run.py --cupy, on\n"
                    "# the GPU machine) that the CPU run does not have: test ids (\"suite:classname::name\",\n"
                    "# fnmatch patterns allowed) under the reason that explains them, as in\n"
                    "# known-failures.txt (whose entries hold in this mode too). Written by\n"
                    "# tests/conformance/make-known.py --cupy; every entry is a gap to close.\n")
        else:
            f.write("# Known failures of the conformance job (tests/conformance/run.py): test ids\n"
                    "# (\"suite:classname::name\", fnmatch patterns allowed) under the reason that explains\n"
                    "# them. Written by tests/conformance/make-known.py; every entry is a gap to close.\n")
        for r in sorted(groups):
            f.write(f"\n[reason] {r}\n")
            for t in groups[r]:
                f.write(t + "\n")
    print(f"make-known: {sum(len(v) for v in groups.values())} ids under {len(groups)} reasons -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
