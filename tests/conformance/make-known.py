#!/usr/bin/env python3
"""Writes tests/conformance/known-failures.txt from the last run's unexpected failures
(build/conformance/runs/*.xml), each under the reason the rules below give it; a
failure no rule explains stops the script (explain it first: fix fovea, or add a rule
with the reason). Run after a deliberate change of what fails:

    python tests/conformance/run.py; python tests/conformance/make-known.py
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


def main():
    out = os.path.join(run.WORK, "runs")
    groups, unexplained = {}, []
    for suite in ("scipy", "skimage"):
        xml = os.path.join(out, f"{suite}.xml")
        for tid, (outcome, msg) in sorted(run.outcomes(suite, xml).items()):
            if outcome not in ("failed", "error"):
                continue
            r = reason_for(tid, msg)
            if r is None:
                unexplained.append(f"{tid}: {msg}")
            else:
                groups.setdefault(r, []).append(tid)
    if unexplained:
        print("make-known: no reason for:\n  " + "\n  ".join(unexplained))
        return 1
    path = os.path.join(run.HERE, "known-failures.txt")
    with open(path, "w") as f:
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
