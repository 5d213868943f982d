"""Writes the problems of a ktune suite whose `seqlen` lies in [--min, --max] (and, with --family,
of those families only) as a suite of its own, so a suite too long for one device call
(suites/attention.json: its 16384-token references alone take minutes) can be benched in parts,
each part's results committed with its command.

Usage: python3 scripts/suite_part.py SUITE.json OUT.json --name NAME [--min N] [--max N] [--family F,G]
"""
import argparse
import json

parser = argparse.ArgumentParser()
parser.add_argument("suite")
parser.add_argument("out")
parser.add_argument("--name", required=True)
parser.add_argument("--min", type=int, default=0)
parser.add_argument("--max", type=int, default=1 << 62)
parser.add_argument("--family", help="comma-separated families to keep (default: all)")
args = parser.parse_args()
suite = json.load(open(args.suite))
families = set(args.family.split(",")) if args.family else None
problems = [p for p in suite["problems"]
            if args.min <= p.get("seqlen", 0) <= args.max and (families is None or p["family"] in families)]
part = {
    "name": args.name,
    "description": f"{suite['name']}'s problems with seqlen in [{args.min}, {args.max}]"
                   + (f" of {args.family}" if families else "") + f" ({args.suite})",
    "problems": problems,
}
json.dump(part, open(args.out, "w"), indent=1)
print(f"{args.out}: {len(problems)} of {len(suite['problems'])} problems")
