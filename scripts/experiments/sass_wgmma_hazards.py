#!/usr/bin/env python3
"""Registers an in-flight wgmma still reads, written before the wait that retires it.

A wgmma with its A operand in registers (HGMMA ..., R<a>, gdesc[...]) reads R<a>..R<a+3> after
issue, until a WARPGROUP.DEPBAR.LE gsb0, N leaves at most N groups in flight; ptxas may give those
registers to other values meanwhile if nothing after the wait reads them
(kernels/gemm_nvfp4_wgmma.cu's keep_until_here). This reads `cuobjdump -sass` output and prints
every instruction that writes such a register while its group is in flight. A straight-line scan:
it follows the listing in address order, not the branches, so read what it prints.
    cuobjdump -sass kernel.cubin > k.sass && scripts/experiments/sass_wgmma_hazards.py k.sass
Exit 1 where it finds any."""
import re
import sys

# Opcodes that write no general register, or write uniform/predicate registers only.
NO_DEST = ('ST', 'RED', 'ATOM', 'BRA', 'BAR', 'SYNCS', 'HGMMA', 'WARPGROUP', 'EXIT', 'NOP', 'WARPSYNC', 'MEMBAR',
           'CCTL', 'DEPBAR', 'UTMA', 'UBLKCP', 'FENCE', 'ERRBAR', 'BSSY', 'BSYNC', 'ISETP', 'FSETP', 'PLOP3', 'RET',
           'CALL')


def written(op):
    parts = op.split()
    if parts[0].startswith('@'):
        parts = parts[1:]
    opc = parts[0]
    if opc.startswith(NO_DEST) or opc.startswith('U'):
        return []
    m = re.match(r'(?:P\d|PT),\s*(R\d+)|(R\d+)', ' '.join(parts[1:]))
    if not m:
        return []
    first = int((m.group(1) or m.group(2))[1:])
    width = 4 if '.128' in opc else 2 if '.64' in opc or '.WIDE' in opc else 1
    return list(range(first, first + width))


def main(path):
    listing = [(int(m.group(1), 16), m.group(2).strip())
               for m in (re.search(r'/\*([0-9a-f]{4,})\*/\s+(.*?);', line) for line in open(path)) if m]
    in_flight, group, found = [], [], 0
    for addr, op in listing:
        if 'HGMMA' in op:
            m = re.search(r'HGMMA\S*\s+R\d+,\s*R(\d+),', op)
            if m:
                group.append((addr, set(range(int(m.group(1)), int(m.group(1)) + 4))))
            if 'gsb0' in op:
                in_flight.append(group)
                group = []
            continue
        m = re.search(r'WARPGROUP\.DEPBAR\.LE gsb0, 0x(\d+)', op)
        if m:
            del in_flight[:max(0, len(in_flight) - int(m.group(1)))]
            continue
        dests = set(written(op))
        for g in in_flight + [group]:
            for issued, regs in g:
                if regs & dests:
                    found += 1
                    print(f'{addr:#06x} {op}: writes R{sorted(regs & dests)}, read by the wgmma at {issued:#06x}')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
