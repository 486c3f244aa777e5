# Host model of filter-sep2.cu tiling (tile + halos, column extension by pass 2 mode,
# constant columns = cval, segment bounds) against the pass-by-pass chain, exact integer
# arithmetic. Run: python3 tests/c/sepfused_model.py (about 15 s).
import random, math
TP, TQ, R = 64, 64, 8
def ext(i, n, mode):
    if 0 <= i < n: return i
    if mode == 'reflect':
        p = 2*n; i %= p; return i if i < n else p-1-i
    if mode == 'nearest': return 0 if i < 0 else n-1
    if mode == 'mirror':
        if n == 1: return 0
        p = 2*n-2; i %= p; return i if i < n else p-i
    if mode == 'wrap': return i % n
    return -1
def rnd(v): return math.trunc(v) & 0xff  # uint8-ish rounding for mid
def win(xs, w): return sum(a*b for a, b in zip(xs, w))
def pass1d_line(line, w, left, mode, cval):
    n = len(line); out = []
    for i in range(n):
        xs = []
        for k in range(len(w)):
            e = ext(i + k - left, n, mode)
            xs.append(cval if e < 0 else line[e])
        out.append(win(xs, w))
    return out
def unfused(img, P1, P2):
    H, W = len(img), len(img[0])
    mid = [[0]*W for _ in range(H)]
    for c in range(W):
        col = pass1d_line([img[r][c] for r in range(H)], *P1)
        for r in range(H): mid[r][c] = rnd(col[r])
    return [[rnd(v) for v in pass1d_line(mid[r], *P2)] for r in range(H)]
def fused(img, P1, P2):
    H, W = len(img), len(img[0])
    w1, l1, m1, cv1 = P1; w2, l2, m2, cv2 = P2
    s1, s2 = len(w1), len(w2); C = TQ + s2; RI = TP + s1
    out = [[None]*W for _ in range(H)]
    for p0 in range(0, H, TP):
        for q0 in range(0, W, TQ):
            ep = min(TP, H-p0); eq = min(TQ, W-q0)
            sIn = [[None]*C for _ in range(RI)]
            for c in range(C):
                cq = ext(q0 + c - l2, W, m2)
                if cq < 0: continue
                for r in range(RI):
                    rp = ext(p0 + r - l1, H, m1)
                    sIn[r][c] = cv1 if rp < 0 else img[rp][cq]
            sMid = [[None]*C for _ in range(TP)]
            nseg1 = (ep + R - 1)//R
            for seg in range(nseg1):
                for c in range(C):
                    cq = q0 + c - l2
                    for k in range(R):
                        if m2 == 'constant' and (cq < 0 or cq >= W):
                            sMid[seg*R+k][c] = cv2
                        else:
                            xs = [sIn[seg*R+k+j][c] for j in range(s1)]
                            assert None not in xs
                            sMid[seg*R+k][c] = rnd(win(xs, w1))
            for r in range(ep):
                for seg in range((eq+R-1)//R):
                    for k in range(R):
                        xs = [sMid[r][seg*R+k+j] for j in range(s2)]
                        if seg*R+k < eq:
                            assert None not in xs
                            out[p0+r][q0+seg*R+k] = rnd(win(xs, w2))
    return out
random.seed(1)
modes = ['reflect','constant','nearest','mirror','wrap']
for it in range(300):
    H = random.choice([1,2,3,17,64,65,70,130]); W = random.choice([1,2,5,33,64,65,129])
    img = [[random.randint(0,255) for _ in range(W)] for _ in range(H)]
    def P():
        s = random.randint(1,9); w = [random.randint(-3,3) for _ in range(s)]
        left = s//2 + random.randint(-(s//2), (s-1)//2)
        return (w, left, random.choice(modes), random.randint(-5,300))
    P1, P2 = P(), P()
    a, b = unfused(img, P1, P2), fused(img, P1, P2)
    assert a == b, (it, H, W, P1, P2)
print("model ok")
