import struct, sys, collections
def sections(data):
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i*shentsize) for i in range(shnum)]
    strtab = hdrs[shstrndx]
    def name(off):
        s = data[strtab[4]+off:]; return s[:s.index(b'\0')].decode()
    return [(name(h[0]), h[4], h[5]) for h in hdrs]
data = open(sys.argv[1],'rb').read()
for nm, off, size in sections(data):
    if not nm.startswith('.text.'): continue
    print(nm[:60], size//16, 'instructions')
    ops = collections.Counter()
    rows=[]
    for i in range(size//16):
        lo, hi = struct.unpack_from('<QQ', data, off+16*i)
        op = lo & 0xfff
        stall = (hi >> 41) & 0xf; yld = (hi >> 45) & 1; wb=(hi>>46)&7; rb=(hi>>49)&7; wm=(hi>>52)&0x3f; reuse=(hi>>58)&0xf
        rows.append((i, op, stall, yld, wb, rb, wm, reuse))
        ops[op]+=1
    print(ops.most_common(25))
    # runs of FFMA (0x223)
    run=[]
    for r in rows+[(None,None,0,0,0,0,0,0)]:
        if r[1] in (0x223,):
            run.append(r)
        else:
            if len(run) >= 16:
                ys = ''.join(str(x[3]) for x in run); st=''.join('%x'%x[2] for x in run); ru=''.join('%x'%x[7] for x in run)
                print('run at', run[0][0], 'len', len(run)); print('  yield', ys); print('  stall', st); print('  reuse', ru)
            run=[]
