#!/usr/bin/env python3
"""fovea's benchmark runner: suites described as data (bench/suites/), measured against
every peer on the CPU (NumPy, scipy.ndimage, scikit-image, slide readers) and on the GPU
(CuPy, cupyx.scipy.ndimage, cuCIM, torchvision), results as JSON, and the report
bench/RESULTS.md generated from those JSON files.

    python bench/run.py [--suite default|all|NAME,...] [--filter REGEX] [--device cpu|gpu|all]
                        [--quick] [--big] [--json OUT] [--baseline DIR] [--report]
    python bench/run.py --list                 the suites and cases (no measurement)
    python bench/run.py --report               regenerate bench/RESULTS.md and bench/plots/*.png
                                               from bench/results/*.json, without running

Ratios are peer time / fovea time (> 1: fovea is faster), measured side by side in the
same run. Each case runs in a worker process (one per fovea build): with --baseline DIR
(a python/ directory holding another build's fovea/_fovea*.so) a second worker measures
that build in the same run, the two alternating case by case, and every case gets an
after/before time ratio; ops more than 5% slower than the baseline are flagged. A case
that crashes or hangs its worker is reported as an error and the worker restarts.
Peers that do not import, or lack the function, are reported as missing.

Timing (bench/_timing.py): warm-up, device synchronize, CUDA events on the GPU, the
median of several runs within --budget seconds per case and library.
"""
import argparse
import datetime
import json
import os
import platform
import re
import select
import signal
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

SLOWER = 1.05    # after/before time ratio above which an op is flagged slower than the baseline


# ---- selection ----------------------------------------------------------------------------------


def select_items(args):
    from suites import all_suites, expand   # noqa: PLC0415
    suites = all_suites()
    want = args.suite.split(",")
    names = []
    for w in want:
        if w == "default":
            names += [n for n, s in suites.items() if not s.slide]
        elif w == "all":
            names += list(suites)
        elif w in suites:
            names.append(w)
        else:
            sys.exit(f"run.py: unknown suite {w!r} (known: default, all, {', '.join(suites)})")
    devices = ["cpu", "gpu"] if args.device == "all" else [args.device]
    items = []
    for name in dict.fromkeys(names):
        suite = suites[name]
        for device in devices:
            per_shape = {}
            for case in suite.cases:
                if args.filter and not re.search(args.filter, f"{suite.name}/{case.name}"):
                    continue
                for shape, dtype in expand(suite, case, device, args.quick, args.big):
                    per_shape.setdefault((shape, dtype), []).append(case)
            for (shape, dtype), cases in per_shape.items():   # one input set for consecutive cases
                for case in cases:
                    items.append(dict(suite=suite.name, case=case.name, device=device, shape=shape, dtype=dtype))
    return items


# ---- the worker: measures cases in one process with one fovea build -----------------------------


class WorkerState:
    def __init__(self):
        self.inputs_key = None
        self.inputs = None
        self.cp = None
        self.bw = None
        self.gpu_reason = None


def find_case(suite_name, case_name):
    from suites import all_suites   # noqa: PLC0415
    suite = all_suites()[suite_name]
    for c in suite.cases:
        if c.name == case_name:
            return suite, c
    raise KeyError(f"{suite_name}/{case_name}")


def gpu_module(state):
    """cupy when fovea sees a GPU and CuPy imports; else None and state.gpu_reason."""
    if state.cp is not None or state.gpu_reason:
        return state.cp
    import fovea   # noqa: PLC0415
    if not fovea.gpu_available():
        state.gpu_reason = "no usable GPU: " + (fovea.config().get("cuda", {}).get("reason") or "CUDA unavailable")
        return None
    try:
        import cupy as cp   # noqa: PLC0415
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001
        state.gpu_reason = f"cupy does not import: {type(e).__name__}: {e}"
        return None
    state.cp = cp
    return cp


