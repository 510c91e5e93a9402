# The differential YAML test's oracle: PyYAML's safe_load on every document
# of a JSON list read from stdin, one JSON result per document on stdout.
# Values are normalised to what JSON can carry the way the Rust reader does
# (keys as str(), sets as mappings of nulls); what JSON cannot carry is marked.
import datetime
import json
import sys

import yaml

try:
    C_LOADER = yaml.CSafeLoader
except AttributeError:
    C_LOADER = None


class Recursive(Exception):
    pass


def norm(value, active):
    if isinstance(value, (list, dict, set, tuple)):
        if id(value) in active:
            raise Recursive()
        active = active | {id(value)}
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        if -(2**63) <= value < 2**64:
            return value
        return float(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return {"$nonfinite": repr(value)}
        return value
    if isinstance(value, (datetime.date, datetime.datetime)):
        return {"$timestamp": str(value)}
    if isinstance(value, bytes):
        return {"$binary": True}
    if isinstance(value, tuple):
        return {key(value[0]): norm(value[1], active)}
    if isinstance(value, set):
        # A Python set has no stable order: compared as sorted keys.
        return {"$set": sorted(key(item) for item in value)}
    if isinstance(value, list):
        return [norm(item, active) for item in value]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out[key(k)] = norm(v, active)
        return out
    return {"$unknown": type(value).__name__}


def key(value):
    if isinstance(value, (datetime.date, datetime.datetime)):
        return "$timestamp-key"
    if isinstance(value, (list, dict, set, tuple)):
        # Only !!pairs/!!omap keep such keys; JSON spells them as JSON text.
        return "$collection-key"
    return str(value)


def load(doc, loader):
    try:
        return {"ok": norm(yaml.load(doc, Loader=loader), frozenset())}
    except Recursive:
        return {"err": "Recursive: the document refers to itself"}
    except RecursionError:
        return {"err": "RecursionError: nesting too deep"}
    except Exception as error:  # every failure is a result to compare
        lines = [line.strip() for line in str(error).strip().splitlines()]
        return {"err": "%s: %s" % (type(error).__name__, " | ".join(lines))}


def main():
    docs = json.load(sys.stdin)
    for doc in docs:
        result = load(doc, yaml.SafeLoader)
        if C_LOADER is not None:
            other = load(doc, C_LOADER)
            result["c_agrees"] = ("ok" in other) == ("ok" in result) and other.get(
                "ok"
            ) == result.get("ok")
            result["c"] = other
        sys.stdout.write(json.dumps(result) + "\n")


main()
