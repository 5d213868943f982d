"""Reads a ktune results file (or any JSON file), gzipped or not, as ktune itself does
(src/util/gzip_file.hpp): large results are committed as NAME.json.gz, and CI artifacts come back
compressed. The format is told by the first two bytes (gzip's 0x1f 0x8b), not by the name.
  from results_file import load_json      # the scripts here run with scripts/ on sys.path
"""
import gzip
import json


def load_json(path):
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        return json.load(f)