def check_result(kind, ours, theirs, rtol):
    import numpy as np   # noqa: PLC0415

    def host(x):
        if hasattr(x, "get"):
            return x.get()
        if hasattr(x, "cpu"):
            return x.cpu().numpy()
        return np.asarray(x)
    if callable(kind):
        return bool(kind(ours, theirs))
    a, b = host(ours[0] if isinstance(ours, tuple) else ours), host(theirs[0] if isinstance(theirs, tuple) else theirs)
    if a.shape != b.shape:
        return False
    if kind == "equal":
        return bool(np.array_equal(a, b))
    if kind == "agree":   # fraction of equal elements
        frac = float(np.mean(a == b))
        return True if frac == 1.0 else round(frac, 4)
    return bool(np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=rtol, equal_nan=True))


def run_item(state, req):
    import numpy as np   # noqa: PLC0415
    import _timing   # noqa: PLC0415
    from suites import SHAPES   # noqa: PLC0415
    from suites.libs import Lib, Missing   # noqa: PLC0415
    suite, case = find_case(req["suite"], req["case"])
    device = req["device"]
    out = {"libs": {}}
    cp = None
    if device == "gpu":
        cp = gpu_module(state)
        if cp is None:
            out["skipped"] = state.gpu_reason
            return out
    xp = cp if cp is not None else np
    shape = SHAPES[req["shape"]]
    params = dict(case.params, quick=req["quick"])
    builder = case.inputs or suite.inputs
    key = (id(builder), device, req["shape"], req["dtype"], json.dumps(params, sort_keys=True, default=str))
    if key != state.inputs_key:
        state.inputs, state.inputs_key = None, None
        if cp is not None:
            cp.get_default_memory_pool().free_all_blocks()
        state.inputs = builder(xp, shape, None if req["dtype"] == "-" else req["dtype"], params) if builder else None
        state.inputs_key = key
    d = state.inputs
    sync = cp.cuda.Device().synchronize if cp is not None else None
    results = {}
    for lib in req["libs"]:
        fn = case.calls.get(lib, case.call)
        m = Lib(lib)
        call = lambda: fn(m, d)   # noqa: E731
        if req.get("nvtx") and cp is not None and lib == "fovea":
            inner = call

            def call():
                cp.cuda.nvtx.RangePush("fovea")
                try:
                    return inner()
                finally:
                    cp.cuda.nvtx.RangePop()
        try:
            if case.kind == "throughput":
                t, n, extra, runs = _timing.throughput(call, case.repeat or req["repeat"], sync, case.prepare, d)
                r = {"s": t, "items": n, "runs": runs}
                if extra:
                    r["extra"] = extra
                res = None
            elif case.kind == "percall":
                t, runs = _timing.per_call(call, req["percall_n"], 1 if req["quick"] else 3, sync)
                r, res = {"s": t, "runs": runs}, None
            else:
                max_runs = (case.slow_peer_runs if lib != "fovea" and case.slow_peer_runs else req["max_runs"])
                t, runs, res = _timing.measure(call, d, cp, req["budget"], min(req["min_runs"], max_runs), max_runs,
                                               case.prepare)
                r = {"s": t, "runs": runs}
                if lib == "fovea" and case.nbytes is not None and cp is not None:
                    if state.bw is None:
                        state.bw = _timing.copy_bandwidth(cp)
                    r["bw_frac"] = case.nbytes(d) / t / state.bw
            results[lib] = res
        except Missing as e:
            r = {"missing": str(e)}
        except (ImportError, ModuleNotFoundError) as e:
            r = {"missing": f"{type(e).__name__}: {e}"}
        except Exception as e:  # noqa: BLE001 (reported per library)
            msg = str(e).splitlines()[0][:160] if str(e) else ""
            r = {"error": f"{type(e).__name__}: {msg}"}
        out["libs"][lib] = r
        if req.get("profile") and lib == "fovea" and "s" in r:
            out["profile"] = profile(req["profile"], call, cp, req["percall_n"])
    if case.check is not None and results.get("fovea") is not None:
        for lib, res in results.items():
            if lib != "fovea" and res is not None:
                try:
                    out["libs"][lib]["same"] = check_result(case.check, results["fovea"], res, case.rtol)
                except Exception as e:  # noqa: BLE001
                    out["libs"][lib]["same"] = f"check failed: {type(e).__name__}"
    if cp is not None:
        cp.cuda.Device().synchronize()
    return out


