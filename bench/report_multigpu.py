"""The multi-GPU section of bench/RESULTS.md: the newest bench/multigpu.py run in
bench/results/ (schema "multigpu-1"), a table of time, throughput, speed-up over
the run's first GPU count and equality with it, and a scaling plot."""
import os


def newest(results_dir):
    from report import load   # report imports this module: import here
    docs = [d for d in load(results_dir, "multigpu-1") if d["rows"]]
    return max(docs, key=lambda d: d["date"]) if docs else None


def _what(info):
    shape = "x".join(str(s) for s in info["shape"])
    bits = [f"{shape} {info['dtype']}", f"chunks {info['chunks']}"]
    if "psf" in info:
        bits.append(f"PSF {'x'.join(str(s) for s in info['psf'])}, {info['iterations']} iterations")
    if info.get("params"):
        bits.append(info["params"])
    return ", ".join(bits)


def _threads(doc):
    t = doc.get("threads_per_worker", "?")
    return f"{t} thread{'' if t == 1 else 's'} per worker"


def _settings(doc):
    """The run's dask settings, where it recorded them."""
    bits = []
    if doc.get("overlap"):
        bits.append("fovea.dask's own overlap" if doc["overlap"] == "own" else "dask's map_overlap")
    if doc.get("worker_saturation"):
        bits.append(f"worker-saturation {doc['worker_saturation']}")
    return "".join("; " + b for b in bits)


def _plot(doc, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    counts = doc["gpu_counts"]
    for w in dict.fromkeys(r["workload"] for r in doc["rows"]):
        rs = sorted((r for r in doc["rows"] if r["workload"] == w), key=lambda r: r["gpus"])
        ax.plot([r["gpus"] for r in rs], [r["speedup"] for r in rs], marker="o", label=w)
    ax.plot(counts, [c / counts[0] for c in counts], ls="--", color="grey", label="linear")
    ax.set_xlabel("GPUs (dask-cuda workers)")
    ax.set_ylabel(f"speed-up over {counts[0]} GPU")
    ax.set_xticks(counts)
    ax.legend(fontsize=8)
    ax.set_title("fovea.dask multi-GPU scaling", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def section(results_dir, plots_dir, rel_plots, have_mpl, wrote):
    doc = newest(results_dir)
    if doc is None:
        return ["## Multi-GPU", "", "No bench/multigpu.py run in bench/results/ yet.", ""]
    m = doc.get("machine", {})
    L = ["## Multi-GPU", "",
         f"From {doc['_file']} ({doc['date']}; {len(m.get('gpus', []))} GPUs: {', '.join(m.get('gpus', [])[:1])}; "
         f"{m.get('cores', '?')} cores; fovea {doc.get('fovea', {}).get('commit', '?')}; "
         f"{_threads(doc)}{_settings(doc)}). `{doc.get('command', '')}`", "",
         "dask-cuda's LocalCUDACluster, one worker per GPU; the data are made on the workers' GPUs block by block "
         "and each result block is reduced to an exact digest there (the figures are of the computation, not a "
         "disk); the best of the runs. Speed-up: time on the first GPU count over time here. Equal: every "
         "block's digest equals the first run's (bit-for-bit equal results).", "",
         "| workload | data | GPUs | time | GB/s (input) | speed-up | equal | compute floor |",
         "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |"]
    for r in doc["rows"]:
        floor = r["info"].get("compute_floor_s")
        L.append(f"| {r['workload']} | {_what(r['info'])} | {r['gpus']} | {r['s']:.2f} s | {r['gb_per_s']:.2f} | "
                 f"{r['speedup']:.2f}x | {'yes' if r['equal_to_first'] else '**no**'} | "
                 f"{f'{floor:.2f} s' if floor else '-'} |")
    L += ["", "Compute floor (deconvolution): one chunk with its overlap deconvolved on one GPU without dask, "
          "times the chunks each GPU gets. The labels of `label` are counted across the whole image.", ""]
    if have_mpl:
        os.makedirs(plots_dir, exist_ok=True)
        if _plot(doc, os.path.join(plots_dir, "multigpu-scaling.png")):
            wrote.add("multigpu-scaling.png")
            L += [f"![multi-GPU scaling]({rel_plots}/multigpu-scaling.png)", ""]
    return L
