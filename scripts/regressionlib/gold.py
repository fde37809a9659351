"""Gold standards: tests/regression/gold/NAME/ holds the outputs of a run
that was checked by hand (index.yaml, input.yaml and the output files; no
checkpoints), its run record (record.json) and the wall time and peak memory
measured when it was made (performance.json)."""
import json
import os
import pathlib
import shutil
import socket
import time

import yaml

RECORD = "record.json"
PERFORMANCE = "performance.json"


def exists(gold, record_only=False):
    return (record_only or (gold / "index.yaml").is_file()) and (gold / RECORD).is_file()


def load_record(gold):
    return json.loads((gold / RECORD).read_text())


def load_performance(gold):
    path = gold / PERFORMANCE
    return json.loads(path.read_text()) if path.is_file() else None


def write(gold, run_dir, record_path, wall_seconds, peak_memory_bytes, outputs=True,
          record_only=False):
    """Replaces the gold standard in `gold` with the run in `run_dir`: its
    outputs only (a restart test needs no stored checkpoint). Without
    `outputs` (a no_gold test), only the time and memory to compare with."""
    staging = gold.with_name(gold.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    if outputs and record_only:
        shutil.copyfile(record_path, staging / RECORD)
    elif outputs:
        _copy_outputs(staging, run_dir, record_path)
    (staging / PERFORMANCE).write_text(json.dumps({
        "wall_seconds": round(wall_seconds, 3),
        "peak_memory_bytes": peak_memory_bytes,
        "measured_on": socket.gethostname(),
        "cores": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
    }, indent=2) + "\n")
    shutil.rmtree(gold, ignore_errors=True)
    staging.rename(gold)


def _copy_outputs(staging, run_dir, record_path):
    index = yaml.safe_load((run_dir / "index.yaml").read_text())
    index["checkpoints"] = []
    index.pop("restarted_from", None)
    for entry in index.get("outputs") or []:
        target = staging / entry["file"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run_dir / entry["file"], target)
    shutil.copyfile(run_dir / index.get("deck", "input.yaml"), staging / index.get("deck", "input.yaml"))
    (staging / "index.yaml").write_text("# Tessera run index (a regression gold standard: outputs only)\n"
                                        + yaml.safe_dump(index, sort_keys=False))
    shutil.copyfile(record_path, staging / RECORD)


def folder_bytes(folder):
    return sum(p.stat().st_size for p in pathlib.Path(folder).rglob("*") if p.is_file())
