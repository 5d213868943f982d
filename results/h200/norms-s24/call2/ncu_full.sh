#!/usr/bin/env bash
# ncu --set full of the cached winner of one problem (a one-problem suite file), kernels matching REGEX;
# writes OUT/NAME.details.txt (the details page) and OUT/NAME.raw.csv (every metric)
# usage: ab/ncu_full.sh KTUNE SUITE_JSON REGEX OUT NAME
set -u
ktune=$1 suite=$2 regex=$3 out=$4 name=$5
mkdir -p "$out"
ncu --target-processes all --clock-control none --cache-control all --set full -k "regex:$regex" -c 2 \
  -o "$out/$name" -f "$ktune" bench "$suite" --no-tune --no-hold --samples 2 --rounds 1 --warmup-ms 1 \
  --timeout 300 --out "$out/tmp-$name" --stem x --no-progress > "$out/$name.ncu.log" 2>&1
echo "ncu full $name: exit $?"
ncu --import "$out/$name.ncu-rep" --page details > "$out/$name.details.txt" 2>&1
ncu --import "$out/$name.ncu-rep" --page raw --csv > "$out/$name.raw.csv" 2>&1
rm -rf "$out/tmp-$name" "$out/$name.ncu-rep"
