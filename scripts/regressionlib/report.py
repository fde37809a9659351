"""The one table a regression run prints, and the details of what failed."""
import os


def human_bytes(n):
    return "-" if n is None else f"{n / 2**20:.0f} MiB"


def human_seconds(s):
    return "-" if s is None else f"{s:.1f} s"


def table(outcomes, repo):
    header = ("test", "ranks", "threads", "scheduler", "result", "time", "memory", "notes")
    rows = [(o.test.name, str(o.test.ranks), str(o.test.threads), o.test.scheduler, o.result,
             human_seconds(o.wall_seconds), human_bytes(o.peak_memory_bytes), "; ".join(o.notes))
            for o in outcomes]
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header) - 1)]
    lines = []
    for row in [header, *rows]:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])
        if row is header:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * len(header[-1]))
    failed = [o for o in outcomes if o.failed]
    for o in failed:
        lines.append("")
        lines.append(f"{o.test.name}: {o.result}")
        for detail in o.details:
            lines.append(f"  {detail}")
        if o.work_dir:
            lines.append(f"  kept for inspection: {os.path.relpath(o.work_dir, repo)}")
    passed = len(outcomes) - len(failed)
    lines.append("")
    lines.append(f"{passed} of {len(outcomes)} regression tests passed"
                 + (f"; {len(failed)} failed" if failed else ""))
    return "\n".join(lines)
