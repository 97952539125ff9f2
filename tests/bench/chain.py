"""Round trips in a row, from the local Engine's request log (per-request ``start`` and ``end``).

The longest chain of requests that did not overlap (each one started after the one before had been
answered) is what latency multiplies: a run can never be faster than that many round trips.
"""
import bisect
import re

LBAAS = re.compile(r"^/api/LBaaS/v1/(\w+)\.json(/[^/?]+)?")
FIRST_PAGE = re.compile(r"[?&]page=1(&|$)")


def longest_chain(log):
    """The requests (log entries) of the longest chain of non-overlapping requests, in time order."""
    entries = sorted((e for e in log if e.get("start") is not None and e.get("end") is not None),
                     key=lambda e: e["end"])
    ends = [e["end"] for e in entries]
    best = []        # chain length ending with entries[i]
    back = []        # the entry before it in that chain
    prefix = []      # (best length, index) over entries[0..i]
    for i, entry in enumerate(entries):
        # Entries ending no later than this one starts; all of them come before i (sorted by end).
        j = bisect.bisect_right(ends, entry["start"], 0, i) - 1
        length, before = (prefix[j][0] + 1, prefix[j][1]) if j >= 0 else (1, None)
        best.append(length)
        back.append(before)
        prefix.append(max(prefix[-1], (length, i)) if prefix else (length, i))
    if not entries:
        return []
    i = prefix[-1][1]
    chain = []
    while i is not None:
        chain.append(entries[i])
        i = back[i]
    return chain[::-1]


def round_trips_in_a_row(log):
    return len(longest_chain(log))


def label(entry):
    """A short name for a request: what it reads or writes, without identifiers."""
    method, path = entry["method"], entry["path"]
    found = LBAAS.match(path)
    if found:
        kind, ident = found.groups()
        if ident or method != "GET":
            return "%s %s" % (method, kind)
        return "list %s%s" % (kind, "" if FIRST_PAGE.search(path) or "page=" not in path else " (more pages)")
    if path.startswith("/api/core/v1/resource.json"):
        if "/tags/" in path:
            what = "lease" if "-lease=" in path else "marker" if "-reconciled." in path else "tag"
            return "%s %s" % (method, what)
        return "list by tag" if "tag_name=" in path else "GET tags"
    if path.startswith("/api/core/v1/tags.json"):
        return "%s tag entity%s" % (method, "" if "/" in path[len("/api/core/v1/tags.json"):] else " list")
    return "%s %s" % (method, path.split("?")[0])


def describe(chain):
    """The chain as run-length compressed labels: ``GET tags ×3 → POST backend → ...``."""
    out = []
    for entry in chain:
        name = label(entry)
        if out and out[-1][0] == name:
            out[-1][1] += 1
        else:
            out.append([name, 1])
    return " → ".join(name if n == 1 else "%s ×%d" % (name, n) for name, n in out)


def by_method(log):
    counts = {}
    for entry in log:
        counts[entry["method"]] = counts.get(entry["method"], 0) + 1
    return counts


def by_path(log):
    """Requests per ``label`` (method and what it reads or writes, without identifiers)."""
    counts = {}
    for entry in log:
        name = label(entry)
        counts[name] = counts.get(name, 0) + 1
    return counts
