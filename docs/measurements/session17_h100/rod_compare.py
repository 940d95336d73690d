import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
sa, sb = sorted(a["steps"], key=int), sorted(b["steps"], key=int)
assert sa == sb, (sa, sb)
worst = 0.0
for k in sa:
    ua, ub = a["steps"][k]["u"][()].astype(np.float64), b["steps"][k]["u"][()].astype(np.float64)
    assert ua.shape == ub.shape
    d = np.max(np.abs(ua - ub)) / max(np.max(np.abs(ub)), 1e-300)
    worst = max(worst, d)
    print(f"step {k}: t = {a['steps'][k].attrs.get('time')} max|u| = {np.max(np.abs(ub)):.6g} rel max diff = {d:.3e}")
print(f"worst rel diff {worst:.3e}")
