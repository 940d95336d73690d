# Rows of an ncu --page source --csv --print-source sass export that carry
# shared or global memory traffic: address, instruction, wavefronts (ideal,
# excess), global sectors (ideal, excess). Usage: sass_extract.py FILE.csv
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
kernel = rows[0][1]; head = rows[1]; col = {h: i for i, h in enumerate(head)}
keys = ["L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal", "L1 Wavefronts Shared Excessive",
        "L2 Theoretical Sectors Global", "L2 Theoretical Sectors Global Ideal", "L2 Theoretical Sectors Global Excessive"]
num = lambda r, k: float(r[col[k]].replace(",", "") or 0)
print("#", kernel)
print("address,instruction,executed," + ",".join(k.replace("L1 Wavefronts Shared", "shared wf").replace("L2 Theoretical Sectors Global", "global sectors") for k in keys))
tot = [0.0] * len(keys)
for r in rows[2:]:
    if len(r) < len(head): continue
    v = [num(r, k) for k in keys]
    if v[0] == 0 and v[3] == 0: continue
    tot = [a + b for a, b in zip(tot, v)]
    print(f'{r[col["Address"]]},"{r[col["Source"]].strip()}",{r[col["Instructions Executed"]]},' + ",".join(f"{x:.0f}" for x in v))
print("total,,," + ",".join(f"{x:.0f}" for x in tot))