def profile(kind, call, cp, n):
    """Text: where one fovea call's time goes (cprofile: Python functions; torch: CUDA kernels by CUPTI)."""
    import io   # noqa: PLC0415
    n = max(10, min(n, 100))
    if kind == "cprofile":
        import cProfile   # noqa: PLC0415
        import pstats   # noqa: PLC0415
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(n):
            call()
        if cp is not None:
            cp.cuda.Device().synchronize()
        pr.disable()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(15)
        return f"cProfile of {n} calls\n" + s.getvalue()
    if kind == "torch":
        try:
            import torch   # noqa: PLC0415
            from torch.profiler import ProfilerActivity   # noqa: PLC0415
        except ImportError as e:
            return f"--profile torch: torch does not import ({e})"
        with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(n):
                call()
            if cp is not None:
                cp.cuda.Device().synchronize()
        return f"CUPTI kernels of {n} calls\n" + prof.key_averages().table(sort_by="cuda_time_total", row_limit=15)
    return ""   # nsys / ncu: the worker runs under the tool (see Worker)


def worker_main():
    """Requests on stdin, one JSON object a line; answers on the protocol fd. Everything the
    libraries print (Python or C, fd 1) goes to stderr, so it cannot break the protocol."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    state = WorkerState()
    import fovea   # noqa: PLC0415
    from suites.libs import version   # noqa: PLC0415
    hello = {"fovea": fovea.__version__, "fovea_path": os.path.dirname(fovea.__file__),
             "threads": fovea.config().get("threads"), "versions": {}}
    for lib in ("numpy", "scipy", "skimage"):
        hello["versions"][lib] = version(lib)
    proto.write(json.dumps({"hello": hello}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("cmd") == "info":
            info = {"versions": {}}
            for lib in req["libs"]:
                info["versions"][lib] = version(lib)
            if req.get("gpu"):
                cp = gpu_module(state)
                if cp is None:
                    info["gpu"] = None
                    info["gpu_reason"] = state.gpu_reason
                else:
                    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
                    info["gpu"] = props["name"].decode()
                    info["driver"] = cp.cuda.runtime.driverGetVersion()
                    info["versions"]["cupy"] = cp.__version__
            proto.write(json.dumps({"info": info}) + "\n")
            continue
        t0 = time.perf_counter()
        try:
            out = run_item(state, req)
        except Exception as e:  # noqa: BLE001 (the inputs failed)
            import traceback   # noqa: PLC0415
            traceback.print_exc()
            out = {"error": f"{type(e).__name__}: {str(e)[:200]}", "libs": {}}
        out["wall_s"] = time.perf_counter() - t0
        proto.write(json.dumps(out, default=float) + "\n")


class Worker:
    """One worker process for one fovea build (a python/ directory)."""

    def __init__(self, label, build, env, wrap=None):
        self.label, self.build, self.env, self.wrap = label, build, env, wrap or []
        self.proc = None
        self.hello = None

    def start(self):
        env = dict(os.environ)
        env.update(self.env)
        env["PYTHONPATH"] = os.pathsep.join([self.build, HERE] + [p for p in [os.environ.get("PYTHONPATH")] if p])
        env["PYTHONUNBUFFERED"] = "1"
        cmd = self.wrap + [sys.executable, os.path.abspath(__file__), "--worker"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True,
                                     bufsize=1, start_new_session=True)
        self.hello = self.read(120)
        if self.hello is None or "hello" not in self.hello:
            raise RuntimeError(f"worker for {self.build} did not start")
        self.hello = self.hello["hello"]
        return self

    def read(self, timeout):
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if r:
                line = self.proc.stdout.readline()
                if not line:
                    return None   # died
                return json.loads(line)

    def ask(self, req, timeout):
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        out = self.read(timeout)
        if out is None:
            rc = self.proc.poll()
            why = f"timed out after {timeout:.0f} s" if rc is None else f"worker died (exit {rc})"
            self.stop()
            return {"error": why, "libs": {}}
        return out

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        self.proc = None


# ---- the run ------------------------------------------------------------------------------------


def git_commit(path):
    """The measured checkout's commit. FOVEA_COMMIT overrides it: the GPU machine gets a
    copy of the working tree whose git state can be older than the commit
    the copied files (and a carried prebuilt extension) are of."""
    if os.environ.get("FOVEA_COMMIT"):
        return {"commit": os.environ["FOVEA_COMMIT"], "subject": "(FOVEA_COMMIT)"}
    try:
        top = subprocess.run(["git", "-C", path, "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                             check=True).stdout.strip()
        head = subprocess.run(["git", "-C", top, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", top, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        subj = subprocess.run(["git", "-C", top, "log", "-1", "--format=%s"], capture_output=True,
                              text=True).stdout.strip()
        return {"commit": head + ("-dirty" if dirty else ""), "subject": subj}
    except Exception:  # noqa: BLE001
        return {"commit": None}


def machine_info():
    from _timing import machine   # noqa: PLC0415
    info = {"host": socket.gethostname(), "cpu": machine(), "cores": os.cpu_count(), "os": platform.platform(),
            "python": platform.python_version()}
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        if smi.returncode == 0 and smi.stdout.strip():
            info["nvidia_smi"] = smi.stdout.strip().splitlines()
    except (OSError, subprocess.TimeoutExpired):
        pass
    return info


def ratio(peer, ours):
    """peer time / fovea time, per item where the two processed different counts."""
    if not peer or not ours or "s" not in peer or "s" not in ours or not ours["s"]:
        return None
    p = peer["s"] / peer["items"] if peer.get("items") else peer["s"]
    o = ours["s"] / ours["items"] if ours.get("items") else ours["s"]
    return p / o if o else None


def fmt_t(s):
    if s is None:
        return "-"
    if s >= 1:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3f} ms"
    return f"{s * 1e6:.1f} us"


def build_dir(path):
    path = os.path.abspath(path)
    if os.path.isdir(os.path.join(path, "python", "fovea")):
        path = os.path.join(path, "python")
    pkg = os.path.join(path, "fovea")
    if not os.path.isdir(pkg) or not any(f.startswith("_fovea") and f.endswith(".so") for f in os.listdir(pkg)):
        sys.exit(f"run.py: {path} holds no fovea/_fovea*.so (a built python/ directory is needed)")
    return path


def parse_env(pairs):
    env = {}
    for p in pairs or []:
        k, sep, v = p.partition("=")
        if not sep:
            sys.exit(f"run.py: --env wants NAME=VALUE, not {p!r}")
        env[k] = v
    return env


def run(args):
    items = select_items(args)
    if args.list:
        from suites import all_suites   # noqa: PLC0415
        suites = all_suites()
        for it in items:
            c = next(c for c in suites[it["suite"]].cases if c.name == it["case"])
            peers = ", ".join(c.peers.get(it["device"], []))
            print(f"{it['device']}  {it['suite']}/{it['case']}  {it['shape']} {it['dtype']}  peers: {peers}")
        print(f"{len(items)} items")
        return 0
    if not items:
        print("run.py: no case matches", file=sys.stderr)
        return 2
    from suites import all_suites   # noqa: PLC0415
    suites = all_suites()
    env = parse_env(args.env)
    if args.threads:
        env["FOVEA_NUM_THREADS"] = str(args.threads)
    wrap = []
    prof_dir = None
    if args.profile in ("nsys", "ncu"):
        prof_dir = os.path.abspath(args.profile_out)
        os.makedirs(prof_dir, exist_ok=True)
        wrap = (["nsys", "profile", "--trace=cuda,nvtx,osrt", "-o", os.path.join(prof_dir, "fovea-%p"), "--force-overwrite", "true"]
                if args.profile == "nsys" else
                ["ncu", "--nvtx", "--nvtx-include", "fovea/", "--set", "full", "-o", os.path.join(prof_dir, "fovea-%p"),
                 "-f"])
    main_build = build_dir(args.build)
    primary = Worker("after", main_build, env, wrap).start()
    baseline = None
    if args.baseline or args.baseline_env:
        benv = dict(env)
        benv.update(parse_env(args.baseline_env))
        baseline = Worker("before", build_dir(args.baseline) if args.baseline else main_build, benv).start()
    print(f"# fovea {primary.hello['fovea']} from {primary.hello['fovea_path']} ({primary.hello['threads']} threads)"
          + (f"; baseline fovea {baseline.hello['fovea']} from {baseline.hello['fovea_path']}" if baseline else ""),
          flush=True)
    libs_used = sorted({p.split(":")[0] for it in items for c in suites[it["suite"]].cases if c.name == it["case"]
                        for p in c.peers.get(it["device"], [])} | {"fovea", "numpy"})
    info = primary.ask({"cmd": "info", "libs": libs_used, "gpu": any(it["device"] == "gpu" for it in items)}, 300)
    info = info.get("info", {}) if isinstance(info, dict) else {}
    doc = {
        "schema": 1, "generator": "bench/run.py",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python bench/run.py " + " ".join(sys.argv[1:]),
        "machine": machine_info(), "gpu": info.get("gpu"), "gpu_reason": info.get("gpu_reason"),
        "gpu_driver": info.get("driver"), "versions": {k: v for k, v in info.get("versions", {}).items()},
        "fovea": {"version": primary.hello["fovea"], "path": primary.hello["fovea_path"],
                  "threads": primary.hello["threads"], **git_commit(main_build)},
        "baseline": None if baseline is None else {
            "version": baseline.hello["fovea"], "path": baseline.hello["fovea_path"],
            "env": parse_env(args.baseline_env), **git_commit(baseline.build)},
        "env": env, "quick": args.quick, "big": args.big, "rows": [],
        "suites": {s: {"title": suites[s].title, "note": suites[s].note} for s in {it["suite"] for it in items}},
    }
    out_path = args.json or os.path.join(
        HERE, "results", datetime.datetime.now().strftime("%Y-%m-%d-%H%M") + f"-{args.device}.json")
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    quick = args.quick
    req_base = {"quick": quick, "budget": args.budget if args.budget is not None else (0.02 if quick else 0.25),
                "min_runs": args.min_runs or (2 if quick else 3), "max_runs": 25,
                "repeat": args.repeat or (1 if quick else 3), "percall_n": 50 if quick else 300,
                "profile": args.profile if args.profile in ("cprofile", "torch") else None,
                "nvtx": args.profile in ("nsys", "ncu")}
    t_start = time.monotonic()
    timeout = args.case_timeout or (120 if quick else 600)
    current = None
    for k, it in enumerate(items):
        case = next(c for c in suites[it["suite"]].cases if c.name == it["case"])
        if current != (it["suite"], it["device"]):
            current = (it["suite"], it["device"])
            print(f"\n## {it['device'].upper()} {it['suite']}: {suites[it['suite']].title}", flush=True)
        row = dict(it)
        if args.max_time and time.monotonic() - t_start > args.max_time:
            row["skipped"] = f"not run: --max-time {args.max_time:.0f} s spent"
            doc["rows"].append(row)
            continue
        peers = [p for p in case.peers.get(it["device"], []) if not args.no_peers]
        req = dict(req_base, **it)
        if baseline is None:
            res = primary.ask(dict(req, libs=["fovea"] + peers), timeout)
        else:   # fovea in both builds, alternating which goes first; the peers once
            order = [primary, baseline] if k % 2 == 0 else [baseline, primary]
            got = {w.label: w.ask(dict(req, libs=["fovea"]), timeout) for w in order}
            res = got["after"]
            if peers and "skipped" not in res:
                more = primary.ask(dict(req, libs=peers), timeout)
                res.setdefault("libs", {}).update(more.get("libs", {}))
                if "error" in more and "error" not in res:
                    res["error"] = more["error"]
            b = got["before"].get("libs", {}).get("fovea")
            row["baseline"] = b if b is not None else {"error": got["before"].get("error", "not measured")}
        for key in ("skipped", "error", "profile"):
            if key in res:
                row[key] = res[key]
        libs = res.get("libs", {})
        row["fovea"] = libs.pop("fovea", None)
        row["peers"] = {p: libs.get(p, {"missing": "not measured"}) for p in peers} if "skipped" not in res else {}
        row["kind"] = case.kind
        row["ratios"] = {p: ratio(v, row["fovea"]) for p, v in row["peers"].items() if ratio(v, row["fovea"])}
        if baseline is not None and row.get("fovea") and "s" in row["fovea"] and "s" in row.get("baseline", {}):
            row["after_over_before"] = ratio(row["fovea"], row["baseline"])
        doc["rows"].append(row)
        print_row(row)
        if "profile" in row:
            print(row["profile"], flush=True)
        with open(out_path, "w") as f:   # rows so far: a run cut short keeps them
            json.dump(doc, f, indent=1, default=float)
    primary.stop()
    if baseline:
        baseline.stop()
    doc["elapsed_s"] = time.monotonic() - t_start
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1, default=float)
    summary(doc)
    print(f"\n# wrote {out_path} ({len(doc['rows'])} rows, {doc['elapsed_s']:.0f} s)"
          + (f"; profiles in {prof_dir}" if prof_dir else ""))
    return 0


def print_row(row):
    f = row.get("fovea") or {}
    head = f"{row['case'][:44]:44s} {row['shape']:>6s} {row['dtype']:>7s}"
    if "skipped" in row:
        print(f"{head}  skipped: {row['skipped']}", flush=True)
        return
    if "s" not in f:
        why = f.get("error") or f.get("missing") or row.get("error", "no result")
        print(f"{head}  fovea: {why}", flush=True)
        return
    parts = [f"fovea {fmt_t(f['s'])}"]
    if f.get("items"):
        parts[0] += f" ({f['items'] / f['s']:.0f}/s)"
    if f.get("bw_frac") is not None:
        parts.append(f"{100 * f['bw_frac']:.0f}% copy BW")
    if "after_over_before" in row:
        r = row["after_over_before"]
        parts.append(f"after/before {r:.3f}" + (" SLOWER" if r > SLOWER else ""))
    elif "baseline" in row:
        parts.append(f"baseline: {row['baseline'].get('error', 'no result')}")
    for p, v in row["peers"].items():
        if "s" in v:
            same = v.get("same")
            tag = "" if same in (None, True) else f" [differs: {same}]"
            parts.append(f"{p} {fmt_t(v['s'])} = {row['ratios'].get(p, 0):.2f}x{tag}")
        else:
            parts.append(f"{p} {'missing' if 'missing' in v else 'error'}: {(v.get('missing') or v.get('error'))[:60]}")
    print(f"{head}  " + "; ".join(parts), flush=True)


def summary(doc):
    rows = [r for r in doc["rows"] if r.get("ratios")]
    print("\n## Summary (ratio = peer time / fovea time)")
    for dev in ("cpu", "gpu"):
        per = {}
        for r in rows:
            if r["device"] == dev:
                for p, v in r["ratios"].items():
                    per.setdefault(p, []).append((v, r))
        for p, vs in sorted(per.items()):
            worst = min(vs, key=lambda t: t[0])
            print(f"- {dev} vs {p}: median {statistics.median(v for v, _ in vs):.2f}x over {len(vs)} rows; "
                  f"lowest {worst[0]:.2f}x ({worst[1]['suite']}/{worst[1]['case']} {worst[1]['shape']} "
                  f"{worst[1]['dtype']})")
    slow = [r for r in doc["rows"] if r.get("after_over_before", 0) > SLOWER]
    if doc.get("baseline"):
        ab = [r["after_over_before"] for r in doc["rows"] if "after_over_before" in r]
        if ab:
            print(f"- after/before (fovea time, this build / baseline): median {statistics.median(ab):.3f} over "
                  f"{len(ab)} rows; {len(slow)} more than {100 * (SLOWER - 1):.0f}% slower"
                  + (": " + "; ".join(f"{r['device']} {r['suite']}/{r['case']} {r['shape']} {r['dtype']} "
                                      f"{r['after_over_before']:.3f}" for r in slow) if slow else ""))
    missing = sorted({(r["device"], p, v["missing"][:80]) for r in doc["rows"] for p, v in r.get("peers", {}).items()
                      if "missing" in v})
    for dev, p, why in missing[:20]:
        print(f"- missing on {dev}: {p} ({why})")
    errs = [r for r in doc["rows"] if "error" in r or (r.get("fovea") or {}).get("error")]
    if errs:
        print(f"- {len(errs)} rows with fovea errors: " + "; ".join(
            f"{r['suite']}/{r['case']} {r['shape']} {r['dtype']}: {r.get('error') or r['fovea'].get('error')}"
            for r in errs[:10]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="default",
                    help="comma-separated suites; default: every suite that needs no slide file; all: every suite")
    ap.add_argument("--filter", default="", help="regex over 'suite/case'")
    ap.add_argument("--device", choices=("cpu", "gpu", "all"), default="cpu")
    ap.add_argument("--quick", action="store_true", help="small shapes, short budgets: a check that it all runs")
    ap.add_argument("--big", action="store_true", help="also the big shapes and cases (8192^2, 256^3, 100 000 labels, "
                                                       "big slides, more worker counts)")
    ap.add_argument("--json", help="write the results here (default bench/results/DATE-TIME-DEVICE.json)")
    ap.add_argument("--baseline", metavar="DIR", help="another build's python/ directory (or its checkout), measured "
                                                      "in the same run: after/before ratios, >5%% slower flagged")
    ap.add_argument("--baseline-env", action="append", metavar="NAME=VALUE",
                    help="environment of the baseline worker (alone: the same build under another setting)")
    ap.add_argument("--env", action="append", metavar="NAME=VALUE", help="environment of the (main) worker")
    ap.add_argument("--build", default=os.path.join(ROOT, "python"), help="the python/ directory measured")
    ap.add_argument("--threads", type=int, help="FOVEA_NUM_THREADS for the workers (default: every core)")
    ap.add_argument("--budget", type=float, help="seconds of timed runs per case and library (default 0.25; "
                                                 "--quick 0.02)")
    ap.add_argument("--min-runs", type=int, help="timed runs at least (default 3; --quick 2)")
    ap.add_argument("--repeat", type=int, help="runs of a throughput case (default 3; --quick 1)")
    ap.add_argument("--no-peers", action="store_true", help="fovea only")
    ap.add_argument("--max-time", type=float, help="start no case after this many seconds (the rest: 'not run')")
    ap.add_argument("--case-timeout", type=float, help="seconds one case may take before its worker is killed "
                                                       "(default 600; --quick 120)")
    ap.add_argument("--profile", choices=("cprofile", "torch", "nsys", "ncu"),
                    help="cprofile: fovea's Python functions per case; torch: its CUDA kernels (CUPTI); nsys / ncu: "
                         "the worker runs under the tool, fovea's calls in NVTX ranges named 'fovea' "
                         "(narrow with --filter; timings under ncu are not comparable)")
    ap.add_argument("--profile-out", default="/tmp/fovea-profile", help="where nsys / ncu write their reports")
    ap.add_argument("--list", action="store_true", help="list the cases that would run")
    ap.add_argument("--report", action="store_true", help="regenerate the report from the results and exit")
    ap.add_argument("--results", default=os.path.join(HERE, "results"), help="--report: the JSON files' directory")
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"), help="--report: the report written")
    ap.add_argument("--plots", default=os.path.join(HERE, "plots"), help="--report: the PNG plots' directory")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker_main()
    if args.report:
        import report   # noqa: PLC0415
        return report.generate(args.results, args.out, args.plots)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
