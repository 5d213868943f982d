# A Python copy of gemm_wgmma's WorkWalk with STREAM_K 3 (stream-k-3-tried.patch): for 1-3 waves
# of tiles and several k-tile counts, every k tile is walked once, and every split tile's parts
# are the CTAs the fix-up's range_of finds, each in the slot (range start 0, end 1) it reads.
# Prints "bad 0" when all hold. Run: python3 walk_check.py
def walk(SK, cluster, clusters, tiles, kt):
    left = tiles % clusters
    if SK == 3: streamed = left
    elif SK != 2 or tiles < 2*clusters: streamed = tiles
    else: streamed = clusters + left
    first = tiles - streamed if SK == 3 else 0
    rb = lambda c: first*kt + c*streamed*kt//clusters
    pos, end = rb(cluster), rb(cluster+1)
    whole = (0 if SK == 3 else streamed) + cluster
    whole_end = first if SK == 3 else tiles
    out = []
    while True:
        if (whole < whole_end) if SK == 3 else (pos >= end and whole < whole_end):
            out.append((whole, 0, kt)); whole += clusters; continue
        if pos >= end: break
        t = pos // kt; b = pos % kt; e = min(b + end - pos, kt); pos += e - b
        out.append((t, b, e))
    return out, first, streamed, rb(cluster)
def range_of(it, clusters, first, streamed, kt):
    total = streamed*kt
    c = ((it - first*kt + 1)*clusters - 1)//total
    return min(c, clusters-1)
bad = 0
for SK in (1,2,3):
  for clusters in (132, 66, 7):
    for tiles in range(clusters+1, 3*clusters+5, 7):
      for kt in (8, 13, 20, 40):
        cover = {}
        pieces = {}
        for c in range(clusters):
            out, first, streamed, start = walk(SK, c, clusters, tiles, kt)
            for (t,b,e) in out:
                for k in range(b,e): cover[(t,k)] = cover.get((t,k),0)+1
                if not (b==0 and e==kt): pieces.setdefault(t, []).append((c, b, e, t*kt+b == start))
        if len(cover) != tiles*kt or any(v!=1 for v in cover.values()): bad += 1; print('cover', SK, clusters, tiles, kt)
        for t, ps in pieces.items():
            c0 = range_of(t*kt, clusters, first, streamed, kt); c1 = range_of(t*kt+kt-1, clusters, first, streamed, kt)
            rb = lambda c: first*kt + c*streamed*kt//clusters
            peers = [c for c in range(c0, c1+1) if rb(c) != rb(c+1)]
            if sorted(peers) != sorted(p[0] for p in ps): bad += 1; print('peers', SK, clusters, tiles, kt, t, peers, ps)
            for (c,b,e,atstart) in ps:
                part_from_reader = 0 if rb(c) >= t*kt else 1
                if part_from_reader != (0 if atstart else 1): bad += 1; print('slot', SK, t, c)
print('bad', bad)
